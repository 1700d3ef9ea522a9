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

// A command to copy, in backticks, is never broken (issue 46): at any width it is on one
// line, whole, the one line that may be wider than the terminal; the prose around it wraps.
func TestWrapKeepsACommandWhole(t *testing.T) {
	cmd := "`ankusa-store tenants ls /var/lib/ankusa/store-of-this-node`"
	s := "no tenant nobody; the store's tenants: " + cmd + ", with their ordinals"
	for width := 21; width <= 120; width++ {
		got := WrapTo(s, width)
		whole := false
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if strings.Contains(l, cmd) {
				whole = true
			} else if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: a line of %d that is no command: %q", width, w, l)
			}
		}
		if !whole {
			t.Errorf("width %d: the command was broken:\n%s", width, got)
		}
	}
}
