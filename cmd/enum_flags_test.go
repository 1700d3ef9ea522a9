package cmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
)

// Every choice flag is declared once, from its list: the shell completes exactly the values
// the flag takes, and the flag refuses any other in the one shape, exit 2. The choice flags
// named here must stay choice flags (a plain string flag again would be checked by hand).
func TestChoiceFlagsCompleteWhatTheyTake(t *testing.T) {
	want := map[string]bool{
		"ankusa-store -o": true, "ankusa-store --progress": true,
		"ankusa-store dlq export --join": true, "ankusa-store dlq scan --join": true,
		"ankusa-store tenants ls --sort": true, "ankusa-store migrate --method": true,
		"ankusa-store fixture --format": true, "ankusa-store fixture --compression": true,
		"ankusa-store fixture --node": true, "ankusa-store keys decode --cf": true,
	}
	root := NewRootCmd(&Env{IO: iostreams.IOStreams{}})
	type flagAt struct {
		path []string
		flag *pflag.Flag
	}
	var found []flagAt
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		fs := c.LocalNonPersistentFlags()
		if c == root {
			fs = c.PersistentFlags()
		}
		fs.VisitAll(func(f *pflag.Flag) {
			if _, ok := cmdutil.ChoicesOf(f); ok {
				found = append(found, flagAt{strings.Fields(c.CommandPath())[1:], f})
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, fa := range found {
		choices, _ := cmdutil.ChoicesOf(fa.flag)
		name := "--" + fa.flag.Name
		if fa.flag.Shorthand != "" {
			name = "-" + fa.flag.Shorthand
		}
		key := strings.Join(append([]string{"ankusa-store"}, fa.path...), " ") + " " + name
		delete(want, key)
		t.Run(key, func(t *testing.T) {
			// A subcommand that takes the flag: the root's own are completed on status.
			path := fa.path
			if len(path) == 0 {
				path = []string{"status"}
			}
			args := append(append([]string{"__complete"}, path...), "--"+fa.flag.Name, "")
			code, out, _ := runCLI(t.Context(), args)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
				t.Fatalf("%v: exit %d, %q", args, code, out)
			}
			if got := lines[:len(lines)-1]; !slices.Equal(got, choices.Names()) {
				t.Errorf("%s completes %q; it takes %q", key, got, choices.Names())
			}
			for _, v := range choices.Names() {
				if err := fa.flag.Value.Set(v); err != nil {
					t.Errorf("%s %s: %v", key, v, err)
				}
			}
			bad := append(append([]string{}, path...), "--"+fa.flag.Name+"=not-a-choice", "store")
			code, _, errs := runCLI(t.Context(), bad)
			wantErr := name + " must be " + strings.Join(choices.Names()[:len(choices)-1], ", ") + " or " + choices.Names()[len(choices)-1] + `, not "not-a-choice"`
			if code != exitcode.Usage || !strings.Contains(errs, wantErr) {
				t.Errorf("%v: exit %d, %q; want exit %d and %q", bad, code, errs, exitcode.Usage, wantErr)
			}
		})
	}
	for k := range want {
		t.Errorf("%s is no choice flag (declare it with cmdutil.EnumFlag)", k)
	}
}
