package inspect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenant"
)

// scopeOf is id as tenant.Resolve resolves it in st, for a view scoped to it; "" is no
// tenant (every tenant), and a tenant st does not have is its id alone, without an
// ordinal (on format 3 a range of no rows).
func scopeOf(t interface {
	Helper()
	Fatal(...any)
}, st *rocks.Store, id string) format.Tenant {
	t.Helper()
	if id == "" {
		return format.Tenant{}
	}
	a, err := tenant.ParseArg(id)
	if err != nil {
		t.Fatal(err)
	}
	ten, err := tenant.Resolve(context.Background(), st, a)
	if errors.Is(err, format.ErrNoSuchTenant) {
		return format.Tenant{ID: id}
	}
	if err != nil {
		t.Fatal(err)
	}
	return ten
}

// dlqFixture dead-letters rows of three tenants, interleaved in time, with
// two sinks; row i of the returned slice is newest first.
func dlqFixture(t *testing.T, storeFormat uint32) (*rocks.Store, []format.DeadKey, map[format.DeadKey]string) {
	s := storetest.NewQueue(t, storeFormat)
	tenants := []string{"acme", "beta", format.DefaultTenant}
	var keys []format.DeadKey
	owner := map[format.DeadKey]string{}
	for i := 0; i < 30; i++ {
		tenant := tenants[i%3]
		k := format.DeadKey{At: storetest.QueueMS(time.Duration(-i) * time.Minute), Seq: uint64(100 + i), Sink: uint16(1 + i%2)}
		s.Dead(tenant, k.At, k.Seq, k.Sink, uint64(10*i), fmt.Sprintf("err %d", i))
		keys = append(keys, k)
		owner[k] = tenant
	}
	// Two rows in one millisecond: the order within it is (seq, sink).
	k := format.DeadKey{At: keys[0].At, Seq: 99, Sink: 3}
	s.Dead("acme", k.At, k.Seq, k.Sink, 1, "same ms")
	owner[k] = "acme"
	keys = append([]format.DeadKey{keys[0], k}, keys[1:]...)
	return s.Open(), keys, owner
}

func dlqKeys(rows []DLQRow) []format.DeadKey {
	var out []format.DeadKey
	for _, r := range rows {
		out = append(out, format.DeadKey{At: r.At, Seq: r.Seq, Sink: r.Sink})
	}
	return out
}

// dlqAll pages through a listing with the cursor and returns every row.
func dlqAll(t *testing.T, st *rocks.Store, opt DLQOptions) []DLQRow {
	t.Helper()
	var all []DLQRow
	for pages := 0; ; pages++ {
		p, err := ScanDLQ(context.Background(), st, opt)
		if err != nil {
			t.Fatal(err)
		}
		if opt.Limit > 0 && len(p.Rows) > opt.Limit {
			t.Fatalf("page of %d rows, limit %d", len(p.Rows), opt.Limit)
		}
		all = append(all, p.Rows...)
		if p.NextCursor == "" {
			return all
		}
		if len(p.Rows) != opt.Limit {
			t.Fatalf("a page with a cursor must be full: %d rows, limit %d", len(p.Rows), opt.Limit)
		}
		c, err := ParseDLQCursor(p.NextCursor)
		if err != nil {
			t.Fatal(err)
		}
		opt.After = &c
		if pages > 1000 {
			t.Fatal("cursor does not advance")
		}
	}
}

func TestScanDLQOrderAndPaging(t *testing.T) {
	for _, f := range []uint32{format.Format3, format.Format2} {
		st, keys, owner := dlqFixture(t, f)
		for _, tenant := range []string{"", "acme", "beta", format.DefaultTenant} {
			var want []format.DeadKey
			for _, k := range keys {
				if tenant == "" || owner[k] == tenant {
					want = append(want, k)
				}
			}
			for _, limit := range []int{0, 1, 4, 11, 100} {
				t.Run(fmt.Sprintf("format%d/tenant=%s/limit=%d", f, tenant, limit), func(t *testing.T) {
					rows := dlqAll(t, st, DLQOptions{Tenant: scopeOf(t, st, tenant), Limit: limit})
					if got := dlqKeys(rows); !slices.Equal(got, want) {
						t.Fatalf("got %v\nwant %v", got, want)
					}
					for _, r := range rows {
						k := format.DeadKey{At: r.At, Seq: r.Seq, Sink: r.Sink}
						if r.Tenant != owner[k] || r.SourceID != "src-"+owner[k] || r.HookID != storetest.HookID(r.Seq) {
							t.Errorf("row %+v: want tenant %s", r, owner[k])
						}
						if r.LastError == nil || !strings.HasPrefix(*r.LastError, "err ") && *r.LastError != "same ms" {
							t.Errorf("row %+v: last error not joined", r)
						}
						if len(r.Problems) > 0 {
							t.Errorf("row %+v: problems", r)
						}
						if (r.Ord != nil) != (f == format.Format3) {
							t.Errorf("row %+v: ord on format %d", r, f)
						}
					}
				})
			}
		}
	}
}

