package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// tenantsLsChunked is a fixture whose tenant-by-ordinal, counters and due
// families each span several of the views' largest chunks (4,096 entries):
// a listing that reads them in chunks, held or not, meets every chunk edge
// of each family more than once.
func tenantsLsChunked(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	sum, err := fixture.Generate(context.Background(), dir, fixture.Options{Format: format.Format3, Seed: 20, Now: fixture.DefaultNow, Tenants: 9000, Hooks: 22000})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range [][2]string{{format.CFTenants, "tenant_by_ord"}, {format.CFCounters, "counters"}, {format.CFIndex, "due"}} {
		if n := sum.Count(f[0], f[1]); n < 2*4096 {
			t.Fatalf("the store's %s family has %d rows, not enough for several chunks", f, n)
		}
	}
	return dir
}

// tenantsLsRun runs tenants ls with args and returns its stdout and the
// number of iterators the command opened on the store.
func tenantsLsRun(t *testing.T, opts *tenantsLsOptions) (string, int64) {
	t.Helper()
	streams, _, out, errb := iostreams.Test()
	var iters int64 = -1
	env := &Env{IO: streams, Output: "json", Now: func() time.Time { return fixture.DefaultNow },
		closing: func(st *rocks.Store) { iters = st.DB.Iterators() }}
	if err := runTenantsLs(context.Background(), env, opts); err != nil {
		t.Fatalf("tenants ls %+v: %v\n%s", opts, err, errb.String())
	}
	if iters < 0 {
		t.Fatal("the store was never closed")
	}
	return out.String(), iters
}

// refTenant is a row of tenants ls -o json, as the slow reference computes it.
type refTenant struct {
	Ord            uint32  `json:"ord"`
	Tenant         string  `json:"tenant"`
	Erased         bool    `json:"erased"`
	Pending        int64   `json:"pending"`
	Scheduled      int64   `json:"scheduled"`
	Inflight       int64   `json:"inflight"`
	Dead           int64   `json:"dead"`
	Bytes          int64   `json:"bytes"`
	ArchivePending int64   `json:"archive_pending"`
	OldestDueAt    *string `json:"oldest_due_at"`
	OldestDueAgeMS *int64  `json:"oldest_due_age_ms"`
}

type refListing struct {
	Matched   int         `json:"matched"`
	Tenants   []refTenant `json:"tenants"`
	Aggregate refTenant   `json:"aggregate"`
}

func (r *refTenant) add(f format.Field, v int64) {
	*map[format.Field]*int64{format.FieldPending: &r.Pending, format.FieldScheduled: &r.Scheduled,
		format.FieldInflight: &r.Inflight, format.FieldDead: &r.Dead, format.FieldBytes: &r.Bytes,
		format.FieldArchivePending: &r.ArchivePending}[f] += v
}

// tenantsLsReference is what tenants ls must list, worked out from the
// store's logical content alone (storetest.Dump: every key, counters merged),
// with none of the views' code: a t row per tenant, its counters summed by
// field, the aggregate from ordinal 0 and its shards, and the oldest due row
// the smallest `at` of the tenant's due keys.
func tenantsLsReference(t *testing.T, c storetest.Contents, all bool, now time.Time) refListing {
	t.Helper()
	rows := map[uint32]*refTenant{}
	var l refListing
	for k, v := range c[format.CFTenants] {
		tk, err := format.DecodeTenantByOrdKey([]byte(k))
		if err != nil {
			continue // the n rows, the sentinels
		}
		rows[tk.Ord] = &refTenant{Ord: tk.Ord, Tenant: v, Erased: v == ""}
	}
	for k, v := range c[format.CFCounters] {
		ck, err := format.DecodeCounterKey([]byte(k))
		if err != nil {
			continue
		}
		n, err := format.DecodeCounterValue([]byte(v))
		if err != nil {
			t.Fatalf("counter %x: %v", k, err)
		}
		if ck.Ord == format.AggregateOrd {
			l.Aggregate.add(ck.Field, n)
		} else if r := rows[ck.Ord]; r != nil {
			r.add(ck.Field, n)
		}
	}
	oldest := map[uint32]uint64{}
	for k := range c[format.CFIndex] {
		dk, err := format.DecodeDueKey([]byte(k))
		if err != nil {
			continue // other families of the index, sentinels
		}
		if at, ok := oldest[dk.Ord]; !ok || dk.At < at {
			oldest[dk.Ord] = dk.At
		}
	}
	for ord, r := range rows {
		if at, ok := oldest[ord]; ok && !r.Erased {
			s := time.UnixMilli(int64(at)).UTC().Format(time.RFC3339Nano)
			age := now.UnixMilli() - int64(at)
			r.OldestDueAt, r.OldestDueAgeMS = &s, &age
		}
		if all || !r.Erased {
			l.Tenants = append(l.Tenants, *r)
		}
	}
	sort.Slice(l.Tenants, func(i, j int) bool { return l.Tenants[i].Ord < l.Tenants[j].Ord })
	l.Matched = len(l.Tenants)
	return l
}

