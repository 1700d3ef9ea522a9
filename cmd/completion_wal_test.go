package cmd

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// Past its walMax (Env.completion) a completion offers what the store's tables hold and nothing of its
// WAL, as it says (issue 44: with the open's SkipWAL dropped it said "offered from its tables
// alone" and replayed the WAL all the same, which with a large WAL offered nothing within its
// budget). Through __complete, as the shells' scripts call it: a tenant flushed to a table is
// offered, one written since, in the WAL alone, is not; below the bound both are.
func TestCompletionPastItsWALReadsTheTablesAlone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	st := storetest.Create(t, dir, format.Format3, rocks.Tuning{})
	w := storetest.NewWriter(format.Format3)
	w.Ord("flushed")
	w.Commit(t, st, true)
	for _, cf := range st.DB.Families() {
		if err := st.DB.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
	w.Ord("walonly")
	w.Commit(t, st, true)
	st.Close()
	if store.WALBytes(dir) == 0 {
		t.Fatal("the store has no WAL")
	}
	// The bound set on the Env, as the command line's own pre-run hands it on.
	offers := func(walMax int64) (flushed, walOnly bool) {
		t.Helper()
		streams, _, out, errOut := iostreams.Test()
		b := defaultCompletionBounds()
		b.walMax = walMax
		root := NewRootCmd(&Env{IO: streams, Build: BuildInfo{Version: "test"}, Now: time.Now, completion: b})
		root.SetArgs([]string{"__complete", "tenants", "show", "--store", dir, ""})
		if err := root.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("__complete: %v\n%s", err, errOut)
		}
		return regexp.MustCompile(`(?m)^flushed\t`).MatchString(out.String()), regexp.MustCompile(`(?m)^walonly\t`).MatchString(out.String())
	}
	if flushed, walOnly := offers(defaultCompletionBounds().walMax); !flushed || !walOnly {
		t.Fatalf("below its WAL bound a completion offers flushed %v, walonly %v; want both", flushed, walOnly)
	}
	if flushed, walOnly := offers(store.WALBytes(dir) - 1); !flushed || walOnly {
		t.Fatalf("past its WAL bound a completion offers flushed %v, walonly %v; want the table's tenant alone", flushed, walOnly)
	}
}
