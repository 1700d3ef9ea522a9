package ui

import (
	"bytes"
	"testing"
)

// The one printer of notes and warnings: -q drops a note and never a warning; what a note
// quotes is escaped; a line is fitted to stderr's terminal; a warning's label is painted.
func TestNotes(t *testing.T) {
	long := "the record names /var/lib/ankusa/store.pre-migrate-20261130T100000Z: not counted as a checkpoint"
	for _, tc := range []struct {
		name  string
		notes Notes
		say   func(Notes)
		want  string
	}{
		{"note", Notes{}, func(n Notes) { n.Note("no dead letters match") }, "note: no dead letters match\n"},
		{"note under -q", Notes{Quiet: true}, func(n Notes) { n.Note("no dead letters match") }, ""},
		{"warning under -q", Notes{Quiet: true}, func(n Notes) { n.Warn("the stores changed") }, "warning: the stores changed\n"},
		{"warning painted", Notes{Label: func(s string) string { return "<" + s + ">" }}, func(n Notes) { n.Warn("x") }, "<warning:> x\n"},
		{"escaped", Notes{}, func(n Notes) { n.Notef("tenant %s", "a\x1b[2Jb") }, "note: tenant a\\x1b[2Jb\n"},
		{"whole without a terminal", Notes{}, func(n Notes) { n.Note(long) }, "note: " + long + "\n"},
		{"fitted to the terminal", Notes{Width: 60}, func(n Notes) { n.Note(long) },
			"note: the record names\n  /var/lib/ankusa/store.pre-migrate-20261130T100000Z: not\n  counted as a checkpoint\n"},
		{"above the live line", Notes{Above: nil}, func(n Notes) {
			n.Above = func(s string) { n.Err.(*bytes.Buffer).WriteString("[above]" + s) }
			n.Note("x")
		}, "[above]note: x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.notes.Err = &b
			tc.say(tc.notes)
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}
