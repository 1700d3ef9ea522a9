package cmd

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func viewsFixture(t *testing.T, storeFormat uint32, hooks int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	if _, err := fixture.Generate(context.Background(), dir, fixture.Options{Format: storeFormat, Seed: 1, Now: fixture.DefaultNow, Hooks: hooks}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A migration really interrupted after its first step: the views that would
// report half-moved rows refuse the store with exit 3 and say why.
func TestViewsRefuseAnInterruptedMigration(t *testing.T) {
	// Enough rows for more than one step of 500.
	dir := viewsFixture(t, format.Format2, 2000)
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := migration.Run(ctx, st, migration.Options{Now: fixture.DefaultNow, OnStep: func(migration.StepInfo) { cancel() }})
	st.Close()
	if !errors.Is(err, context.Canceled) || sum.Finished {
		t.Fatalf("want a migration stopped after one step, got finished=%v err=%v", sum.Finished, err)
	}
	for _, args := range [][]string{
		{"tenants", "ls", dir},
		{"tenants", "ls", "-o", "json", dir},
		{"dlq", "scan", dir},
		{"dlq", "scan", "--tenant", "acme", dir},
	} {
		code, out, errOut := runCLI(t.Context(), args)
		// -o json answers with the error object; everything else writes no stdout.
		wantOut := ""
		if slices.Contains(args, "json") {
			wantOut = out
			if !strings.Contains(out, `"class": "mid_migration"`) {
				t.Errorf("%v: stdout %q, want the JSON error object", args, out)
			}
		}
		if code != exitcode.Store || out != wantOut || !strings.Contains(errOut, "mid-migration (2 -> 3)") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// The views open the store read-only: they work while a node holds its lock,
// and they see what the node wrote to its WAL and has not flushed.
func TestViewsReadAStoreANodeHolds(t *testing.T) {
	dir := viewsFixture(t, format.Format3, 0)
	node, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	// The node dead-letters one more delivery of acme (ordinal 1) now.
	at := uint64(fixture.DefaultNow.Add(time.Minute).UnixMilli())
	k := format.DeadKey{At: at, Seq: 100_000, Sink: 1}
	b := rocks.NewBatch()
	b.Put(format.CFIndex, k.Encode(), format.DeadValue{SourceID: []byte("src"), ID: []byte("fresh"), Ord: 1, HasOrd: true}.Encode())
	b.Put(format.CFIndex, k.ByTenant(1).Encode(), nil)
	b.Put(format.CFDeliveries, format.DeliveryKey{Seq: k.Seq, Sink: k.Sink}.Encode(),
		format.EncodeDelivery(format.Delivery{Sink: 1, Status: format.StatusDead, Size: 5, LastError: []byte("now")}))
	b.Merge(format.CFCounters, format.CounterKeyBytes(1, format.FieldDead), format.EncodeCounterOperand(1))
	b.Merge(format.CFCounters, format.CounterKeyBytes(1, format.FieldBytes), format.EncodeCounterOperand(5))
	if err := node.Write(b, true); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCLI(t.Context(), []string{"dlq", "scan", "--tenant", "acme", "--limit", "1", dir})
	if code != 0 || !strings.Contains(out, "\tacme\tsrc\tfresh\t100000\t1\t5\tnow\t") {
		t.Errorf("dlq scan: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t.Context(), []string{"tenants", "ls", "--prefix", "acme", dir})
	if code != 0 || !strings.Contains(out, "1\tacme\t21\t19\t3\t17\t15851\t6\t") {
		t.Errorf("tenants ls: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t.Context(), []string{"scan", "dead_by_tenant", "--limit", "0", "--from", "5800000001", "--to", "5800000002", dir})
	if code != 0 || !strings.Contains(out, "seq=100000") {
		t.Errorf("scan: exit %d\n%s%s", code, out, errOut)
	}
}

func TestHumanAge(t *testing.T) {
	for ms, want := range map[int64]string{
		0: "0ms", 999: "999ms", 1_000: "1s", 59_999: "59s", 90_000: "1m30s", 3_600_000: "1h00m",
		3_725_000: "1h02m", 86_400_000: "1d00h", 90_000_000: "1d01h", -300_000: "in 5m00s",
	} {
		if got := words.Age(ms); got != want {
			t.Errorf("%d: %q, want %q", ms, got, want)
		}
	}
}
