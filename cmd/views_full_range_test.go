package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// editCopy extracts the committed format 3 store, hands edit its dead
// letters and a batch, and writes the batch to the store.
func editCopy(t *testing.T, edit func(st *rocks.Store, dead []inspect.DLQRow, b *rocks.Batch)) string {
	t.Helper()
	dir := storetest.Extract(t, "store-v3.tar.zst")
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	page, err := inspect.ScanDLQ(context.Background(), st, inspect.DLQOptions{})
	if err != nil || len(page.Rows) < 30 {
		t.Fatalf("the committed store's dead letters: %v", err)
	}
	b := rocks.NewBatch()
	edit(st, page.Rows, b)
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	return dir
}

// execOut runs args and returns the exit code, stdout and stderr.
func execOut(args ...string) (int, string, string) {
	io, _, out, errb := iostreams.Test()
	code := Execute(context.Background(), io, BuildInfo{Version: "test", Commit: "none"}, args)
	return code, out.String(), errb.String()
}

// A dead letter on a sink of 256 or more (up to 65535, the whole range of a
// sink) is read through the sorted join as by key, in dlq export and in a
// long dlq scan: the join orders delivery rows by seq and sink in one word,
// where a sink that ran into the seq's bits read "no delivery row" for
// healthy letters.
func TestDLQJoinReadsEverySink(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	store := editCopy(t, func(_ *rocks.Store, dead []inspect.DLQRow, b *rocks.Batch) {
		sinks := []uint16{255, 256, 257, 4096, 40000, 65535}
		for i, r := range dead {
			if i%2 != 0 || r.Ord == nil {
				continue
			}
			// The same hook dead on another sink too, healthy.
			sink := sinks[i/2%len(sinks)]
			k := format.DeadKey{At: r.AtMS + 1, Seq: r.Seq, Sink: sink}
			b.Put(format.CFIndex, k.Encode(), format.DeadValue{SourceID: []byte(r.SourceID), ID: []byte(r.HookID), Ord: *r.Ord, HasOrd: true}.Encode())
			b.Put(format.CFIndex, k.ByTenant(*r.Ord).Encode(), nil)
			b.Put(format.CFDeliveries, format.DeliveryKey{Seq: r.Seq, Sink: sink}.Encode(),
				format.EncodeDelivery(format.Delivery{Sink: sink, Status: format.StatusDead, Attempts: 3, Size: 10, LastErrorNil: true}))
		}
	})
	for _, args := range [][]string{
		{"dlq", "export", "-q"},
		{"dlq", "export", "-q", "--sink", "65535"},
		{"dlq", "scan", "--limit", "0", "-o", "json"},
	} {
		code, want, wantErr := execOut(append(append(append([]string{}, args...), "--join", "by-key"), store)...)
		if code != 0 || !strings.Contains(want, "65535") {
			t.Fatalf("%q by key: exit %d: %s", args, code, wantErr)
		}
		code, got, gotErr := execOut(append(append(append([]string{}, args...), "--join", "sorted"), store)...)
		if code != 0 || got != want || gotErr != wantErr {
			t.Errorf("%q --join sorted: exit %d, the same stdout %v, stderr\n%s\nwant\n%s", args, code, got == want, gotErr, wantErr)
		}
	}
}

// tenants ls --sort by a counter lists the tenants from the largest value to
// the smallest as signed numbers: a counter below zero (a fault counters
// verify reports) comes after every tenant at zero, in every order it can
// sort by, to every limit.
func TestTenantsLsSortsCountersBelowZeroLast(t *testing.T) {
	store := editCopy(t, func(st *rocks.Store, _ []inspect.DLQRow, b *rocks.Batch) {
		l, err := inspect.ListTenants(context.Background(), st, inspect.TenantsOptions{Now: time.Now()})
		if err != nil || len(l.Tenants) < 4 {
			t.Fatalf("the committed store's tenants: %v", err)
		}
		for i, f := range format.Fields {
			r := l.Tenants[(2*i+1)%len(l.Tenants)]
			b.Merge(format.CFCounters, format.CounterKeyBytes(*r.Ord, f), format.EncodeCounterOperand(-1000-r.Get(f)))
		}
	})
	for _, f := range format.Fields {
		for _, limit := range []string{"0", "3"} {
			field := format.FieldNames[f]
			code, out, errOut := execOut("tenants", "ls", "--sort", field, "--limit", limit, "-o", "json", store)
			if code != 0 {
				t.Fatalf("--sort %s: exit %d: %s", field, code, errOut)
			}
			var l struct {
				Tenants []map[string]any `json:"tenants"`
			}
			if err := json.Unmarshal([]byte(out), &l); err != nil {
				t.Fatal(err)
			}
			var vals []float64
			for _, r := range l.Tenants {
				v, _ := r[field].(float64)
				vals = append(vals, v)
			}
			for i := 1; i < len(vals); i++ {
				if vals[i] > vals[i-1] {
					t.Errorf("--sort %s --limit %s: %v, not from the largest to the smallest", field, limit, vals)
					break
				}
			}
			if limit == "0" && (len(vals) < 4 || vals[len(vals)-1] >= 0) {
				t.Errorf("--sort %s: %v: the tenant below zero is not last", field, vals)
			}
		}
	}
}
