package cmd

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// Past completionWALMax a completion offers what the store's tables hold and nothing of its
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
	offers := func() (flushed, walOnly bool) {
		t.Helper()
		code, out, errOut := runCLI(context.Background(), []string{"__complete", "tenants", "show", "--store", dir, ""})
		if code != 0 {
			t.Fatalf("__complete: exit %d\n%s", code, errOut)
		}
		return regexp.MustCompile(`(?m)^flushed\t`).MatchString(out), regexp.MustCompile(`(?m)^walonly\t`).MatchString(out)
	}
	if flushed, walOnly := offers(); !flushed || !walOnly {
		t.Fatalf("below its WAL bound a completion offers flushed %v, walonly %v; want both", flushed, walOnly)
	}
	defer func(n int64) { completionWALMax = n }(completionWALMax)
	completionWALMax = store.WALBytes(dir) - 1
	if flushed, walOnly := offers(); !flushed || walOnly {
		t.Fatalf("past its WAL bound a completion offers flushed %v, walonly %v; want the table's tenant alone", flushed, walOnly)
	}
}
