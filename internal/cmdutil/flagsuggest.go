package cmdutil

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ankusa/ankusa-store/internal/nearest"
)

// SuggestFlag adds "did you mean" to pflag's unknown-flag error, as cobra does for
// subcommands: the command's flags (its own and inherited) nearest to what was typed by
// edit distance, by prefix, and with the dashes dropped (--dryrun is --dry-run).
func SuggestFlag(c *cobra.Command, err error) error {
	msg := err.Error()
	var typed string
	if _, serr := fmt.Sscanf(msg, "unknown flag: --%s", &typed); serr != nil || typed == "" {
		// A long flag with one dash (-tenant) reaches pflag as shorthands.
		if i := strings.LastIndex(msg, " in -"); strings.HasPrefix(msg, "unknown shorthand flag") && i > 0 && len(msg)-i > 6 {
			typed = msg[i+len(" in -"):]
		} else {
			return err
		}
	}
	typed, _, _ = strings.Cut(typed, "=")
	s := flagSuggestions(c, typed)
	if len(s) == 0 {
		return err
	}
	for i := range s {
		s[i] = "--" + s[i]
	}
	return errors.New(msg + "; did you mean " + strings.Join(s, " or ") + "?")
}

func flagSuggestions(c *cobra.Command, typed string) []string {
	squash := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "") }
	lt := squash(typed)
	best := 3
	var out []string
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		n := squash(f.Name)
		d := nearest.Distance(lt, n)
		if len(lt) >= 3 && strings.HasPrefix(n, lt) {
			d = min(d, 1)
		}
		switch {
		case d < best:
			best, out = d, []string{f.Name}
		case d == best:
			out = append(out, f.Name)
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	if best > 2 || (best == 2 && len(lt) < 4) {
		return nil
	}
	sort.Strings(out)
	return firstN(out, 3)
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
