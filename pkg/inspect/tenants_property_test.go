package inspect

import (
	"context"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/tenantjoin"
)

// tenantsQueue is a random queue: rows of a few tenants with random times,
// kinds and sizes, and stale markers.
type tenantsQueue struct {
	due      []tenantsDue
	inflight []string
	dead     []string
	stale    []tenantsStale
}

type tenantsDue struct {
	tenant string
	at     uint64
	size   uint32
}

type tenantsStale struct {
	tenant string
	bucket uint64
}

var tenantsPool = []string{"acme", "beta", "default", "zürich", "t-5"}

func drawTenantsQueue(t *rapid.T) tenantsQueue {
	tenant := rapid.SampledFrom(tenantsPool)
	// Around now, up to an hour either way, and sometimes in the same second.
	at := rapid.Custom(func(t *rapid.T) uint64 {
		return storetest.QueueMS(time.Duration(rapid.Int64Range(-3600, 3600).Draw(t, "s"))*time.Second +
			time.Duration(rapid.Int64Range(0, 999).Draw(t, "ms"))*time.Millisecond)
	})
	var q tenantsQueue
	for i, n := 0, rapid.IntRange(0, 40).Draw(t, "due"); i < n; i++ {
		q.due = append(q.due, tenantsDue{tenant.Draw(t, "tenant"), at.Draw(t, "at"), rapid.Uint32Range(0, 5000).Draw(t, "size")})
	}
	q.inflight = rapid.SliceOfN(tenant, 0, 5).Draw(t, "inflight")
	q.dead = rapid.SliceOfN(tenant, 0, 5).Draw(t, "dead")
	for i, n := 0, rapid.IntRange(0, 60).Draw(t, "stale"); i < n; i++ {
		q.stale = append(q.stale, tenantsStale{tenant.Draw(t, "tenant"), at.Draw(t, "at") / 1000})
	}
	return q
}

// write puts the queue into a live store of either format, its tenants named
// with prefix so that every case has its own. A due row's kind is what
// format 2 would infer from its time, so both formats must agree.
func (q tenantsQueue) write(s *storetest.Queue, prefix string) {
	now := storetest.QueueMS(0)
	for _, d := range q.due {
		kind := format.KindFirstAttempt
		if d.at > now {
			kind = format.KindRetry
		}
		s.Due(prefix+d.tenant, d.at, s.NextSeq(), 1, d.size, kind)
	}
	for _, tenant := range q.inflight {
		s.Inflight(prefix+tenant, s.NextSeq(), 1, 7)
	}
	for _, tenant := range q.dead {
		seq := s.NextSeq()
		s.Dead(prefix+tenant, now-seq, seq, 1, 11, "x")
	}
	if s.Format == format.Format3 {
		for _, m := range q.stale {
			s.Marker(prefix+m.tenant, m.bucket)
		}
	}
	s.Commit()
}

// oldest is the model: the smallest `at` of each tenant's due rows.
func (q tenantsQueue) oldest(prefix string) map[string]uint64 {
	m := map[string]uint64{}
	for _, d := range q.due {
		if o, ok := m[prefix+d.tenant]; !ok || d.at < o {
			m[prefix+d.tenant] = d.at
		}
	}
	return m
}

func tenantsOldestOf(rows []TenantRow) map[string]uint64 {
	m := map[string]uint64{}
	for _, r := range rows {
		if r.OldestDueAt != nil {
			m[r.Tenant] = uint64(r.OldestDueAt.UnixMilli())
		}
	}
	return m
}

// Both ways of finding the oldest due row (the marker walk with its
// verification, and the walk of the due family) give first_due exactly,
// however many stale markers lie about. The cases share one store, each with
// its own tenants, so the others' rows and markers are noise around it.
func TestOldestDueAgreesWithTheRows(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	st := s.OpenLive()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		prefix := fmt.Sprintf("c%d-", n)
		q := drawTenantsQueue(rt)
		q.write(s, prefix)
		want := q.oldest(prefix)
		l, err := ListTenants(context.Background(), st, TenantsOptions{Prefix: prefix, Now: storetest.QueueNow})
		if err != nil {
			rt.Fatal(err)
		}
		if got := tenantsOldestOf(l.Tenants); fmt.Sprint(got) != fmt.Sprint(want) {
			rt.Fatalf("listing: oldest %v, want %v", got, want)
		}
		for _, way := range []string{"markers", "walk"} {
			rows := append([]TenantRow(nil), l.Tenants...)
			for i := range rows {
				rows[i].OldestDueAt, rows[i].OldestDueAgeMS = nil, nil
			}
			var err error
			if way == "markers" {
				err = oldestDueWith(context.Background(), st.DB, rows, storetest.QueueNow, tenantjoin.OldestDueByIndex)
			} else {
				err = oldestDueWith(context.Background(), st.DB, rows, storetest.QueueNow, tenantjoin.OldestDueByWalk)
			}
			if err != nil {
				rt.Fatal(err)
			}
			if got := tenantsOldestOf(rows); fmt.Sprint(got) != fmt.Sprint(want) {
				rt.Fatalf("%s: oldest %v, want %v", way, got, want)
			}
		}
	})
}

// A format 2 store folded from its backlog lists what the same queue's
// format 3 counters say (format 3 also lists tenants whose rows are all gone:
// an ordinal is forever).
func TestFormat2FoldAgreesWithFormat3Counters(t *testing.T) {
	var stores [2]*storetest.Queue
	for i, f := range []uint32{format.Format2, format.Format3} {
		stores[i] = storetest.NewQueue(t, f)
		stores[i].OpenLive()
	}
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		prefix := fmt.Sprintf("c%d-", n)
		q := drawTenantsQueue(rt)
		var lists [2][]TenantRow
		for i, s := range stores {
			q.write(s, prefix)
			l, err := ListTenants(context.Background(), s.Live, TenantsOptions{Prefix: prefix, Sort: SortByName, Now: storetest.QueueNow})
			if err != nil {
				rt.Fatal(err)
			}
			for _, r := range l.Tenants {
				if r.TenantCounters != (TenantCounters{}) {
					lists[i] = append(lists[i], r)
				}
			}
		}
		v2, v3 := lists[0], lists[1]
		if len(v2) != len(v3) {
			rt.Fatalf("format 2 lists %v, format 3 %v", tenantNames(v2), tenantNames(v3))
		}
		for i := range v2 {
			a, b := v2[i], v3[i]
			if a.Tenant != b.Tenant || a.TenantCounters != b.TenantCounters || fmt.Sprint(tenantsOldestOf(v2[i:i+1])) != fmt.Sprint(tenantsOldestOf(v3[i:i+1])) {
				rt.Fatalf("row %d: format 2 %+v, format 3 %+v", i, a, b)
			}
		}
	})
}