// tenants ls -o json of every tenant is the streamed listing: each family read
// on its own goroutine with one held iterator, chunk by chunk, joined by
// ordinal. On a store spanning several chunks of every family it must list
// what the store's content says, tenant for tenant, and so must the built
// listing of another sort (the due family's held walk there); both must open
// as many iterators as they do on the six-tenant committed store, so a
// listing that scans again for every chunk (the chunked walk, which read each
// family about twice) fails here.
func TestTenantsLsChunkedMatchesReference(t *testing.T) {
	dir := tenantsLsChunked(t)
	c := storetest.Dump(t, dir)
	small := filepath.Join("..", "testdata", "store-v3.tar.zst")
	for _, o := range []tenantsLsOptions{{sort: "ord"}, {sort: "ord", all: true}, {sort: "pending", all: true}} {
		t.Run(fmt.Sprintf("sort=%s,all=%v", o.sort, o.all), func(t *testing.T) {
			want := tenantsLsReference(t, c, o.all, fixture.DefaultNow)
			o.store = dir
			out, iters := tenantsLsRun(t, &o)
			var got refListing
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v\n%.500s", err, out)
			}
			if o.sort == "pending" {
				for i := 1; i < len(got.Tenants); i++ {
					if got.Tenants[i].Pending > got.Tenants[i-1].Pending {
						t.Fatalf("sort pending: row %d has more pending than row %d", i, i-1)
					}
				}
				sort.SliceStable(got.Tenants, func(i, j int) bool { return got.Tenants[i].Ord < got.Tenants[j].Ord })
			}
			if got.Matched != want.Matched || len(got.Tenants) != len(want.Tenants) {
				t.Fatalf("matched %d, %d rows; the store has %d", got.Matched, len(got.Tenants), want.Matched)
			}
			for i := range want.Tenants {
				if !reflect.DeepEqual(got.Tenants[i], want.Tenants[i]) {
					t.Fatalf("row %d:\n got %s\nwant %s", i, jsonOf(got.Tenants[i]), jsonOf(want.Tenants[i]))
				}
			}
			if got.Aggregate != want.Aggregate {
				t.Errorf("aggregate:\n got %s\nwant %s", jsonOf(got.Aggregate), jsonOf(want.Aggregate))
			}
			so := o
			so.store = small
			_, smallIters := tenantsLsRun(t, &so)
			t.Logf("%d tenants (%d erased shown), %d iterators; six tenants: %d", want.Matched, erasedOf(want), iters, smallIters)
			if iters != smallIters {
				t.Errorf("%d iterators for %d tenants, %d for the committed store's six: a family is read with more than one", iters, want.Matched, smallIters)
			}
		})
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func erasedOf(l refListing) (n int) {
	for _, r := range l.Tenants {
		if r.Erased {
			n++
		}
	}
	return n
}
