package cmd

import (
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// migrate --verify exits 1 when the migrated store is not healthy, even
// though the migration itself succeeded: a format 2 store whose delivery
// has both a due and a dead key migrates, and verify then finds the
// delivery with two index keys (invariant 5). Without --verify the same
// migration exits 0.
func TestMigrateVerifyFindings(t *testing.T) {
	for _, verify := range []bool{false, true} {
		dir := viewsFixture(t, format.Format2, 0)
		st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		var due format.DueV2Key
		fam := format.FamDueV2
		err = st.Scan(fam.CF, fam.Lo, fam.Hi, rocks.ReadOpts{}, func(k, _ []byte) error {
			if d, err := format.DecodeDueV2Key(k); err == nil {
				due = d
				return rocks.Stop
			}
			return nil
		})
		if err != nil || due.Seq == 0 {
			t.Fatalf("no due row to copy: %v", err)
		}
		b := rocks.NewBatch()
		b.Put(format.CFIndex, format.DeadKey(due).Encode(),
			format.DeadValue{SourceID: []byte("src"), ID: []byte("twice")}.Encode())
		if err := st.Write(b, true); err != nil {
			t.Fatal(err)
		}
		st.Close()

		args := []string{"migrate", "--no-backup", "--now", migrateNow, dir}
		want := exitcode.OK
		if verify {
			args = append([]string{"migrate", "--verify"}, args[1:]...)
			want = exitcode.Findings
		}
		code, out, errOut := runCLI(t.Context(), args)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, errOut)
		}
		// The whole report is the result, on stdout: the summary, the finding, the verdict
		// (piped, as counters verify's rows after a blank line).
		if verify && (!strings.Contains(out, "\n\ncheck\tord\t") || !strings.Contains(out, "\ndelivery_index_keys\t") || !strings.Contains(out, "\nverdict\t\t\tfindings\t\t\t\t\t1 finding")) {
			t.Errorf("migrate --verify does not report the finding:\n%s%s", out, errOut)
		}
		if !strings.Contains(out, "\nresult\tfinished=true ") { // the summary, TSV when piped
			t.Errorf("the migration did not finish:\n%s", errOut)
		}
	}
}
