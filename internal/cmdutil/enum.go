package cmdutil

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ankusa/ankusa-store/internal/exitcode"
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
// refuses with: the flag, what its values are (Enum.Noun) and the value, then the list:
// "--sort: unknown sort \"age\"; --sort must be ord, name, ... or oldest".
type EnumError struct {
	Flag, Noun, Value string
	Choices           Choices
}

func (e *EnumError) Error() string {
	return fmt.Sprintf("%s: unknown %s %q; %s must be %s", e.Flag, e.Noun, e.Value, e.Flag, orList(e.Choices.Names()))
}

// orList joins words as a sentence does: "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Enum declares one choice flag (EnumFlag).
type Enum struct {
	// Name and Short are the flag's names (Short may be ""); Default its value when not
	// given, taken even where it is no choice (-o's "" means "pick").
	Name, Short, Default string
	// Noun is what one value of the flag is, for its refusal: "sort" refuses --sort age
	// as `unknown sort "age"`; "" says "value".
	Noun string
	// Choices is the one list: the check, the completion and the help.
	Choices Choices
	// Usage is the help line, %s where the list goes.
	Usage string
	// Refuse, where set, words the refusal of a value outside the list itself, for a flag
	// whose refusal says more than the list (what another flag chose allows, a rule of its
	// own); nil from it refuses in the one shape. It is called by Refusal once the whole
	// command line is parsed, so the other flags it reads are set whatever their order.
	Refuse func(value string) error
}

// enum is the flag's value: a value outside the list is refused when pflag sets it, while
// the command line is parsed and before any command runs; one with its own Refuse is
// refused once the line is parsed (Refusal).
type enum struct {
	p    *string
	flag string
	spec Enum
	// refused: the value set is outside the list and waits for Refusal.
	refused bool
}

func (e *enum) String() string { return *e.p }

// Type stays pflag's "string": the help says `--join string (default "auto")` as it did
// for a plain string flag.
func (e *enum) Type() string { return "string" }

func (e *enum) Set(s string) error {
	e.refused = s != e.spec.Default && !slices.ContainsFunc(e.spec.Choices, func(c Choice) bool { return c.Name == s })
	if e.refused && e.spec.Refuse == nil {
		return e.err(s)
	}
	// Kept as given: a refusal of its own may need the flags after it, so Refusal refuses it.
	*e.p = s
	return nil
}

func (e *enum) err(value string) *EnumError {
	noun := e.spec.Noun
	if noun == "" {
		noun = "value"
	}
	return &EnumError{Flag: e.flag, Noun: noun, Value: value, Choices: e.spec.Choices}
}

// EnumFlag declares the choice flag d on c's flag set fs (c.Flags() or c.PersistentFlags()),
// its value in p. The flag completes to the choices and refuses any other value with an
// EnumError (FlagValueErr passes that on as it is) or with d.Refuse's error (Refusal).
func EnumFlag(c *cobra.Command, fs *pflag.FlagSet, p *string, d Enum) {
	*p = d.Default
	flag := "--" + d.Name
	if d.Short != "" {
		flag = "-" + d.Short
	}
	fs.VarP(&enum{p: p, flag: flag, spec: d}, d.Name, d.Short, fmt.Sprintf(d.Usage, d.Choices.Help()))
	names := d.Choices.Names()
	_ = c.RegisterFlagCompletionFunc(d.Name, func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

// Refusal is the refusal of the first choice flag of fs (by name) set outside its list whose
// Enum has a Refuse of its own, as a usage error; nil when there is none. The command's
// pre-run calls it, once every flag is parsed.
func Refusal(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		e, ok := f.Value.(*enum)
		if err != nil || !ok || !e.refused {
			return
		}
		if err = e.spec.Refuse(*e.p); err == nil {
			err = e.err(*e.p)
		}
		err = &exitcode.Error{Code: exitcode.Usage, Err: err}
	})
	return err
}

// ChoicesOf is the list of a flag declared with EnumFlag, and false for any other flag.
func ChoicesOf(f *pflag.Flag) (Choices, bool) {
	e, ok := f.Value.(*enum)
	if !ok {
		return nil, false
	}
	return e.spec.Choices, true
}
