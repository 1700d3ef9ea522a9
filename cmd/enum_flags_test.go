package cmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
// the flag takes, and the flag refuses any other, exit 2, in the one shape with its own noun
// ("--sort: unknown sort "x"; --sort must be ..."), or, --node, in its own words. The choice
// flags named here must stay choice flags (a plain string flag again would be checked by hand).
func TestChoiceFlagsCompleteWhatTheyTake(t *testing.T) {
	// noun is what the refusal calls a value; refusal, where set, the refusal of its own.
	type refusal struct{ noun, refusal string }
	want := map[string]refusal{
		"ankusa-store -o": {noun: "output format"}, "ankusa-store --progress": {noun: "progress mode"},
		"ankusa-store dlq export --join": {noun: "join"}, "ankusa-store dlq scan --join": {noun: "join"},
		"ankusa-store tenants ls --sort": {noun: "sort"}, "ankusa-store migrate --method": {noun: "method"},
		"ankusa-store fixture --format": {noun: "store format"}, "ankusa-store fixture --compression": {noun: "compression"},
		"ankusa-store fixture --node":   {refusal: "--node not-a-choice: no erlang-rocksdb release this tool knows (1.8.0 to 3.1.2)"},
		"ankusa-store keys decode --cf": {noun: "column family"},
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
		r, named := want[key]
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
			if !named {
				t.Fatalf("%s is a choice flag this test does not name: say how it refuses", key)
			}
			wantErr := r.refusal
			if wantErr == "" {
				wantErr = name + ": unknown " + r.noun + ` "not-a-choice"; ` + name + " must be " + strings.Join(choices.Names()[:len(choices)-1], ", ") + " or " + choices.Names()[len(choices)-1]
			}
			if code != exitcode.Usage || !strings.Contains(errs, wantErr) {
				t.Errorf("%v: exit %d, %q; want exit %d and %q", bad, code, errs, exitcode.Usage, wantErr)
			}
		})
	}
	for k := range want {
		t.Errorf("%s is no choice flag (declare it with cmdutil.EnumFlag)", k)
	}
}

// fixture's --compression says what the build of the --node given has, whichever of the two
// flags comes first: its refusal is worded once the line is parsed (cmdutil.Refusal). Nothing
// is written.
func TestFixtureRefusalsReadTheWholeLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--node", "3.1.2", "--compression", "bzip2"}, "--compression bzip2: the build of erlang-rocksdb 3.1.2 has none, snappy, lz4, lz4hc, zstd"},
		{[]string{"--compression", "bzip2", "--node", "3.1.2"}, "--compression bzip2: the build of erlang-rocksdb 3.1.2 has none, snappy, lz4, lz4hc, zstd"},
		{[]string{"--compression", "zlib", "--node", "1.9.0"}, "--compression zlib: the build of erlang-rocksdb 1.9.0 has none, snappy, lz4, lz4hc"},
		{[]string{"--compression", "zlib"}, "--compression zlib: no erlang-rocksdb release's build has it"},
		{[]string{"--format", "4", "--node", "2.7.0"}, "--format 4: only 2 and 3 can be generated"},
		{[]string{"--node", "2.7.0", "--format", "2"}, "--node 2.7.0: no erlang-rocksdb release this tool knows (1.8.0 to 3.1.2)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "bad")
			code, out, errs := runCLI(t.Context(), append(append([]string{"fixture"}, tc.args...), "--dir", dir))
			if code != exitcode.Usage || out != "" || !strings.HasPrefix(errs, "Error: "+tc.want) {
				t.Errorf("exit %d, %q%q; want exit %d and %q", code, out, errs, exitcode.Usage, tc.want)
			}
			if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: %v, want nothing written", dir, err)
			}
		})
	}
}
