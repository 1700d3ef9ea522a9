package faults

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// mergeOperand appends one merge operand to tenant ordinal 1's pending counter, as a
// buggy writer would: the merge operator refuses it, so the counter cannot be read.
func mergeOperand(t *testing.T, dir string, operand []byte) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	b := rocks.NewBatch()
	b.Merge(format.CFCounters, format.CounterKeyBytes(1, format.FieldPending), operand)
	werr := st.Write(b, true)
	b.Destroy()
	if err := st.Close(); werr != nil || err != nil {
		t.Fatal(werr, err)
	}
}

// TestDiffOfUnreadableCounters is issue 26's case 8 as found: tenant 1's pending counter
// with a bad merge operand 836a (ETF nil) in one store and {not_add,10} in the other.
// counters verify exits 3 on both; diff said "equal": true, exit 0, because RocksDB writes
// the same text for every failed merge. Now the key is unreadable (in both, in one), never
// equal, whatever the failures say (the same bad operand in both included), the rest of the
// difference is still shown, and the exit is 3 classed as corruption. Read-only: the stores'
// files are unchanged.
func TestDiffOfUnreadableCounters(t *testing.T) {
	root := t.TempDir()
	good := filepath.Join(root, "good")
	expect(t, run(t, "fixture", "--format", "3", "--seed", "7", "--now", migNow, "--dir", good), 0)
	cp := func(name string) string {
		dst := filepath.Join(root, name)
		if out, err := exec.Command("cp", "-a", good, dst).CombinedOutput(); err != nil {
			t.Fatalf("cp -a: %v\n%s", err, out)
		}
		return dst
	}
	nilOp := []byte{131, 106}                                                        // 836a
	notAdd := []byte{131, 104, 2, 119, 7, 'n', 'o', 't', '_', 'a', 'd', 'd', 97, 10} // {not_add,10}
	a, b, c := cp("a"), cp("b"), cp("c")
	mergeOperand(t, a, nilOp)
	mergeOperand(t, b, notAdd)
	mergeOperand(t, c, nilOp)
	for _, dir := range []string{a, b} {
		expect(t, run(t, "counters", "verify", "-q", dir), 3, "merge failed")
	}
	trees := map[string]storetest.Tree{}
	for _, dir := range []string{a, b, c, good} {
		trees[dir] = storetest.TreeOf(t, dir)
	}

	type diffJSON struct {
		Equal      bool  `json:"equal"`
		Unreadable int64 `json:"unreadable"`
		Changed    int64 `json:"changed"`
		Families   []struct {
			Family string `json:"family"`
			Keys   []struct {
				Change     string          `json:"change"`
				Unreadable string          `json:"unreadable"`
				KeyText    string          `json:"key_text"`
				A          json.RawMessage `json:"a"`
				B          json.RawMessage `json:"b"`
			} `json:"keys"`
		} `json:"families"`
	}
	cases := []struct {
		name, a, b, in string
	}{
		{"different bad operands", a, b, "both"},
		{"the same bad operand", a, c, "both"},
		{"bad in A only", a, good, "a"},
		{"bad in B only", good, b, "b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, "diff", "-o", "json", tc.a, tc.b)
			expect(t, r, 3, "cannot be compared: 1 key could not be read", "merge failed")
			var d diffJSON
			if err := json.Unmarshal([]byte(r.Stdout), &d); err != nil {
				t.Fatalf("diff -o json: %v\n%s", err, r)
			}
			if d.Equal || d.Unreadable != 1 || d.Changed != 0 || len(d.Families) != 1 || len(d.Families[0].Keys) != 1 {
				t.Fatalf("diff -o json: %+v\n%s", d, r)
			}
			k := d.Families[0].Keys[0]
			if k.Change != "unreadable" || k.Unreadable != tc.in || !strings.Contains(k.KeyText, "ord=1 field=pending") {
				t.Errorf("key %+v, want unreadable in %s", k, tc.in)
			}
			for side, v := range map[string]json.RawMessage{"a": k.A, "b": k.B} {
				failed := tc.in == side || tc.in == "both"
				if strings.Contains(string(v), `"error"`) != failed {
					t.Errorf("side %s: %s (failed %v)", side, v, failed)
				}
			}
			r = run(t, "diff", "-o", "tsv", tc.a, tc.b)
			expect(t, r, 3, "note: counters counters: 0 only in A, 0 only in B, 0 changed, 1 unreadable")
			if !strings.Contains(r.Stdout, "\tunreadable\tord=1 field=pending(1)\t") {
				t.Errorf("diff -o tsv does not show the key unreadable:\n%s", r)
			}
			r = run(t, "diff", "-o", "json", "-q", tc.a, tc.b)
			if !strings.Contains(r.Stdout, `"families"`) || strings.Contains(r.Stdout, `"error": {`) {
				t.Errorf("the result is not the document:\n%s", r)
			}
		})
	}
	for dir, before := range trees {
		storetest.SameTree(t, before, storetest.TreeOf(t, dir))
	}
}
