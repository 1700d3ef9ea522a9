package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Prose wraps at spaces only: a number with thousands separators, a path or a key is
// never split across lines, at any width.
func TestWrapNeverSplitsAToken(t *testing.T) {
	s := "migrate would read 1,234,567 keys (due 1,000,000, dead 234,567), about 7ms at 50,000 rows/s; " +
		"checkpoint /var/lib/ankusa/store.pre-v3 on the same file system"
	tokens := strings.Fields(s)
	for width := 21; width <= 120; width++ {
		got := WrapTo(s, width)
		var words []string
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: a line of %d: %q", width, w, l)
			}
			words = append(words, strings.Fields(l)...)
		}
		// Every token that fits a line (width-2: continuation lines are indented) is whole.
		have := map[string]bool{}
		for _, w := range words {
			have[w] = true
		}
		for _, tok := range tokens {
			if len(tok) <= width-2 && !have[tok] {
				t.Errorf("width %d: %q was split:\n%s", width, tok, got)
			}
		}
		if width >= 40 && fmt.Sprint(words) != fmt.Sprint(tokens) {
			t.Errorf("width %d: a token was split:\n%s", width, got)
		}
	}
	// A token longer than the line is the one thing broken.
	long := strings.Repeat("x", 50)
	for _, l := range strings.Split(strings.TrimSuffix(WrapTo("a "+long, 30), "\n"), "\n") {
		if ansi.StringWidth(l) > 30 {
			t.Errorf("a line of %d: %q", ansi.StringWidth(l), l)
		}
	}
}

// A command to copy, in backticks, is never broken inside a word (issue 46): where it fits
// a line it is whole on one; wider, it is broken between its words, each broken line
// ending with " \\" as a shell reads it back; no line is wider than the terminal but one
// word that is wider alone; the prose around it wraps.
func TestWrapKeepsACommandWhole(t *testing.T) {
	cmd := "`ankusa-store tenants ls /var/lib/ankusa/store-of-this-node`"
	s := "no tenant nobody; the store's tenants: " + cmd + ", with their ordinals"
	for width := 21; width <= 120; width++ {
		got := WrapTo(s, width)
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		var pasted []string
		in := false
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > width && !strings.Contains(l, "/var/lib/ankusa/store-of-this-node") {
				t.Errorf("width %d: a line of %d: %q", width, w, l)
			}
			if strings.Contains(l, "`ankusa-store") {
				in = true
				l = l[strings.Index(l, "`"):]
			}
			if in {
				end := strings.Index(l, "`ankusa")
				if c := strings.LastIndex(l, "`"); c > end {
					pasted, in = append(pasted, strings.TrimSpace(l[:c+1])), false
					continue
				}
				pasted = append(pasted, strings.TrimSuffix(strings.TrimSpace(l), " \\"))
				if !strings.HasSuffix(l, " \\") {
					t.Errorf("width %d: a command's line does not end with a continuation: %q", width, l)
				}
			}
		}
		if got := strings.Join(pasted, " "); got != cmd {
			t.Errorf("width %d: the command reads back as %q:\n%s", width, got, strings.Join(lines, "\n"))
		}
		if len(cmd)+len(",") <= width-2 && !strings.Contains(got, cmd) { // the comma after it is of its token
			t.Errorf("width %d: a command that fits a line is not whole on one:\n%s", width, got)
		}
	}
}

// A path wider than the line is broken only after a slash (issue 46: status at 60 columns
// broke a store path inside a directory's name): every line is whole segments, each but the
// last ending in "/", and the lines joined are the path; a segment wider than a line alone,
// or a token with no slash, is the one thing broken elsewhere.
func TestWrapBreaksAPathAfterASlash(t *testing.T) {
	for _, tc := range []struct {
		token string
		width int
		want  []string
	}{
		{"/tmp/TestEveryCommandFitsTheTerminal1234567/001/ankusa-node-store", 30,
			[]string{"/tmp/", "TestEveryCommandFitsTheTermina", "l1234567/001/ankusa-node-store"}},
		{"/var/lib/ankusa/nodes/eu-west-1/store", 20, []string{"/var/lib/ankusa/", "nodes/eu-west-1/", "store"}},
		{"/var/lib/ankusa/nodes/eu-west-1/store/", 20, []string{"/var/lib/ankusa/", "nodes/eu-west-1/", "store/"}},
		{"relative/path/to/a/store", 10, []string{"relative/", "path/to/a/", "store"}},
		{"7400000003ffffffffffffffff", 10, []string{"7400000003", "ffffffffff", "ffffff"}},
	} {
		got := wrapWords(tc.token, tc.width)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q at %d: %q, want %q", tc.token, tc.width, got, tc.want)
		}
	}
	// A path at every width where its widest segment fits a line: whole when it fits,
	// else lines of whole segments that join to it.
	path := "/var/lib/ankusa/nodes/eu-west-1/a-rather-long-store-directory-name/store"
	for width := len("a-rather-long-store-directory-name/"); width <= 80; width++ {
		lines := wrapWords("at "+path, width)
		if lines[0] == "at" {
			lines = lines[1:]
		} else {
			lines[0] = strings.TrimPrefix(lines[0], "at ")
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: a line of %d: %q", width, w, l)
			}
			if i < len(lines)-1 && !strings.HasSuffix(l, "/") {
				t.Errorf("width %d: a line ends inside a segment: %q", width, l)
			}
		}
		if joined := strings.Join(lines, ""); joined != path {
			t.Errorf("width %d: the lines join to %q", width, joined)
		}
	}
}
