package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// benchFigure is what a benchmark's figure looks like in prose: a scale ("at 10^7
// rows"), a rate ("rows/s", "MiB/s"), a ratio ("2x faster", "half the time"), a timing
// ("204.5 s", "45 ms"). Help says what a command and its flags do; how fast they did it on
// one machine is docs/testing.md's, where a new run changes it without touching the help.
var benchFigure = regexp.MustCompile(`10\^\d|\b\w+/s\b|\d+\.\d+x\b|\d+x (faster|slower|the)\b|\b(faster|slower|half the time)\b|\d+\.\d+ ?(s|ms|µs)\b|\d+ (s|ms|µs)\b`)

// helpAllowed are the help's numbers that look like figures and are behaviour: the
// progress line's interval.
var helpAllowed = []string{"every 10s", "every 10 s"}

// No command's help (its Short, Long and flags' usage: what --help, the man pages and
// docs/commands.md show) carries a benchmark figure.
func TestHelpHasNoBenchmarkFigures(t *testing.T) {
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		seen++
		texts := map[string]string{"Short": c.Short, "Long": c.Long}
		c.Flags().VisitAll(func(f *pflag.Flag) { texts["--"+f.Name] = f.Usage })
		for where, text := range texts {
			if f := helpFigures(text); len(f) > 0 {
				t.Errorf("%s %s: benchmark figures %q (they belong in docs/testing.md)", c.CommandPath(), where, f)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(docRoot())
	if seen < 20 {
		t.Fatalf("walked %d commands; the tree is missing some", seen)
	}
}

// The check finds the figures help once carried, and passes what is behaviour.
func TestHelpFiguresFoundWhenPlanted(t *testing.T) {
	for text, want := range map[string]bool{
		"a sorted join, which at 10^7 rows and more takes half the time of reading each by key": true,
		"migrates 310,000 rows/s":                    true,
		"2.4x faster than the steps":                 true,
		"2x the time of the steps":                   true,
		"the flush took 45 ms":                       true,
		"the settle took 6.6 s":                      true,
		"a line every 10s otherwise":                 false,
		"a line every 10 s otherwise":                false,
		"the key in hex, with or without 0x":         false,
		"--since 90m, 2h, 1d; 0s is now":             false,
		"about 1 KiB a hook, 1.5 KiB for an archive": false,
	} {
		if got := len(helpFigures(text)) > 0; got != want {
			t.Errorf("%q: found figures %v, want %v (%q)", text, got, want, helpFigures(text))
		}
	}
}

// helpFigures is the figures in text, the allowed phrases apart.
func helpFigures(text string) []string {
	for _, a := range helpAllowed {
		text = strings.ReplaceAll(text, a, "")
	}
	return benchFigure.FindAllString(text, -1)
}
