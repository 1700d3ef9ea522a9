package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
)

// helpAt is a command's --help, printed for a terminal of cols columns (0: none, a pipe).
func helpAt(t *testing.T, cols int, path ...string) string {
	t.Helper()
	streams, _, out, errb := iostreams.Test()
	streams.OutIsTerminal = cols > 0
	streams.OutWidth = cols
	code := Execute(context.Background(), streams,
		BuildInfo{Version: "test"}, append(append([]string{}, path...), "--help"))
	if code != 0 {
		t.Fatalf("%v --help: exit %d\n%s", path, code, errb.String())
	}
	return out.String()
}

// allCommandPaths is every command of the tree, the root's [] included.
func allCommandPaths() [][]string {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(NewRootCmd(&Env{}), nil)
	return paths
}

// Every command's --help fits the terminal it is printed on, at 80 and at 120 columns, and
// 79 where no width is known (issue 29: prose pre-wrapped at 88, flag lines of 160, split
// words like "(mi|grate)" at 80). Fitting it never splits or loses a word: the words of
// the help at any width are the words at any other. Tab-indented lines (completion's
// shell snippets) count a tab as 8 columns.
func TestHelpFitsTheTerminal(t *testing.T) {
	for _, path := range allCommandPaths() {
		var words []string
		for _, cols := range []int{80, 120, 0} {
			out := helpAt(t, cols, path...)
			limit := cols
			if cols == 0 {
				limit = clidoc.DefaultWidth
			}
			for i, l := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(strings.ReplaceAll(l, "\t", "        ")); w > limit {
					t.Errorf("%v --help at %d columns: line %d is %d wide: %q", path, cols, i+1, w, l)
				}
			}
			// An example wrapped for sh ends its pieces in " \": not words of the help.
			w := strings.Fields(strings.ReplaceAll(out, " \\\n", " "))
			if words == nil {
				words = w
			} else if strings.Join(w, " ") != strings.Join(words, " ") {
				t.Errorf("%v --help at %d columns holds other words than at 80:\n%s", path, cols, out)
			}
		}
	}
}

// The root's help names the runbook and where each command's page is.
func TestRootHelpNamesTheRunbook(t *testing.T) {
	out := helpAt(t, 80)
	for _, want := range []string{"docs/migration.md", "man ankusa-store-migrate", "docs/commands.md"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the root help does not name %s:\n%s", want, out)
		}
	}
}