func TestScanDLQFilters(t *testing.T) {
	st, keys, owner := dlqFixture(t, format.Format3)
	sink2 := uint16(2)
	cases := []struct {
		name string
		opt  DLQOptions
		keep func(format.DeadKey) bool
	}{
		{"since", DLQOptions{Since: storetest.QueueNow.Add(-10 * time.Minute)},
			func(k format.DeadKey) bool { return k.At >= storetest.QueueMS(-10*time.Minute) }},
		{"until", DLQOptions{Until: storetest.QueueNow.Add(-10 * time.Minute)},
			func(k format.DeadKey) bool { return k.At < storetest.QueueMS(-10*time.Minute) }},
		{"window scoped", DLQOptions{Tenant: scopeOf(t, st, "beta"), Since: storetest.QueueNow.Add(-20 * time.Minute), Until: storetest.QueueNow.Add(-5 * time.Minute)},
			func(k format.DeadKey) bool {
				return owner[k] == "beta" && k.At >= storetest.QueueMS(-20*time.Minute) && k.At < storetest.QueueMS(-5*time.Minute)
			}},
		{"sink", DLQOptions{Sink: &sink2}, func(k format.DeadKey) bool { return k.Sink == 2 }},
		{"sink scoped", DLQOptions{Tenant: scopeOf(t, st, "acme"), Sink: &sink2}, func(k format.DeadKey) bool { return k.Sink == 2 && owner[k] == "acme" }},
	}
	for _, c := range cases {
		for _, limit := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s/limit=%d", c.name, limit), func(t *testing.T) {
				c.opt.Limit = limit
				var want []format.DeadKey
				for _, k := range keys {
					if c.keep(k) {
						want = append(want, k)
					}
				}
				if got := dlqKeys(dlqAll(t, st, c.opt)); !slices.Equal(got, want) {
					t.Errorf("got %v\nwant %v", got, want)
				}
			})
		}
	}
}

