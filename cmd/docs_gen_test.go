package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/spf13/cobra"
)

// docs/commands.md is generated; this fails when a command changed and it was not regenerated.
func TestCommandsDocIsCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := GenerateCommandsMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../docs/commands.md")
	if err != nil {
		t.Fatalf("%v (run: go generate ./cmd)", err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Fatalf("docs/commands.md is stale: run `go generate ./cmd`")
	}
}

func TestManPagesGenerate(t *testing.T) {
	dir := t.TempDir()
	rel := ManRelease{Version: "1.2.3", Date: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	if err := GenerateManPages(dir, rel); err != nil {
		t.Fatal(err)
	}
	// The header (issue 46): each page its own title, section 1, the release's date and
	// version, the manual's name; and one release makes the same pages byte for byte.
	again := t.TempDir()
	if err := GenerateManPages(again, rel); err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(dir, "*.1"))
	if err != nil || len(pages) < 8 {
		t.Fatalf("%d man pages (%v)", len(pages), err)
	}
	for _, p := range append(pages, filepath.Join(dir, "ankusa-store-counters-verify.1")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		title := strings.ToUpper(strings.TrimSuffix(filepath.Base(p), ".1"))
		if want := `.TH "` + title + `" "1" "Dec 2026" "ankusa-store 1.2.3" "Ankusa Store Manual"`; !strings.Contains(string(b), want+"\n") {
			t.Errorf("%s: header is not %s:\n%.300s", filepath.Base(p), want, b)
		}
		if b2, err := os.ReadFile(filepath.Join(again, filepath.Base(p))); err != nil || !bytes.Equal(b, b2) {
			t.Errorf("%s: a second generation differs (%v)", filepath.Base(p), err)
		}
		// Each page says what its exit codes mean, before SEE ALSO.
		i, j := strings.Index(string(b), ".SH EXIT STATUS\n"), strings.Index(string(b), ".SH SEE ALSO")
		if i < 0 || !strings.Contains(string(b), ".B 130\ninterrupted") || (j >= 0 && j < i) {
			t.Errorf("%s: no EXIT STATUS section before SEE ALSO", filepath.Base(p))
		}
	}
}

// Every --help ends with the exit codes.
func TestHelpEndsWithExitCodes(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var b bytes.Buffer
		c.SetOut(&b)
		if err := c.Help(); err != nil {
			t.Fatal(err)
		}
		// As --help prints them where no width is known (clidoc.ExitHelp).
		if !strings.HasSuffix(b.String(), clidoc.ExitHelp(clidoc.DefaultWidth)+"\n") {
			t.Errorf("%s --help does not end with the exit codes:\n%s", c.CommandPath(), b.String())
		}
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				walk(s)
			}
		}
	}
	walk(docRoot())
}

// Every command that prints JSON documents its schema; a new one that forgets fails here.
func TestJSONCommandsHaveSchemas(t *testing.T) {
	want := []string{
		"ankusa-store checkpoints ls", "ankusa-store checkpoints rm",
		"ankusa-store counters verify", "ankusa-store diff", "ankusa-store dlq export", "ankusa-store dlq scan", "ankusa-store dlq show", "ankusa-store fixture",
		"ankusa-store keys decode", "ankusa-store migrate", "ankusa-store scan", "ankusa-store status",
		"ankusa-store tenants ls", "ankusa-store tenants show", "ankusa-store version",
	}
	got := clidoc.SchemaPaths()
	if len(got) != len(want) {
		t.Fatalf("schemas for %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("schemas for %v, want %v", got, want)
		}
	}
}
