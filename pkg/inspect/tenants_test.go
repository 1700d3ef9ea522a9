package inspect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// tenantsFixture writes the same queue into a store of either format: acme
// with work of every kind, beta with only dead rows, default with one due
// row, and (format 3) an erased tenant.
func tenantsFixture(t *testing.T, storeFormat uint32) *rocks.Store {
	s := storetest.NewQueue(t, storeFormat)
	s.Due("acme", storetest.QueueMS(-90*time.Second), 10, 1, 100, format.KindFirstAttempt)
	s.Due("acme", storetest.QueueMS(-30*time.Second), 11, 1, 200, format.KindFirstAttempt)
	s.Due("acme", storetest.QueueMS(time.Hour), 12, 2, 50, format.KindRetry)
	s.Inflight("acme", 13, 1, 7)
	s.Dead("acme", storetest.QueueMS(-time.Hour), 14, 1, 1000, "boom")
	s.Archive("acme", 10, 100)
	s.Dead("beta", storetest.QueueMS(-2*time.Hour), 20, 1, 30, "timeout")
	s.Dead("beta", storetest.QueueMS(-3*time.Hour), 21, 1, 40, "")
	s.Due(format.DefaultTenant, storetest.QueueMS(-5*time.Second), 30, 1, 9, format.KindFirstAttempt)
	if storeFormat == format.Format3 {
		s.Erase("gone")
		// A stale marker older than acme's first due row: the age must come
		// from the row, not the marker.
		s.Marker("acme", storetest.QueueMS(-10*time.Minute)/1000)
	}
	return s.Open()
}

func tenantNames(rows []TenantRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Tenant)
	}
	return out
}

func TestListTenantsCounters(t *testing.T) {
	for _, f := range []uint32{format.Format3, format.Format2} {
		t.Run(fmt.Sprintf("format%d", f), func(t *testing.T) {
			st := tenantsFixture(t, f)
			l, err := ListTenants(context.Background(), st, TenantsOptions{Sort: SortByName, Now: storetest.QueueNow})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]TenantCounters{
				"acme":    {Pending: 2, Scheduled: 1, Inflight: 1, Dead: 1, Bytes: 100 + 200 + 50 + 7 + 1000, ArchivePending: 1},
				"beta":    {Dead: 2, Bytes: 70},
				"default": {Pending: 1, Bytes: 9},
			}
			if got := tenantNames(l.Tenants); !slices.Equal(got, []string{"acme", "beta", "default"}) {
				t.Fatalf("tenants %v", got)
			}
			for _, r := range l.Tenants {
				if r.TenantCounters != want[r.Tenant] {
					t.Errorf("%s: counters %+v, want %+v", r.Tenant, r.TenantCounters, want[r.Tenant])
				}
				if (r.Ord != nil) != (f == format.Format3) {
					t.Errorf("%s: ord %v on format %d", r.Tenant, r.Ord, f)
				}
				if len(r.Errors) > 0 {
					t.Errorf("%s: errors %v", r.Tenant, r.Errors)
				}
			}
			ages := map[string]*int64{}
			for _, r := range l.Tenants {
				ages[r.Tenant] = r.OldestDueAgeMS
			}
			if a := ages["acme"]; a == nil || *a != 90_000 {
				t.Errorf("acme oldest due age %v, want 90000", a)
			}
			if a := ages["default"]; a == nil || *a != 5_000 {
				t.Errorf("default oldest due age %v, want 5000", a)
			}
			if a := ages["beta"]; a != nil {
				t.Errorf("beta has no due row, got age %d", *a)
			}
			if f == format.Format3 {
				agg := TenantCounters{Pending: 3, Scheduled: 1, Inflight: 1, Dead: 3, Bytes: 1357 + 70 + 9, ArchivePending: 1}
				if l.Aggregate == nil || *l.Aggregate != agg {
					t.Errorf("aggregate %+v, want %+v", l.Aggregate, agg)
				}
				if l.Backlog != nil {
					t.Errorf("format 3 must not fold the backlog")
				}
			} else {
				if l.Backlog == nil || l.Backlog.RowsRead != 9 {
					t.Errorf("format 2 backlog pass %+v, want 9 rows read", l.Backlog)
				}
				if len(l.Notes) == 0 || l.Notes[0].Warning {
					t.Errorf("format 2 must say what the listing cost: %+v", l.Notes)
				}
			}
		})
	}
}

