package cmdutil

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/spf13/cobra"
)

// GroupRunE is the RunE of a command group (counters, tenants, dlq, keys). A group
// does nothing by itself: bare, or with an argument that is no subcommand, it is a usage
// error (exit 2) naming what is wrong and what was probably meant, never a help page with
// exit 0 that a CI step would take for a check that passed.
func GroupRunE(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return exitcode.Usagef("%s needs a subcommand: %s (see '%s --help')", c.CommandPath(), strings.Join(subcommandNames(c), ", "), c.CommandPath())
	}
	return UnknownSubcommand(c, args[0])
}

// UnknownSubcommand is the one-line error for a mistyped subcommand of c.
func UnknownSubcommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if s := suggestSubcommands(c, name); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", quoteJoin(s, " or "))
	} else if names := subcommandNames(c); len(names) > 0 {
		msg += "; its commands are " + strings.Join(names, ", ")
	}
	return exitcode.Usagef("%s (see '%s --help')", msg, c.CommandPath())
}

func subcommandNames(c *cobra.Command) []string {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	sort.Strings(names)
	return names
}

// suggestSubcommands finds what a mistyped name meant: cobra's suggestions (a small edit
// distance, a prefix) and a name that starts with a subcommand ("verify-all" is "verify").
func suggestSubcommands(c *cobra.Command, typed string) []string {
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range c.SuggestionsFor(typed) {
		add(s)
	}
	lt := strings.ToLower(typed)
	for _, s := range c.Commands() {
		if !s.IsAvailableCommand() {
			continue
		}
		for _, n := range append([]string{s.Name()}, s.Aliases...) {
			if len(n) >= 2 && strings.HasPrefix(lt, strings.ToLower(n)) {
				add(s.Name())
			}
		}
	}
	return out
}

func quoteJoin(s []string, sep string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, sep)
}
