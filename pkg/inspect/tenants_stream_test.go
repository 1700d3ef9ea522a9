package inspect

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/tenantjoin"
)

// streamAll lists with StreamTenants and collects what it streamed.
func streamAll(t testing.TB, l *storetest.Queue, opt TenantsOptions) *TenantList {
	t.Helper()
	var head *TenantList
	var rows []TenantRow
	got, err := StreamTenants(context.Background(), l.Live, opt, func(h *TenantList) error {
		head = h
		return nil
	}, func(r *TenantRow) error {
		if head == nil {
			t.Fatal("a row before the head")
		}
		rows = append(rows, *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if head.Matched != got.Matched || head.Format != got.Format || !head.Now.Equal(got.Now) || head.Sort != got.Sort {
		t.Fatalf("head %+v, list %+v", head, got)
	}
	got.Tenants = rows
	if got.Tenants == nil {
		got.Tenants = []TenantRow{}
	}
	return got
}

// itersOf is how many iterators list opened on l's store: the way a
// listing took, seen from outside (rocks.DB.Iterators).
func itersOf(l *storetest.Queue, list func()) int64 {
	before := l.Live.DB.Iterators()
	list()
	return l.Live.DB.Iterators() - before
}

// withDue is how many of l's rows have a due row.
func withDue(l *TenantList) int64 {
	n := int64(0)
	for _, r := range l.Tenants {
		if r.OldestDueAt != nil {
			n++
		}
	}
	return n
}

// The streamed listing is the built one, row for row and note for note,
// on a store that grows case by case (tenants with due rows, some erased,
// stale markers, orphan and undecodable counters): both the walk beside the
// join and the seek per tenant find the oldest due row. Each way must be
// the one taken, or the test compares a way with itself: the seeks open an
// iterator for each tenant with a due row where the walk opens one, and the
// count's sizes (a second reader, t rows read again past what is held) open
// more than the tool's own in some cases at least.
func TestStreamTenantsIsListTenants(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	s.OpenLive()
	n := 0
	counted, countedMore := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		prefix := fmt.Sprintf("c%d-", n)
		q := drawTenantsQueue(rt)
		q.write(s, prefix)
		if rapid.Bool().Draw(rt, "erase") {
			s.Erase(prefix + rapid.SampledFrom(tenantsPool).Draw(rt, "erased"))
		}
		if rapid.IntRange(0, 9).Draw(rt, "orphan") == 0 {
			// A counter of an ordinal no t row names, past every tenant.
			s.Merge(format.CounterKeyBytes(1<<30+uint32(n), format.FieldPending), format.EncodeCounterOperand(1))
		}
		if rapid.IntRange(0, 19).Draw(rt, "bad") == 0 {
			s.Raw(format.CFCounters, []byte{0, 0, 0, byte(n), 0xee}, nil)
		}
		s.Commit()
		// The count in one read or two halves, holding all, some or none of
		// the t rows for the join.
		count := tenantjoin.Sizes{SplitMin: rapid.SampledFrom([]uint32{1 << 16, 2, 5}).Draw(rt, "split"),
			HoldMax: rapid.SampledFrom([]int{0, 64, 256, 32 << 20}).Draw(rt, "hold")}
		for _, all := range []bool{false, true} {
			opt := TenantsOptions{Now: storetest.QueueNow, All: all}
			want, err := ListTenants(context.Background(), s.Live, opt)
			if err != nil {
				rt.Fatal(err)
			}
			own := itersOf(s, func() { streamAll(t, s, opt) })
			opt.sizes.count = count
			var got *TenantList
			walked := itersOf(s, func() { got = streamAll(t, s, opt) })
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("all=%v: streamed\n%+v\nbuilt\n%+v", all, got, want)
			}
			counted++
			if walked > own {
				countedMore++
			}
			// The seek per tenant, as a node with many due rows per tenant
			// takes it, finds the same.
			opt.sizes.dueBySeek = true
			sought := itersOf(s, func() { got = streamAll(t, s, opt) })
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("all=%v, by seeks: streamed\n%+v\nbuilt\n%+v", all, got, want)
			}
			if due := withDue(want); sought-walked < due-1 {
				rt.Fatalf("all=%v: %d tenants with a due row, %d iterators by seeks, %d by the walk: the seeks were not taken", all, due, sought, walked)
			}
		}
	})
	if countedMore == 0 {
		t.Errorf("in none of %d listings did the count's sizes open more iterators than the tool's own: they were not taken", counted)
	}
}

func TestStreamTenantsRefusesWhatItWouldHaveToSort(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	s.OpenLive()
	for _, opt := range []TenantsOptions{{Prefix: "a"}, {Prefix: "a", Sort: SortByPending, Top: 2}} {
		if TenantsStreamable(s.Live, opt) {
			t.Errorf("%+v: streamable", opt)
		}
		_, err := StreamTenants(context.Background(), s.Live, opt, nil, nil)
		if err != errNotStreamable {
			t.Errorf("%+v: %v", opt, err)
		}
	}
}

