// Package cmdutil is what every command's flags share, as gh's pkg/cmdutil: a flag value
// pflag could not parse said as the flag, the value and the values it takes
// (FlagValueErr); a choice flag whose one list of values gives its check, its completion
// and its help, refused in one shape or, where it must say more, in its own words once the
// whole line is parsed (EnumFlag, Enum, Choices, Refusal); "did you mean" for an unknown flag (SuggestFlag); an old flag name kept
// working, hidden, for a release (DeprecatedAlias); and what every command line shares:
// its positional arguments checked against its Use line (ExactArgs, Positionals), a
// group's bare or mistyped subcommand (GroupRunE, UnknownSubcommand), cobra's own errors
// as usage errors (CobraUsage), -o json found when parsing failed (JSONAsked). The
// commands themselves are cmd's.
package cmdutil
