package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/archive"
)

// Every line of every command's Example (what --help, the man pages and docs/commands.md
// show) runs here against the committed fixtures and must exit 0, so the examples an
// operator copies cannot drift from the tool. Each example runs in a fresh directory that
// holds store/ (format 2 for migrate, format 3 otherwise) and a copy of store-v3.tar.zst;
// the absolute paths the examples use are mapped into that directory.
func TestHelpExamplesRun(t *testing.T) {
	testdata, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	var walk func(c *cobra.Command)
	var cmds []*cobra.Command
	walk = func(c *cobra.Command) {
		cmds = append(cmds, c)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(docRoot())
	ran := 0
	for _, c := range cmds {
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			args := shellFields(line)
			if args[0] != "ankusa-store" {
				t.Errorf("%s: example %q does not start with ankusa-store", c.CommandPath(), line)
				continue
			}
			ran++
			t.Run(strings.Join(args[1:], "_"), func(t *testing.T) {
				dir := t.TempDir()
				if c.Name() != "fixture" {
					src := "store-v3.tar.zst"
					if c.Name() == "migrate" {
						src = "store-v2.tar.zst"
					}
					if err := archive.ExtractArchive(filepath.Join(testdata, src), filepath.Join(dir, "store")); err != nil {
						t.Fatal(err)
					}
					b, err := os.ReadFile(filepath.Join(testdata, "store-v3.tar.zst"))
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, "store-v3.tar.zst"), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if c.CommandPath() == "ankusa-store checkpoints rm" {
					exampleCheckpoint(t, filepath.Join(dir, "store"), filepath.Join(dir, "store-pre-v3"))
				}
				mapped := make([]string, 0, len(args)-1)
				for _, a := range args[1:] {
					switch {
					case a == "/var/lib/ankusa/store" || a == "/srv/copy-of-store":
						a = filepath.Join(dir, "store")
					case strings.HasPrefix(a, "/backups/") || strings.HasPrefix(a, "/tmp/"):
						a = filepath.Join(dir, filepath.Base(a))
					case strings.HasPrefix(a, "/"):
						t.Fatalf("example uses %s: map it to the test directory here", a)
					case !strings.HasPrefix(a, "-") && (strings.HasSuffix(a, "/") || strings.HasSuffix(a, ".tar.zst")):
						a = filepath.Join(dir, a)
					}
					mapped = append(mapped, a)
				}
				io, _, out, errb := iostreams.Test()
				if code := Execute(context.Background(), io, BuildInfo{Version: "test", Commit: "none"}, mapped); code != 0 {
					t.Fatalf("%s exited %d\nstdout:\n%s\nstderr:\n%s", line, code, out.String(), errb.String())
				}
			})
		}
	}
	if ran < 10 {
		t.Fatalf("only %d help examples found; the walk over the command tree is broken", ran)
	}
}

// shellFields splits an example line as a shell does for the quoting examples use: words
// at blanks, and a '...' quoted part kept as it is (an Elixir binary, <<88, 0, ...>>, has
// to be quoted for a shell, where << starts a here-document).
func shellFields(line string) []string {
	var out []string
	var cur strings.Builder
	in, word := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			in, word = !in, true
		case !in && (r == ' ' || r == '\t'):
			if word {
				out = append(out, cur.String())
				cur.Reset()
				word = false
			}
		default:
			cur.WriteRune(r)
			word = true
		}
	}
	if word {
		out = append(out, cur.String())
	}
	return out
}