// The join of the t rows and the counters names what it could not join:
// counters of no tenant (before the first, between two, after the last) and
// keys that do not decode; every tenant keeps its own counters.
func TestTenantJoinNotesOrphansAndBadKeys(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	s.OpenLive()
	s.Inflight("a", s.NextSeq(), 1, 7)
	s.Erase("gone")
	s.Inflight("b", s.NextSeq(), 1, 5)
	s.Commit()
	a, b := s.Ord("a"), s.Ord("b")
	for _, ord := range []uint32{b + 1, b + 7, 1 << 30} {
		s.Merge(format.CounterKeyBytes(ord, format.FieldDead), format.EncodeCounterOperand(1))
	}
	s.Raw(format.CFCounters, []byte{0, 0, 0, byte(a), 0xee}, nil)
	s.Commit()
	for _, stream := range []bool{false, true} {
		var l *TenantList
		if stream {
			l = streamAll(t, s, TenantsOptions{Now: storetest.QueueNow, All: true})
		} else {
			var err error
			if l, err = ListTenants(context.Background(), s.Live, TenantsOptions{Now: storetest.QueueNow, All: true}); err != nil {
				t.Fatal(err)
			}
		}
		got := fmt.Sprint(l.Notes)
		want := fmt.Sprint([]ViewNote{
			{Warning: true, Text: "1 counters key did not decode and was skipped (run counters verify)"},
			{Warning: true, Text: "3 counters belong to no tenant-by-ordinal row (run counters verify)"},
		})
		if got != want {
			t.Errorf("stream=%v: notes %s, want %s", stream, got, want)
		}
		var rows []string
		for _, r := range l.Tenants {
			rows = append(rows, fmt.Sprintf("%s/%v:%d,%d", r.Tenant, r.Erased, r.Inflight, r.Bytes))
		}
		if got, want := fmt.Sprint(rows), "[a/false:1,7 /true:0,0 b/false:1,5]"; got != want {
			t.Errorf("stream=%v: rows %s, want %s", stream, got, want)
		}
		if l.Aggregate == nil || l.Aggregate.Inflight != 2 || l.Aggregate.Bytes != 12 {
			t.Errorf("stream=%v: aggregate %+v", stream, l.Aggregate)
		}
	}
}

// A sorted or cut listing, read once into a tenantStash and handed on from it, is the
// listing built from whole rows (listTenants3, tenantSelect), row for row, for every
// order and limit: ties in ordinal order, tenants with nothing due last by age, erased
// tenants (empty ids) first by name, ids that are prefixes of others or agree on more
// than the radix sort's seven bytes a step, counters that could not be read,
// counters below zero.
func TestSortedTenantsAreTheBuiltListing(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	s.OpenLive()
	n := 0
	ids := rapid.SampledFrom([]string{"a", "ab", "ab\x00", "abcdefg", "abcdefgh", "abcdefgh\x01", "abcdefghijklmnop", "abcdefghijklmno", "é", "b"})
	rapid.Check(t, func(rt *rapid.T) {
		n++
		prefix := fmt.Sprintf("c%d-", n)
		q := drawTenantsQueue(rt)
		q.write(s, prefix)
		if rapid.Bool().Draw(rt, "long") {
			// Tenants whose ids agree far beyond the case's prefix.
			id := "zz-" + ids.Draw(rt, "id") + prefix
			s.Inflight(id, s.NextSeq(), 1, uint32(rapid.IntRange(1, 9).Draw(rt, "size")))
			s.Inflight(ids.Draw(rt, "id2"), s.NextSeq(), 1, 3)
		}
		if rapid.Bool().Draw(rt, "erase") {
			s.Erase(prefix + rapid.SampledFrom(tenantsPool).Draw(rt, "erased"))
		}
		if rapid.IntRange(0, 2).Draw(rt, "negative") == 0 {
			// A counter below zero (a fault counters verify reports): a numeric
			// sort orders it as the signed number it is, after every tenant at 0.
			tenant := prefix + rapid.SampledFrom(tenantsPool).Draw(rt, "negative tenant")
			f := rapid.SampledFrom(format.Fields).Draw(rt, "negative field")
			s.Merge(format.CounterKeyBytes(s.Ord(tenant), f), format.EncodeCounterOperand(rapid.Int64Range(-1<<62, -1).Draw(rt, "below")))
		}
		if rapid.IntRange(0, 9).Draw(rt, "bad") == 0 {
			// A counter that is not an integer: that tenant's row is kept whole.
			s.Raw(format.CFCounters, format.CounterKeyBytes(s.Ord(prefix+tenantsPool[0]), format.FieldDead), []byte("x"))
		}
		s.Commit()
		opt := TenantsOptions{Now: storetest.QueueNow, All: rapid.Bool().Draw(rt, "all"),
			Sort: rapid.SampledFrom(TenantSorts).Draw(rt, "sort"),
			Top:  rapid.SampledFrom([]int{0, 0, 1, 2, 5, tenantsTopAfter + 1}).Draw(rt, "top")}
		// Each way must be the one taken, or the stash is held to itself.
		var ways []bool
		opt.heardBuilt = func(built bool) { ways = append(ways, built) }
		built := opt
		built.sizes.built = true
		want, err := ListTenants(context.Background(), s.Live, built)
		if err != nil {
			rt.Fatal(err)
		}
		got, err := ListTenants(context.Background(), s.Live, opt)
		if err != nil {
			rt.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			rt.Fatalf("%+v: from the stash\n%+v\nbuilt\n%+v", opt, got, want)
		}
		if fmt.Sprint(ways) != "[true false]" {
			rt.Fatalf("%+v: built from whole rows %v, want [true false] (the built listing, then the stash)", opt, ways)
		}
	})
}
