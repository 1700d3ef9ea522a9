package cmd

import (
	"bytes"
	"context"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The fast JSON path of tenants ls must write what ui.WriteJSON writes, byte for
// byte: the schema is the one docs/commands.md derives from the type.
func TestWriteTenantsJSONMatchesWriteJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := rapid.OneOf(rapid.String(), rapid.StringMatching(`[a-z<>&"\\\x00-\x1f\x{2028}\x{2029}é東🚀-]{0,12}`),
			rapid.Custom(func(t *rapid.T) string { return string(rapid.SliceOf(rapid.Byte()).Draw(t, "raw")) }))
		ms := rapid.Int64Range(0, 1<<45)
		l := &inspect.TenantList{
			Format:  rapid.SampledFrom([]uint32{2, 3}).Draw(t, "format"),
			Now:     time.UnixMilli(ms.Draw(t, "now")).UTC(),
			Sort:    rapid.SampledFrom(inspect.TenantSorts).Draw(t, "sort"),
			Matched: rapid.IntRange(0, 1000).Draw(t, "matched"),
			Notes:   []inspect.ViewNote{},
		}
		n := rapid.IntRange(0, 5).Draw(t, "rows")
		l.Tenants = []inspect.TenantRow{}
		for i := 0; i < n; i++ {
			r := inspect.TenantRow{Tenant: str.Draw(t, "tenant"), Erased: rapid.Bool().Draw(t, "erased")}
			if rapid.Bool().Draw(t, "hasOrd") {
				o := rapid.Uint32().Draw(t, "ord")
				r.Ord = &o
			}
			c := rapid.Int64()
			r.TenantCounters = inspect.TenantCounters{Pending: c.Draw(t, "p"), Scheduled: c.Draw(t, "s"), Inflight: c.Draw(t, "i"),
				Dead: c.Draw(t, "d"), Bytes: c.Draw(t, "b"), ArchivePending: c.Draw(t, "a")}
			if rapid.Bool().Draw(t, "hasDue") {
				at := time.UnixMilli(ms.Draw(t, "at")).UTC()
				age := c.Draw(t, "age")
				r.OldestDueAt, r.OldestDueAgeMS = &at, &age
			}
			r.Errors = rapid.SliceOfN(str, 0, 2).Draw(t, "errors")
			if len(r.Errors) == 0 {
				r.Errors = nil
			}
			l.Tenants = append(l.Tenants, r)
		}
		if rapid.Bool().Draw(t, "aggregate") {
			l.Aggregate = &inspect.TenantCounters{Pending: 1, Bytes: -5}
		}
		if rapid.Bool().Draw(t, "backlog") {
			l.Backlog = &inspect.Backlog2{RowsRead: 3, Defaulted: map[string]int64{"missing_hook": 1}}
		}
		if rapid.Bool().Draw(t, "notes") {
			l.Notes = []inspect.ViewNote{{Warning: true, Text: str.Draw(t, "note")}}
		}
		var want, got bytes.Buffer
		if err := ui.WriteJSON(&want, l); err != nil {
			t.Fatal(err)
		}
		if err := writeTenantsJSON(&got, l); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("fast JSON differs:\n got %q\nwant %q", got.String(), want.String())
		}
	})
}

// A listing of every tenant of a format 3 store, in any order and to any limit, is
// streamed (as it is read, or from the sorted stash); it must print what the built
// listing prints, byte for byte, on stdout and stderr, as JSON and as TSV.
func TestTenantsLsStreamedIsBuilt(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, output := range []string{"json", "tsv"} {
		for _, all := range []bool{false, true} {
			for _, sort := range inspect.TenantSorts {
				for _, limit := range []int{0, 2} {
					sio, _, streamed, sErr := iostreams.Test()
					bio, _, built, bErr := iostreams.Test()
					env := &Env{IO: sio, Output: output, Now: func() time.Time { return now }}
					if err := runTenantsLs(context.Background(), env, &tenantsLsOptions{sort: string(sort), limit: limit, all: all, store: "../testdata/store-v3.tar.zst"}); err != nil {
						t.Fatal(err)
					}
					st, closeStore, err := env.openStore("../testdata/store-v3.tar.zst", rocks.Options{Mode: rocks.ReadOnly})
					if err != nil {
						t.Fatal(err)
					}
					o := inspect.TenantsOptions{All: all, Sort: sort, Top: limit, Now: now}
					if !inspect.TenantsStreamable(st, o) {
						t.Fatal("a listing of every tenant of a format 3 store is not streamed")
					}
					l, err := inspect.ListTenants(context.Background(), st, o)
					closeStore()
					if err != nil {
						t.Fatal(err)
					}
					benv := &Env{IO: bio, Output: output, Now: func() time.Time { return now }}
					printViewNotes(benv, l.Notes)
					if output == "json" {
						err = writeTenantsJSON(built, l)
					} else {
						err = benv.renderRows(tenantRows(l))
					}
					if err != nil {
						t.Fatal(err)
					}
					if streamed.String() != built.String() || sErr.String() != bErr.String() || (limit == 0 && len(l.Tenants) < 4) {
						t.Errorf("%s, all=%v, sort %s, limit %d: streamed\n%s\n%s\nbuilt\n%s\n%s", output, all, sort, limit,
							streamed.String(), sErr.String(), built.String(), bErr.String())
					}
				}
			}
		}
	}
}
