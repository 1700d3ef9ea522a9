package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
)

// The exit statuses are stated once (exitcode.Statuses, CrashHelp, CrashText); --help, the man
// pages and docs/commands.md are made from them. README.md and docs/migration.md are written
// by hand: each must list the same codes and say of a crash what a run shows
// (internal/faults TestPanicExitStatus): a Go panic ends by SIGABRT, 134 in a shell.
func TestExitStatusTexts(t *testing.T) {
	var codes []string
	for _, s := range exitcode.Statuses {
		codes = append(codes, s.Code)
	}
	for _, text := range []string{exitcode.Help, exitCodesMarkdown} {
		for _, want := range []string{"134", "SIGABRT", "Go panic", "137"} {
			if !strings.Contains(text, want) {
				t.Errorf("the generated exit status text does not say %q:\n%s", want, text)
			}
		}
		if strings.Contains(text, "exit 2 with a stack trace") {
			t.Errorf("the generated exit status text says a panic exits 2:\n%s", text)
		}
	}
	row := regexp.MustCompile(`^\| ([0-9]+|128\+N) \|(.*)$`)
	for _, page := range []string{"README.md", "docs/migration.md", "docs/commands.md"} {
		b, err := os.ReadFile(filepath.Join("..", page))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		at := strings.Index(text, "## Exit codes")
		if at < 0 {
			at = strings.Index(text, "| exit code |")
		}
		if at < 0 {
			t.Fatalf("%s has no exit code table", page)
		}
		// The first table from there: its rows, in order.
		var got []string
		crash, inTable := "", false
		for _, l := range strings.Split(text[at:], "\n") {
			if !strings.HasPrefix(l, "|") {
				if inTable {
					break
				}
				continue
			}
			inTable = true
			m := row.FindStringSubmatch(l)
			switch {
			case m == nil:
			case m[1] == "128+N":
				crash = m[2]
			default:
				got = append(got, m[1])
			}
		}
		if strings.Join(got, " ") != strings.Join(codes, " ") {
			t.Errorf("%s lists exit codes %v, internal/exitcode %v", page, got, codes)
		}
		if page == "docs/commands.md" {
			crash = text // the crash sentence follows its table
		}
		for _, want := range []string{"134", "SIGABRT", "Go panic", "137"} {
			if !strings.Contains(crash, want) {
				t.Errorf("%s's crash status does not say %q: %q", page, want, crash)
			}
		}
		// Issue 26 (10d): the runtime's own exit 2, which no code of ours can change, is said.
		if page != "docs/migration.md" && !strings.Contains(text, "2 is also the Go runtime failing to start, with `fatal error:` on stderr") {
			t.Errorf("%s does not say that 2 can be the Go runtime failing to start", page)
		}
		for _, wrong := range []string{"exit 2 with a stack trace", "panic, exit 2"} {
			if strings.Contains(text, wrong) {
				t.Errorf("%s says %q", page, wrong)
			}
		}
	}
}