// A scoped read is one range of X joined to x: it reads no hook, and the rows
// it reads are the page, not the queue.
func TestScanDLQScopedReadsNoHook(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	for i := 0; i < 200; i++ {
		s.Dead("noise", storetest.QueueMS(-time.Duration(i)*time.Second), uint64(1000+i), 1, 1, "")
	}
	s.Dead("acme", storetest.QueueMS(-time.Hour), 5, 1, 42, "x")
	s.Dead("acme", storetest.QueueMS(-2*time.Hour), 6, 1, 43, "y")
	for seq := range s.Hooks {
		s.B.Delete(format.CFHooks, format.HookKey{Seq: seq}.Encode())
	}
	st := s.Open()
	p, err := ScanDLQ(context.Background(), st, DLQOptions{Tenant: scopeOf(t, st, "acme"), Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 1 || p.Rows[0].Seq != 5 || p.Rows[0].SourceID != "src-acme" || p.Rows[0].Size != 42 || len(p.Rows[0].Problems) != 0 {
		t.Errorf("page %+v", p.Rows)
	}
	if p.Scanned != 2 {
		t.Errorf("scanned %d keys for a page of 1 (want the row and the one that proves a next page)", p.Scanned)
	}
}

func TestScanDLQProblems(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	s.Dead("acme", storetest.QueueMS(-time.Minute), 1, 1, 10, "a")
	s.Dead("acme", storetest.QueueMS(-2*time.Minute), 2, 1, 10, "b")
	s.Dead("acme", storetest.QueueMS(-3*time.Minute), 3, 1, 10, "c")
	s.B.Delete(format.CFDeliveries, format.DeliveryKey{Seq: 1, Sink: 1}.Encode())
	s.B.Delete(format.CFIndex, format.DeadKey{At: storetest.QueueMS(-2 * time.Minute), Seq: 2, Sink: 1}.Encode())
	// A format 2 value left in a format 3 store.
	s.Raw(format.CFIndex, format.DeadKey{At: storetest.QueueMS(-3 * time.Minute), Seq: 3, Sink: 1}.Encode(),
		format.DeadValue{SourceID: []byte("s"), ID: []byte("i")}.Encode())
	st := s.Open()
	p, err := ScanDLQ(context.Background(), st, DLQOptions{Tenant: scopeOf(t, st, "acme")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"no delivery row", "no dead row (x)", "has no ordinal"}
	if len(p.Rows) != 3 {
		t.Fatalf("rows %+v", p.Rows)
	}
	for i, r := range p.Rows {
		if len(r.Problems) != 1 || !strings.Contains(r.Problems[0], want[i]) {
			t.Errorf("row %d problems %q, want %q", i, r.Problems, want[i])
		}
	}
	if len(p.Notes) != 1 || !p.Notes[0].Warning {
		t.Errorf("notes %+v", p.Notes)
	}
	// Unscoped, the value without an ordinal has no tenant and says so.
	p, err = ScanDLQ(context.Background(), st, DLQOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 2 || p.Rows[1].Tenant != "" || len(p.Rows[1].Problems) != 1 {
		t.Errorf("unscoped rows %+v", p.Rows)
	}
}

func TestScanDLQRefusals(t *testing.T) {
	st, _, _ := dlqFixture(t, format.Format3)
	ctx := context.Background()
	scoped := dlqCursorFor(format.DeadKey{At: 1, Seq: 1, Sink: 1}, "acme")
	unscoped := dlqCursorFor(format.DeadKey{At: 1, Seq: 1, Sink: 1}, "")
	for _, c := range []struct {
		name string
		opt  DLQOptions
	}{
		{"scoped cursor unscoped", DLQOptions{After: &scoped}},
		{"unscoped cursor scoped", DLQOptions{Tenant: scopeOf(t, st, "acme"), After: &unscoped}},
		{"cursor of another tenant", DLQOptions{Tenant: scopeOf(t, st, "beta"), After: &scoped}},
	} {
		if _, err := ScanDLQ(ctx, st, c.opt); !errors.Is(err, ErrBadCursor) {
			t.Errorf("%s: got %v, want ErrBadCursor", c.name, err)
		}
	}

	s := storetest.NewQueue(t, format.Format2)
	s.Dead("acme", storetest.QueueMS(-time.Minute), 1, 1, 10, "a")
	s.Raw(format.CFDefault, []byte(format.KeyMigrating3), []byte{format.MigPhaseDead})
	if _, err := ScanDLQ(ctx, s.Open(), DLQOptions{}); !errors.Is(err, rocks.ErrMidMigration) {
		t.Errorf("mid-migration: got %v", err)
	}
}

func TestDLQCursorRoundTrip(t *testing.T) {
	for _, c := range []DLQCursor{
		{},
		{At: format.MaxAtSeq, Seq: format.MaxAtSeq, Sink: 0xFFFF},
		dlqCursorFor(format.DeadKey{At: 1764496800000, Seq: 42, Sink: 3}, "acme"),
	} {
		got, err := ParseDLQCursor(c.String())
		if err != nil || got != c {
			t.Errorf("%+v: got %+v, %v", c, got, err)
		}
	}
}

func TestParseDLQCursorRefuses(t *testing.T) {
	good := dlqCursorFor(format.DeadKey{At: 5, Seq: 6, Sink: 7}, "").String()
	flipped := []byte(good)
	flipped[10] ^= 1
	for _, s := range []string{"", "!!!", good[:len(good)-2], good + "AA", string(flipped),
		DLQCursor{At: 1 << 63}.String()} {
		if _, err := ParseDLQCursor(s); !errors.Is(err, ErrBadCursor) {
			t.Errorf("%q: got %v, want ErrBadCursor", s, err)
		}
	}
}

func FuzzParseDLQCursor(f *testing.F) {
	f.Add(dlqCursorFor(format.DeadKey{At: 5, Seq: 6, Sink: 7}, "acme").String())
	f.Add("")
	f.Add("AQAAAAAA")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseDLQCursor(s)
		if err != nil {
			return
		}
		// Whatever parses is a valid position and prints back to itself.
		if err := c.deadKey().Validate(); err != nil {
			t.Fatalf("%q parsed to an invalid key: %v", s, err)
		}
		if c.String() != s {
			t.Fatalf("%q parsed, prints as %q", s, c.String())
		}
	})
}