func TestListTenantsSelect(t *testing.T) {
	st := tenantsFixture(t, format.Format3)
	ctx := context.Background()
	cases := []struct {
		name string
		opt  TenantsOptions
		want []string
	}{
		{"ord order", TenantsOptions{}, []string{"acme", "beta", "default"}},
		{"tombstones with all", TenantsOptions{All: true}, []string{"acme", "beta", "default", ""}},
		{"dead desc", TenantsOptions{Sort: SortByDead}, []string{"beta", "acme", "default"}},
		{"bytes desc top 2", TenantsOptions{Sort: SortByBytes, Top: 2}, []string{"acme", "beta"}},
		{"oldest first", TenantsOptions{Sort: SortByOldestDue}, []string{"acme", "default", "beta"}},
		{"prefix", TenantsOptions{Prefix: "de"}, []string{"default"}},
		{"prefix none", TenantsOptions{Prefix: "zz"}, nil},
		{"prefix never matches a tombstone", TenantsOptions{Prefix: "g", All: true}, nil},
		{"name", TenantsOptions{Sort: SortByName, All: true}, []string{"", "acme", "beta", "default"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opt.Now = storetest.QueueNow
			l, err := ListTenants(ctx, st, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := tenantNames(l.Tenants); !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	// With --prefix the counters come from point reads; they must agree
	// with the pass over the counters family.
	full, err := ListTenants(ctx, st, TenantsOptions{Now: storetest.QueueNow})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range full.Tenants {
		l, err := ListTenants(ctx, st, TenantsOptions{Prefix: r.Tenant, Now: storetest.QueueNow})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Tenants) != 1 || l.Tenants[0].TenantCounters != r.TenantCounters || *l.Tenants[0].Ord != *r.Ord {
			t.Errorf("prefix %q: %+v, want %+v", r.Tenant, l.Tenants, r)
		}
		if *l.Aggregate != *full.Aggregate {
			t.Errorf("prefix %q: aggregate %+v, want %+v", r.Tenant, *l.Aggregate, *full.Aggregate)
		}
	}
}

func TestListTenantsErasedHasNoCounters(t *testing.T) {
	st := tenantsFixture(t, format.Format3)
	l, err := ListTenants(context.Background(), st, TenantsOptions{All: true, Now: storetest.QueueNow})
	if err != nil {
		t.Fatal(err)
	}
	last := l.Tenants[len(l.Tenants)-1]
	if !last.Erased || last.Tenant != "" || *last.Ord != 4 || last.TenantCounters != (TenantCounters{}) || last.OldestDueAt != nil {
		t.Errorf("tombstone row %+v", last)
	}
}

func TestListTenantsBadCounterIsARowError(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	s.Due("acme", storetest.QueueMS(-time.Second), 1, 1, 10, format.KindFirstAttempt)
	s.Due("beta", storetest.QueueMS(-time.Second), 2, 1, 10, format.KindFirstAttempt)
	s.Commit()
	// An operand the merge operator refuses: the whole merge of that key
	// fails, and only that counter may show it.
	s.Merge(format.CounterKeyBytes(s.Ord("acme"), format.FieldDead), []byte{131, 100, 0, 3, 'b', 'a', 'd'})
	st := s.Open()
	for _, prefix := range []string{"", "acme"} {
		l, err := ListTenants(context.Background(), st, TenantsOptions{Now: storetest.QueueNow, Prefix: prefix})
		if err != nil {
			t.Fatalf("prefix %q: %v", prefix, err)
		}
		acme := l.Tenants[0]
		if acme.Tenant != "acme" || len(acme.Errors) != 1 || acme.Pending != 1 {
			t.Errorf("prefix %q: acme %+v, want pending 1 and one error", prefix, acme)
		}
		if prefix == "" && (len(l.Tenants) != 2 || len(l.Tenants[1].Errors) != 0 || l.Tenants[1].Pending != 1) {
			t.Errorf("beta must be unaffected: %+v", l.Tenants)
		}
	}
}

func TestListTenantsRefusesCutShortAndMidMigration(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	s.Due("acme", storetest.QueueMS(-time.Second), 1, 1, 10, format.KindFirstAttempt)
	s.B.Delete(format.CFCounters, format.FamCounters.Hi)
	st := s.Open()
	_, err := ListTenants(context.Background(), st, TenantsOptions{Now: storetest.QueueNow})
	var cs *rocks.CutShortError
	if !errors.As(err, &cs) || cs.Family != format.FamilyNameCounters || !errors.Is(err, rocks.ErrCorrupt) {
		t.Errorf("missing counters hi sentinel: got %v", err)
	}

	s = storetest.NewQueue(t, format.Format2)
	s.Due("acme", storetest.QueueMS(-time.Second), 1, 1, 10, 0)
	s.Raw(format.CFDefault, []byte(format.KeyMigrating3), []byte{format.MigPhaseDue})
	st = s.Open()
	if _, err := ListTenants(context.Background(), st, TenantsOptions{Now: storetest.QueueNow}); !errors.Is(err, rocks.ErrMidMigration) {
		t.Errorf("mid-migration: got %v", err)
	}
}

// A family the listing joins that lacks either sentinel is cut short, in
// every way the listing reads it (streamed in ordinal order, built and
// sorted): its first row is never taken for the lo sentinel and dropped,
// nor its last read as the end.
func TestListTenantsRefusesEverySentinelMissing(t *testing.T) {
	fams := []format.Family{format.FamTenantByOrd, format.FamCounters, format.FamDue}
	for _, f := range fams {
		for _, lo := range []bool{true, false} {
			for _, sort := range []TenantSort{SortByOrd, SortByPending, SortByOldestDue} {
				sentinel, missing := f.Hi, format.SentinelHi
				if lo {
					sentinel, missing = f.Lo, format.SentinelLo
				}
				s := storetest.NewQueue(t, format.Format3)
				s.Due("acme", storetest.QueueMS(-time.Second), 1, 1, 10, format.KindFirstAttempt)
				s.Due("bolt", storetest.QueueMS(-time.Minute), 2, 1, 20, format.KindFirstAttempt)
				s.B.Delete(f.CF, sentinel)
				st := s.Open()
				_, err := ListTenants(context.Background(), st, TenantsOptions{Now: storetest.QueueNow, Sort: sort})
				var cs *rocks.CutShortError
				if !errors.As(err, &cs) || cs.Family != f.Name || cs.Missing != missing || !errors.Is(err, rocks.ErrCorrupt) {
					t.Errorf("%s without its %s sentinel, --sort %s: got %v", f.Name, missing, sort, err)
				}
			}
		}
	}
}

func TestListTenantsFormat2Defaulted(t *testing.T) {
	s := storetest.NewQueue(t, format.Format2)
	s.Due("acme", storetest.QueueMS(-time.Second), 1, 1, 10, 0)
	// A due row whose hook is gone files under default and is reported.
	s.Raw(format.CFIndex, format.DueV2Key{At: storetest.QueueMS(-time.Minute), Seq: 99, Sink: 1}.Encode(), format.EncodeSize(5))
	st := s.Open()
	l, err := ListTenants(context.Background(), st, TenantsOptions{Sort: SortByName, Now: storetest.QueueNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := tenantNames(l.Tenants); !slices.Equal(got, []string{"acme", "default"}) {
		t.Fatalf("tenants %v", got)
	}
	if l.Tenants[1].Pending != 1 || l.Tenants[1].Bytes != 5 {
		t.Errorf("default row %+v", l.Tenants[1])
	}
	if l.Backlog.Defaulted[format.ReasonMissingHook.String()] != 1 {
		t.Errorf("defaulted %v, want one missing hook", l.Backlog.Defaulted)
	}
	warned := false
	for _, n := range l.Notes {
		warned = warned || n.Warning
	}
	if !warned {
		t.Errorf("a hook filed under default must be a warning: %+v", l.Notes)
	}
}

func TestParseTenantSort(t *testing.T) {
	for _, s := range TenantSorts {
		if got, err := ParseTenantSort(string(s)); err != nil || got != s {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	if _, err := ParseTenantSort("age"); err == nil {
		t.Error("unknown sort accepted")
	}
}
