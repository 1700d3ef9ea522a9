package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/exitcode"
)

// JSONLinesAnnotation marks a command whose -o json is JSON Lines (dlq export): its
// failure's document is one line, as every line of the stream is.
const JSONLinesAnnotation = "ankusa-store/json-lines"

// CountingWriter tells the command line's run (cmd.Execute) whether a command wrote anything on stdout.
type CountingWriter struct {
	W io.Writer
	N int64 // the bytes written
}

func (c *CountingWriter) Write(b []byte) (int, error) {
	n, err := c.W.Write(b)
	c.N += int64(n)
	return n, err
}

// JSONAsked finds -o json in args when flag parsing failed before it was read.
func JSONAsked(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "-ojson" || a == "--output=json" || a == "-o=json":
			return true
		case (a == "-o" || a == "--output") && i+1 < len(args) && args[i+1] == "json":
			return true
		}
	}
	return false
}

// CobraUsage is err as the tool says it when it is cobra's own (an unknown command, flag
// or argument count, found before any RunE ran, as a plain error): exit 2, and a mistyped
// subcommand of c said with what was probably meant (UnknownSubcommand). Any other error
// is returned as it is.
func CobraUsage(c *cobra.Command, err error) error {
	if name, ok := cobraUnknownCommand(err); ok {
		err = UnknownSubcommand(c, name)
	}
	if isCobraUsageError(err) {
		err = &exitcode.Error{Code: exitcode.Usage, Err: err}
	}
	return err
}

// cobraUnknownCommand recognises cobra's own unknown-command error (from the root).
func cobraUnknownCommand(err error) (string, bool) {
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		return "", false
	}
	var name string
	if _, serr := fmt.Sscanf(err.Error(), "unknown command %q", &name); serr != nil {
		return "", false
	}
	return name, true
}

// cobra reports these itself, as plain errors, before any RunE runs.
func isCobraUsageError(err error) bool {
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		return false
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "required flag", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, " "+p) {
			return true
		}
	}
	return false
}
