package clidoc

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
)

// Help is written for the terminal that reads it: its prose (written in the source at
// about 88 columns, as docs/commands.md and the man pages keep it) is re-flowed to the
// terminal's width, flag descriptions and command summaries hang under their column, and
// an example too long for a line continues on the next with a backslash, as sh reads it.
// Without a terminal (a pipe, a file) the width is 79: what a reader's terminal is at
// least.

// DefaultWidth is the width of help read where no width is known.
const DefaultWidth = 79

// helpWidthNow is the width the help being rendered wraps to; cobra's template functions
// are global, so the one rendering at a time holds helpMu (SetHelp).
var (
	helpMu       sync.Mutex
	helpWidthNow = DefaultWidth
)

func init() {
	cobra.AddTemplateFunc("helpProse", func(s string) string { return ReflowProse(s, helpWidthNow) })
	cobra.AddTemplateFunc("helpFlags", func(f *pflag.FlagSet) string {
		return strings.TrimRight(f.FlagUsagesWrapped(helpWidthNow-1), " \n")
	})
	cobra.AddTemplateFunc("helpCommand", func(name string, pad int, short string) string {
		head := "  " + name + strings.Repeat(" ", max(0, pad-len(name))) + " "
		return strings.TrimRight(ui.Hanging(head, short, len(head), helpWidthNow, 20), "\n")
	})
	cobra.AddTemplateFunc("helpExample", func(s string) string { return WrapExamples(s, helpWidthNow) })
	cobra.AddTemplateFunc("helpExitCodes", func() string { return ExitHelp(helpWidthNow) })
}

// ExitHelp is exitcode.Help fitted to width: each status's text hangs under its
// column.
func ExitHelp(width int) string {
	var b strings.Builder
	b.WriteString("Exit status:\n")
	for _, s := range exitcode.Statuses {
		head := fmt.Sprintf("  %-4s ", s.Code)
		text := strings.Join(strings.Fields(s.Help), " ")
		b.WriteString(ui.Hanging(head, text, len(head), width, 20))
	}
	b.WriteString(ReflowProse(exitcode.HelpTail, width))
	return b.String()
}

// SetHelp makes c's help (and its commands') the tool's: the template below, fitted to
// width() at each rendering, which first calls before (cmd's: help whose reader went away
// drops the rest, as work does, where cobra would print the write error).
func SetHelp(c *cobra.Command, width func() int, before func()) {
	c.SetHelpTemplate(helpTemplate)
	help := c.HelpFunc()
	c.SetHelpFunc(func(c *cobra.Command, args []string) {
		before()
		helpMu.Lock()
		defer helpMu.Unlock()
		helpWidthNow = width()
		help(c, args)
	})
}

// helpTemplate is cobra's help and usage templates in one, with the prose, the flags, the
// command list and the examples fitted to helpWidthNow.
const helpTemplate = `{{with (or .Long .Short)}}{{helpProse . | trimTrailingWhitespaces}}

{{end}}{{if or .Runnable .HasSubCommands}}Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{helpExample .Example}}{{end}}{{if .HasAvailableSubCommands}}{{$cmds := .Commands}}{{if eq (len .Groups) 0}}

Available Commands:{{range $cmds}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
{{helpCommand .Name .NamePadding .Short}}{{end}}{{end}}{{else}}{{range $group := .Groups}}

{{.Title}}{{range $cmds}}{{if (and (eq .GroupID $group.ID) (or .IsAvailableCommand (eq .Name "help")))}}
{{helpCommand .Name .NamePadding .Short}}{{end}}{{end}}{{end}}{{if not .AllChildCommandsHaveGroup}}

Additional Commands:{{range $cmds}}{{if (and (eq .GroupID "") (or .IsAvailableCommand (eq .Name "help")))}}
{{helpCommand .Name .NamePadding .Short}}{{end}}{{end}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{helpFlags .LocalFlags}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{helpFlags .InheritedFlags}}{{end}}{{if .HasHelpSubCommands}}

Additional help topics:{{range .Commands}}{{if .IsAdditionalHelpTopicCommand}}
  {{rpad .CommandPath .CommandPathPadding}} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableSubCommands}}

{{helpProse (printf "Use \"%s [command] --help\" for more information about a command." .CommandPath)}}{{end}}
{{end}}
{{helpExitCodes}}
`

// listItem is a line that starts an item of a list ("- ", "* ", "1. "), indented or not.
var listItem = regexp.MustCompile(`^( *)([-*]|[0-9]+\.) `)

// ReflowProse fits text written as paragraphs to width columns: the lines of a paragraph
// are joined and wrapped again at spaces (no token is split, as ui.WrapTo splits none); a
// list item keeps its marker and hangs its lines under its text. Lines that are laid out
// (indented by a tab, or by spaces outside a list item: commands, tables) are kept as they
// are.
func ReflowProse(s string, width int) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	var item []string // the words of the item being joined
	head, indent := "", ""
	flush := func() {
		if item == nil {
			return
		}
		text := strings.Join(item, " ")
		b.WriteString(strings.TrimRight(ui.Hanging(head, text, len(indent), width, 10), "\n"))
		b.WriteByte('\n')
		item, head, indent = nil, "", ""
	}
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch m := listItem.FindStringSubmatch(l); {
		case trimmed == "":
			flush()
			b.WriteByte('\n')
		case m != nil:
			flush()
			head = m[0]
			indent = strings.Repeat(" ", len(m[0]))
			item = []string{strings.TrimSpace(l[len(m[0]):])}
		case strings.HasPrefix(l, "\t"):
			flush()
			b.WriteString(l + "\n")
		case strings.HasPrefix(l, " ") && (item == nil || indent == "" || !strings.HasPrefix(l, indent)):
			flush()
			b.WriteString(l + "\n")
		case item == nil:
			item = []string{trimmed}
		default:
			item = append(item, trimmed)
		}
	}
	flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// WrapExamples breaks an example command wider than width at spaces, each piece but the
// last ending in " \", the next indented by four more: pasted into sh, it is the same
// command. A '...' quoted word is never broken.
func WrapExamples(s string, width int) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if ansi.StringWidth(l) <= width {
			b.WriteString(l)
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		cur := lead
		for j, w := range exampleWords(l) {
			switch {
			case j == 0:
				cur += w
			case ansi.StringWidth(cur)+1+ansi.StringWidth(w)+2 > width:
				b.WriteString(cur + " \\\n")
				cur = lead + "    " + w
			default:
				cur += " " + w
			}
		}
		b.WriteString(cur)
	}
	return b.String()
}

// exampleWords are an example's words as sh splits them at blanks, a '...' quoted part
// (quotes kept) within its word.
func exampleWords(l string) []string {
	var words []string
	var cur strings.Builder
	quoted := false
	for _, r := range l {
		switch {
		case r == '\'':
			quoted = !quoted
			cur.WriteRune(r)
		case !quoted && (r == ' ' || r == '\t'):
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}
