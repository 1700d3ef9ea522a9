package cmd

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// tenants show on a real terminal at 80 and 160 columns: the fields as a table (not one
// record per field), the inflight rows and the dead letters as titled tables, ids (refs,
// hook ids) whole, every line within the terminal but the paging command, which is
// printed whole so that its cursor pastes.
func TestTenantsShowOnATerminal(t *testing.T) {
	v3, err := filepath.Abs("../testdata/store-v3.tar.zst")
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range []int{80, 160} {
		out, code := runOnTerminal(t, cols, nil, "tenants", "show", "--limit", "3", "acme", v3)
		if code != 0 {
			t.Fatalf("%d columns: exit %d\n%s", cols, code, out)
		}
		screen := screenLines(out)
		all := strings.Join(screen, "\n")
		for _, want := range []string{"│ dead            │ 16 ", "│ dead_letters    │ the newest 3 below, 13 more ",
			"Inflight rows, the first 3 (age: since the hook was received):", "│ 279:5 │ hk_0000000000000117 │",
			"Dead letters, the newest 3 of 16 (dlq show REF STORE shows one):", "│ 383:1 ",
			"\nmore dead letters: ankusa-store dlq scan --tenant acme --after"} {
			if !strings.Contains(all, want) {
				t.Errorf("%d columns: no %q:\n%s", cols, want, all)
			}
		}
		// The paging command, however it was broken to fit, is one shell command again.
		cmd := all[strings.Index(all, "\nmore dead letters: ")+1:]
		cmd = strings.ReplaceAll(strings.TrimSpace(cmd), " \\\n    ", " ")
		if !regexp.MustCompile(`^more dead letters: ankusa-store dlq scan --tenant acme --after [A-Za-z0-9_-]+ ` + regexp.QuoteMeta(v3) + `$`).MatchString(cmd) {
			t.Errorf("%d columns: the paging command does not paste as one: %q", cols, cmd)
		}
		if strings.Contains(all, "Field: ") {
			t.Errorf("%d columns: the fields fell back to records:\n%s", cols, all)
		}
		for _, l := range screen {
			if w := ansi.StringWidth(l); w > cols {
				t.Errorf("%d columns: a line of %d columns:\n%s", cols, w, l)
			}
		}
	}
}
