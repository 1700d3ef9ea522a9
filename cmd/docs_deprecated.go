package cmd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// tsvRenamed lists TSV columns renamed for a unit in their name (TSV has no way to keep the
// old name beside the new one, so this list is the note scripts get).
var tsvRenamed = [][3]string{
	{"status", "sst_size", "sst_bytes"},
	{"status", "memtable", "memtable_bytes"},
	{"dlq scan", "size", "size_bytes"},
}

// deprecationsMarkdown is the page's list of old names that still work for a release:
// flags marked deprecated in the command tree, JSON fields whose jsondoc says
// "deprecated", and the TSV columns of tsvRenamed. It is generated, so that it cannot
// miss one the code keeps.
func deprecationsMarkdown(root *cobra.Command) string {
	var flags, fields []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Deprecated != "" {
				flags = append(flags, fmt.Sprintf("| `%s --%s` | %s |", c.CommandPath(), f.Name, f.Deprecated))
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for _, f := range clidoc.DeprecatedFields() {
		fields = append(fields, fmt.Sprintf("| `%s -o json` | `%s` | %s |", f.Command, f.Field, f.Note))
	}
	sort.Strings(flags)
	sort.Strings(fields)
	var b strings.Builder
	b.WriteString("## Deprecated names\n\nOld names that still work for one release, so that scripts keep running; " +
		"each has its new name, and using a flag prints a line on stderr.\n\n")
	b.WriteString("| flag | instead |\n|---|---|\n" + strings.Join(flags, "\n") + "\n\n")
	b.WriteString("| command | JSON field | note |\n|---|---|---|\n" + strings.Join(fields, "\n") + "\n\n")
	b.WriteString("TSV columns renamed to carry their unit (the header line is the place a script reads them):\n\n| command | was | is |\n|---|---|---|\n")
	for _, r := range tsvRenamed {
		fmt.Fprintf(&b, "| `%s` | `%s` | `%s` |\n", r[0], r[1], r[2])
	}
	b.WriteString("\n`migrate` piped without `-o` writes TSV (the summary as `field`/`value` rows, a blank line, the phase rows), " +
		"as every command does, where it drew the terminal's report; `-o table` draws it.\n\n")
	return b.String()
}
