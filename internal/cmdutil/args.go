package cmdutil

import (
	"strings"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/spf13/cobra"
)

// ExactArgs is cobra.ExactArgs with the usage exit code.
func ExactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if names := Positionals(c.Use); len(args) < n && len(names) == n {
			missing := names[len(args):]
			verb := "is"
			if len(missing) > 1 {
				verb = "are"
			}
			return exitcode.Usagef("%s takes %s: %s %s missing (see '%s --help')", c.CommandPath(), strings.Join(names, " "), strings.Join(missing, " and "), verb, c.CommandPath())
		}
		if len(args) != n {
			return exitcode.Usagef("%s takes %d argument(s), got %d (see '%s --help')", c.CommandPath(), n, len(args), c.CommandPath())
		}
		return nil
	}
}

// Positionals is the argument names of a Use line: the words after the command's name
// that are not [flags].
func Positionals(use string) []string {
	var out []string
	flagValue := false
	for _, w := range strings.Fields(use)[1:] {
		// A flag in the Use line (rawread --families F[,F...]) takes the word after it.
		if flagValue || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "-") {
			flagValue = strings.HasPrefix(w, "--") && !strings.Contains(w, "=")
			continue
		}
		out = append(out, strings.TrimSuffix(w, "..."))
	}
	return out
}
