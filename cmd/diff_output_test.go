package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/storediff"
)

// diff -o json is written as the keys are found (diff_json.go); the document is the one
// the built result encodes to, member for member (only their order differs: each family's
// counts follow its keys, the totals the families). The slow path is storediff.Stores
// keeping every key, encoded by ui.WriteJSON, as diff wrote it before it streamed.
func TestDiffJSONStreamIsTheResult(t *testing.T) {
	v2 := storetest.Extract(t, "store-v2.tar.zst")
	v3 := storetest.Extract(t, "store-v3.tar.zst")
	v3b := storetest.CopyStore(t, v3)
	for _, tc := range []struct {
		a, b  string
		limit int
	}{{v2, v3, 0}, {v2, v3, 3}, {v3, v2, 1}, {v3, v3b, 0}} {
		streams, _, out, errb := iostreams.Test()
		code := Execute(context.Background(), streams, BuildInfo{Version: "test"},
			[]string{"diff", "-q", "-o", "json", "--limit", fmt.Sprint(tc.limit), tc.a, tc.b})
		if want := map[bool]int{true: 0, false: 1}[tc.b == v3b]; code != want {
			t.Fatalf("diff --limit %d %s %s: exit %d, want %d\n%s", tc.limit, tc.a, tc.b, code, want, errb.String())
		}
		res := builtDiff(t, tc.a, tc.b, tc.limit)
		var built bytes.Buffer
		if err := ui.WriteJSON(&built, res); err != nil {
			t.Fatal(err)
		}
		var got, want any
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("the streamed document does not parse: %v\n%s", err, out.String())
		}
		if err := json.Unmarshal(built.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("diff --limit %d %s %s: the streamed document is not the result's\nstreamed:\n%.3000s\nbuilt:\n%.3000s", tc.limit, filepath.Base(tc.a), filepath.Base(tc.b), out.String(), built.String())
		}
	}
}

// builtDiff is the comparison kept whole, as diff printed it before it streamed.
func builtDiff(t *testing.T, a, b string, limit int) *storediff.Result {
	t.Helper()
	sa, err := rocks.OpenStore(a, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer sa.Close()
	sb, err := rocks.OpenStore(b, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	res, err := storediff.Stores(context.Background(), sa, sb, storediff.Options{Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	res.A.Store, res.B.Store = a, b
	return res
}

// On a terminal, at 80 and at 120 columns (issue 29): the counts of every family come
// first; every key shown is whole (its decoded text on the screen, never cut: an "only in
// A" and an "only in B" key must not look alike); --limit counts keys, so each family
// shows at most that many, each in a few lines however long its values; no line is wider
// than the terminal. The keys are those TSV lists for the same --limit.
func TestDiffOnTheTerminal(t *testing.T) {
	td, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	v2, v3 := filepath.Join(td, "store-v2.tar.zst"), filepath.Join(td, "store-v3.tar.zst")
	streams, _, tsv, errb := iostreams.Test()
	if code := Execute(context.Background(), streams, BuildInfo{Version: "test"},
		[]string{"diff", "-q", "--limit", "3", v2, v3}); code != 1 {
		t.Fatalf("diff: exit %d\n%s", code, errb.String())
	}
	keys := tsvColumn(t, tsv.String(), "decoded")
	families := map[string]int{}
	for _, f := range tsvColumn(t, tsv.String(), "family") {
		families[f]++
	}
	for _, cols := range []int{80, 120} {
		out, code := runOnTerminal(t, cols, nil, "diff", "-q", "--limit", "3", v2, v3)
		if code != 1 {
			t.Fatalf("%d columns: exit %d\n%s", cols, code, out)
		}
		lines := screenLines(out)
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > cols {
				t.Errorf("%d columns: line %d is %d wide: %q", cols, i, w, l)
			}
		}
		// The counts lead: the first line is their table's, the first key after it.
		if !strings.Contains(lines[1], "Family") || !strings.Contains(lines[1], "Only in A") {
			t.Errorf("%d columns: the output does not lead with the counts:\n%s", cols, strings.Join(lines[:5], "\n"))
		}
		screen := strings.Join(lines, "\n")
		// A key wrapped in a record continues on the next line: read the screen's words.
		words := strings.Join(strings.Fields(screen), " ")
		for _, k := range keys {
			if !strings.Contains(words, strings.Join(strings.Fields(k), " ")) {
				t.Errorf("%d columns: key %q is not whole on the screen", cols, k)
			}
		}
		if strings.Contains(screen, "…") && !strings.Contains(screen, "values cut to a line") && !strings.Contains(screen, "cut to fit") {
			t.Errorf("%d columns: something was cut and nothing says so", cols)
		}
		// At most 3 keys of each family, each in at most 4 lines (the blank between them
		// included), besides the counts' table and the notes.
		if max := 3*len(families)*4 + len(families) + 12; len(lines) > max {
			t.Errorf("%d columns: %d lines for %d keys of %d families (at most %d):\n%s", cols, len(lines), len(keys), len(families), max, screen)
		}
	}
}
