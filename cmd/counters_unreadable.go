package cmd

import (
	"fmt"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
)

// How the views (status, tenants show, tenants ls) show a counter they could not read: as
// "unreadable", never as the zero it was left at, because a zero is a number an operator acts
// on ("nothing pending") and this one is unknown. The view is still printed (the rest of it is
// true), then the command exits 3 naming the first failed read.

// unreadableText is what an unreadable counter's cell says, for people and scripts alike: a
// script reading the column as a number fails on it instead of reading 0.
const unreadableText = "unreadable"

// counterCell is field f of c: a count, or unreadable.
func counterCell(c *inspect.TenantCounters, f format.Field) ui.Cell {
	if c.Unreadable(f) {
		return ui.Cell{Human: unreadableText, Plain: unreadableText, Color: ui.ColorRed}
	}
	v := c.Get(f)
	cell := ui.Int(v)
	if f == format.FieldBytes && v >= 0 {
		cell.Human = words.Bytes(int64(v))
	}
	return cell
}

// counterPlain is field f of c as status's one-line form writes it (digits, or unreadable).
func counterPlain(c *inspect.TenantCounters, f format.Field) string {
	if c.Unreadable(f) {
		return unreadableText
	}
	return fmt.Sprint(c.Get(f))
}

// optCell is a number that may be unknown (nil): a sum of counters one of which could not be read.
func optCell(v *int64) ui.Cell {
	if v == nil {
		return ui.Cell{Human: unreadableText, Plain: unreadableText, Color: ui.ColorRed}
	}
	return ui.Int(*v)
}

// countersUnreadableErr is the error a view returns after it showed unreadable counters:
// exit 3, classed by the first failed read (corruption, for a damaged table or a value that
// is not an integer), with that read's message, which names the table file.
func countersUnreadableErr(what string, n int, first error) error {
	return &exitcode.Error{Code: exitcode.Store, Err: fmt.Errorf("%s: %s could not be read (shown as %s): %w",
		what, words.Count(int64(n), "counter", "counters"), unreadableText, first)}
}
