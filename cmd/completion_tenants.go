package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenant"
)

// tenantCompletions: for an empty word the first tenants by ordinal (format 3; format 2:
// of the oldest hooks), ids with their @N; for a word typed in part the ids that start with
// it, in id order, or for @N (#N) being typed the ordinals that start so with the id beside
// each; past the limit a hint says to type more (say). The tenants come from the resolver's
// own listings (tenant.EachByID, EachTenantByOrdPrefix), which is what a typed tenant
// is resolved against; each read stops at the limit, so the work is the limit's, not the
// store's. A #N or @N that reaches it behind the quote or backslash that hid # from the
// shell ('#2, "#2, \#2: zsh passes the word as typed; the scripts of internal/shellcomp
// pass what the word holds) is completed after it, each candidate led by the same
// character, so that the shell's own filter keeps it.
func tenantCompletions(ctx context.Context, st *rocks.Store, bounds completionBounds, toComplete string, say func(string)) []cobra.Completion {
	if st.Migrating {
		return nil
	}
	lead := ""
	if len(toComplete) > 1 && strings.ContainsRune(`'"\`, rune(toComplete[0])) && strings.ContainsRune(tenant.OrdinalSigils, rune(toComplete[1])) {
		lead, toComplete = toComplete[:1], toComplete[1:]
	}
	b := &bounded{ctx: ctx, limit: bounds.limit(toComplete)}
	byOrd := toComplete != "" && strings.ContainsRune(tenant.OrdinalSigils, rune(toComplete[0]))
	switch {
	case st.Format == format.Format2:
		seen := map[string]bool{}
		_ = tenant.EachByID(ctx, st, toComplete, func(t format.Tenant) error {
			if seen[t.ID] {
				return nil
			}
			seen[t.ID] = true
			// No @N on format 2 to stand in for an id that is not safe text.
			return b.add(candidate(t.ID, ""))
		})
		slices.Sort(b.out)
	case byOrd:
		sigil := toComplete[:1]
		_ = tenant.EachByOrdPrefix(ctx, st, toComplete[1:], func(t format.Tenant) error {
			return b.add(candidate(fmt.Sprintf("%s%s%d", lead, sigil, t.Ord), t.ID))
		})
	case toComplete == "":
		_ = tenant.EachByOrd(ctx, st, func(t format.Tenant) error {
			ord := fmt.Sprintf("@%d", t.Ord)
			c := candidate(t.ID, ord)
			if c == "" {
				// An id the shell must not get raw: its @N, which names the same tenant.
				c = candidate(ord, t.ID)
			}
			return b.add(c)
		})
	default:
		_ = tenant.EachByID(ctx, st, toComplete, func(t format.Tenant) error {
			desc := ""
			if t.HasOrd() {
				desc = fmt.Sprintf("@%d", t.Ord)
			}
			return b.add(candidate(t.ID, desc))
		})
	}
	if b.more {
		say(moreTenantsHint(st.Format, toComplete, byOrd, b.limit))
	}
	return typedToo(b.out, b.more, lead+toComplete)
}

// typedToo adds to the values of a word typed in part that were cut at their limit the word
// itself: the shells insert what every value offered starts with, and the first hundred
// ids from "tenant-0" on all start "tenant-000", which the other thousands do not. It also
// carries the hint where a shell has no active help (fish: cobra turns it off there).
func typedToo(out []cobra.Completion, more bool, typed string) []cobra.Completion {
	if !more || typed == "" {
		return out
	}
	if c := candidate(typed, moreDesc); c != "" {
		out = append(out, c)
	}
	return out
}

// moreDesc describes the word typed, offered with values cut at their limit (typedToo).
const moreDesc = "and more: type more of it"

// moreTenantsHint: what an operator types to reach the tenants not offered.
func moreTenantsHint(storeFormat uint32, typed string, byOrd bool, shown int) string {
	switch {
	case byOrd && len(typed) == 1:
		return fmt.Sprintf("the first %d ordinals: type more digits for the others", shown)
	case byOrd:
		return fmt.Sprintf("the first %d ordinals that start %s: type more digits for the others", shown, ui.SafeLine(typed))
	case typed != "":
		return fmt.Sprintf("the first %d tenants that start %s: type more of the id for the others", shown, ui.SafeLine(typed))
	case storeFormat == format.Format2:
		return fmt.Sprintf("the first %d tenants of the oldest hooks: type the start of an id for the others", shown)
	}
	return fmt.Sprintf("the first %d tenants by ordinal: type the start of an id, or @ and an ordinal, for the others", shown)
}

// refCompletions: the refs of the dead letters whose ref starts with what is typed, newest
// first, from the whole dead-letter set (the walk stops at the budget: what it found by then
// is offered, and completion says it gave up), with their tenant and hook id; for an empty
// word the newest few. Past the limit a hint says to type more (say).
func refCompletions(ctx context.Context, st *rocks.Store, bounds completionBounds, toComplete string, say func(string)) []cobra.Completion {
	if st.Migrating {
		return nil
	}
	// The walk leaves a quarter of the budget to name the tenants of what it found.
	walk, cancel := context.WithTimeout(ctx, bounds.budget*3/4)
	defer cancel()
	limit := bounds.limit(toComplete)
	// One past the limit, which only says that there are more.
	rows, complete, err := inspect.DeadRefs(walk, st, toComplete, limit+1)
	if err != nil {
		return nil
	}
	more := len(rows) > limit
	var out []cobra.Completion
	for _, r := range rows[:min(len(rows), limit)] {
		out = append(out, candidate(r.Ref, r.Tenant+" "+r.HookID))
	}
	switch {
	case !complete:
		say(fmt.Sprintf("completion gave up: read part of the dead-letter set in %s: %d refs found until then", bounds.budget*3/4, len(out)))
	case more && toComplete == "":
		say(fmt.Sprintf("the newest %d dead letters: type the start of a seq for the others", limit))
	case more:
		say(fmt.Sprintf("the newest %d dead letters whose ref starts %s: type more of it for the others", limit, ui.SafeLine(toComplete)))
	}
	return typedToo(out, more, toComplete)
}
