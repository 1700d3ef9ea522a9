package cmdutil

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Choice is one value of a choice flag and, where a word helps, what it means (said in the
// help in parentheses after the value).
type Choice struct {
	Name, Means string
}

// Choices is a choice flag's one list: its check, its shell completion and its help are all
// made from it, so a value added here is accepted, completed and documented at once.
type Choices []Choice

// Values makes Choices of bare values.
func Values(names ...string) Choices {
	cs := make(Choices, len(names))
	for i, n := range names {
		cs[i] = Choice{Name: n}
	}
	return cs
}

// Names are the values, in the list's order.
func (cs Choices) Names() []string {
	ns := make([]string, len(cs))
	for i, c := range cs {
		ns[i] = c.Name
	}
	return ns
}

// Help is the list as the help says it: "a (what a means), b or c".
func (cs Choices) Help() string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name
		if c.Means != "" {
			parts[i] += " (" + c.Means + ")"
		}
	}
	return orList(parts)
}

// EnumError is a value outside a choice flag's list, in the one shape every choice flag
// refuses with: "--join must be auto, sorted or by-key, not \"x\"".
type EnumError struct {
	Flag, Value string
	Choices     Choices
}

func (e *EnumError) Error() string {
	return fmt.Sprintf("%s must be %s, not %q", e.Flag, orList(e.Choices.Names()), e.Value)
}

// orList joins words as a sentence does: "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// enum is the flag's value: checked when pflag sets it, so a wrong value is refused while
// the command line is parsed, before any command runs.
type enum struct {
	p       *string
	def     string
	flag    string
	choices Choices
}

func (e *enum) String() string { return *e.p }

// Type stays pflag's "string": the help says `--join string (default "auto")` as it did
// for a plain string flag.
func (e *enum) Type() string { return "string" }

func (e *enum) Set(s string) error {
	// The default is taken as given even where it is no choice: -o's "" means "pick".
	if s != e.def && !slices.ContainsFunc(e.choices, func(c Choice) bool { return c.Name == s }) {
		return &EnumError{Flag: e.flag, Value: s, Choices: e.choices}
	}
	*e.p = s
	return nil
}

// EnumFlag declares a choice flag on c's flag set fs (c.Flags() or c.PersistentFlags()):
// p holds its value, def its default; usage says what it is for, with %s where the list
// of choices goes. The flag completes to the choices and refuses any other value with an
// EnumError (FlagValueErr passes that on as it is).
func EnumFlag(c *cobra.Command, fs *pflag.FlagSet, p *string, name, short, def string, choices Choices, usage string) {
	*p = def
	flag := "--" + name
	if short != "" {
		flag = "-" + short
	}
	fs.VarP(&enum{p: p, def: def, flag: flag, choices: choices}, name, short, fmt.Sprintf(usage, choices.Help()))
	names := choices.Names()
	_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

// ChoicesOf is the list of a flag declared with EnumFlag, and false for any other flag.
func ChoicesOf(f *pflag.Flag) (Choices, bool) {
	e, ok := f.Value.(*enum)
	if !ok {
		return nil, false
	}
	return e.choices, true
}
