package clidoc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/ankusa/ankusa-store/internal/exitcode"
)

// ManRelease is what a man page's header says of the release it documents: its version
// and its date (the release commit's), never the day the page was generated, so that one
// release makes the same pages whenever it is built.
type ManRelease struct {
	Version string
	Date    time.Time
}

// manHeader is a page's .TH line: its own name as title (ANKUSA-STORE-MIGRATE), section 1,
// the release's month, the tool and version as source, and the manual it belongs to.
func manHeader(c *cobra.Command, rel ManRelease) *doc.GenManHeader {
	date := rel.Date.UTC()
	return &doc.GenManHeader{
		Title:   strings.ToUpper(strings.ReplaceAll(c.CommandPath(), " ", "-")),
		Section: "1",
		Date:    &date,
		Source:  c.Root().Name() + " " + rel.Version,
		Manual:  "Ankusa Store Manual",
	}
}

// ManPages writes one man page per command under root into dir, each with an EXIT STATUS
// section (cobra's pages have none), its header for rel (manHeader).
func ManPages(dir string, root *cobra.Command, rel ManRelease) error {
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		for _, s := range c.Commands() {
			if !s.IsAvailableCommand() || s.IsAdditionalHelpTopicCommand() {
				continue
			}
			if err := walk(s); err != nil {
				return err
			}
		}
		var b bytes.Buffer
		if err := doc.GenMan(c, manHeader(c, rel), &b); err != nil {
			return err
		}
		page := insertManSection(b.String(), "EXIT STATUS", manExitStatus())
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		return os.WriteFile(filepath.Join(dir, name), []byte(page), 0o644)
	}
	return walk(root)
}

// insertManSection puts a section before SEE ALSO (or at the end).
func insertManSection(page, title, body string) string {
	sec := ".SH " + title + "\n" + body
	if i := strings.Index(page, ".SH SEE ALSO"); i >= 0 {
		return page[:i] + sec + page[i:]
	}
	return page + sec
}

// manExitStatus is exitcode.Help as roff: one tagged paragraph per code.
func manExitStatus() string {
	var b strings.Builder
	lines := strings.Split(exitcode.Help, "\n")
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		code, text, ok := strings.Cut(l, " ")
		if !ok || code == "" || code[0] < '0' || code[0] > '9' {
			b.WriteString(".PP\n" + l + "\n")
			continue
		}
		b.WriteString(".TP\n.B " + code + "\n" + strings.TrimSpace(text) + "\n")
	}
	return b.String()
}
