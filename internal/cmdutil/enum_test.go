package cmdutil

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/exitcode"
)

// testEnums is a command with two choice flags as fixture has them: --shape refused in the
// one shape, and --codec whose refusal reads what --release chose (a release's codecs), so it
// must be worded after the whole line is parsed.
func testEnums() (*cobra.Command, *struct{ shape, codec, release string }) {
	v := &struct{ shape, codec, release string }{}
	c := &cobra.Command{Use: "t", RunE: func(*cobra.Command, []string) error { return nil }}
	c.PersistentPreRunE = func(c *cobra.Command, _ []string) error { return Refusal(c.Flags()) }
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return FlagValueErr(err) })
	c.SilenceErrors, c.SilenceUsage = true, true
	f := c.Flags()
	EnumFlag(c, f, &v.shape, Enum{Name: "shape", Short: "s", Default: "round", Noun: "shape", Choices: Values("round", "square", "flat"), Usage: "the shape: %s"})
	codecs := map[string]string{"1.0": "none, lz4", "2.0": "none, lz4, zstd"}
	EnumFlag(c, f, &v.codec, Enum{Name: "codec", Default: "none", Noun: "codec", Choices: Values("none", "lz4", "zstd"), Usage: "the codec: %s",
		Refuse: func(s string) error {
			if s == "gzip" {
				return nil // the one shape
			}
			if has, ok := codecs[v.release]; ok {
				return fmt.Errorf("--codec %s: release %s has %s", s, v.release, has)
			}
			return fmt.Errorf("--codec %s: no release has it", s)
		}})
	EnumFlag(c, f, &v.release, Enum{Name: "release", Noun: "release", Choices: Values("1.0", "2.0"), Usage: "the release: %s"})
	return c, v
}

func TestEnumFlagRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		// want is the error ("" none); usage: it is a usage error of its own (exit 2), not
		// one cobra's flag error function classes.
		want  string
		usage bool
		// shape, codec and release are the values the command runs with.
		shape, codec, release string
	}{
		{args: nil, shape: "round", codec: "none"},
		{args: []string{"-s", "flat", "--codec", "zstd", "--release", "2.0"}, shape: "flat", codec: "zstd", release: "2.0"},
		{args: []string{"--shape", "oval"}, want: `-s: unknown shape "oval"; -s must be round, square or flat`},
		// Refused while parsing: a later bad flag is not reached.
		{args: []string{"--shape", "oval", "--codec", "brotli"}, want: `-s: unknown shape "oval"; -s must be round, square or flat`},
		{args: []string{"--release", "3.0"}, want: `--release: unknown release "3.0"; --release must be 1.0 or 2.0`},
		// Its own refusal, reading --release whichever comes first.
		{args: []string{"--release", "1.0", "--codec", "brotli"}, want: "--codec brotli: release 1.0 has none, lz4", usage: true},
		{args: []string{"--codec", "brotli", "--release", "1.0"}, want: "--codec brotli: release 1.0 has none, lz4", usage: true},
		{args: []string{"--codec", "brotli"}, want: "--codec brotli: no release has it", usage: true},
		// nil from it: the one shape.
		{args: []string{"--codec", "gzip", "--release", "2.0"}, want: `--codec: unknown codec "gzip"; --codec must be none, lz4 or zstd`, usage: true},
		// A value in the list after a refused one is taken.
		{args: []string{"--codec", "brotli", "--codec", "lz4"}, codec: "lz4", shape: "round"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			c, v := testEnums()
			c.SetArgs(tc.args)
			err := c.Execute()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("error %q, want %q", got, tc.want)
			}
			var ee *exitcode.Error
			if isUsage := errors.As(err, &ee) && ee.Code == exitcode.Usage; isUsage != tc.usage {
				t.Errorf("usage error %v, want %v", isUsage, tc.usage)
			}
			if tc.want == "" && (v.shape != tc.shape || v.codec != tc.codec || v.release != tc.release) {
				t.Errorf("ran with %+v, want {%s %s %s}", *v, tc.shape, tc.codec, tc.release)
			}
		})
	}
}

// The list gives the help and the completion.
func TestEnumFlagHelpAndCompletion(t *testing.T) {
	c, _ := testEnums()
	for _, tc := range []struct{ flag, usage string }{
		{"shape", "the shape: round, square or flat"},
		{"codec", "the codec: none, lz4 or zstd"},
		{"release", "the release: 1.0 or 2.0"},
	} {
		f := c.Flags().Lookup(tc.flag)
		if f.Usage != tc.usage {
			t.Errorf("--%s's help %q, want %q", tc.flag, f.Usage, tc.usage)
		}
		choices, ok := ChoicesOf(f)
		complete, _ := c.GetFlagCompletionFunc(tc.flag)
		got, _ := complete(c, nil, "")
		if !ok || strings.Join(got, " ") != strings.Join(choices.Names(), " ") {
			t.Errorf("--%s completes %q, its list %q", tc.flag, got, choices.Names())
		}
	}
}
