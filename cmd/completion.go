package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Shell completion: flag values and arguments complete from the values the tool accepts,
// store arguments as directories (a store is one), and the values a store holds (tenant
// ids and ordinals, dead-letter refs, the families it has, its checkpoints) from
// the store the command line names by storeRule (--store, the STORE argument when it comes
// first on the line, $ANKUSA_STORE). Cobra serves them through its hidden __complete
// command, which the scripts of `ankusa-store completion` call.
//
// What a store holds reaches the shell's candidate list and the terminal under it, so it
// goes through the escaping of every other output (safetext): a description is escaped, and
// a value that would need escaping (ESC, BEL, NUL, a bidi override in a tenant id) is not
// offered as typed, since an escaped value would name nothing: a tenant is offered as its
// @N instead, with its id escaped beside it (candidate, fromStore).
//
// A completion from a store is read-only (the store is opened as every view opens it) and
// bounded: it gives up after completionBudget, offering nothing rather than making the
// shell wait, and offers at most completionMax values.
var (
	completionBudget = 2 * time.Second
	completionMax    = 2000
)

func registerGlobalCompletions(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("output", fixedValues("table", "tsv", "json"))
	_ = root.RegisterFlagCompletionFunc("progress", fixedValues(progressModes...))
}

// fixedValues completes a flag or argument from a fixed list.
func fixedValues(vals ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return vals, cobra.ShellCompDirectiveNoFileComp
	}
}

// dirFlag completes a flag that names a directory (a checkpoint, a backup).
func dirFlag(c *cobra.Command, name string) {
	_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
}

// storeCompletions gives a command that takes a store (storeArg) its completions: each
// positional argument by its name in the Use line (TENANT, SEQ[:SINK], FAMILY, STORE) and
// its --tenant flag, from the store.
func storeCompletions(c *cobra.Command, names []string, at func() int) {
	if c.Flags().Lookup("tenant") != nil {
		_ = c.RegisterFlagCompletionFunc("tenant", func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return fromStore(storeOf(c, args, at()), func(ctx context.Context, st *rocks.Store) []cobra.Completion {
				return tenantCompletions(ctx, st, toComplete)
			})
		})
	}
	byName := map[string]func(ctx context.Context, st *rocks.Store, toComplete string) []cobra.Completion{
		"TENANT":     tenantCompletions,
		"SEQ[:SINK]": refCompletions,
	}
	c.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		n := at()
		switch {
		case len(args) == n && !c.Flags().Changed("store"):
			return nil, cobra.ShellCompDirectiveFilterDirs
		case len(args) >= n || len(args) >= len(names):
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		name := names[len(args)]
		if name == "FAMILY" {
			return familyCompletions(storeOf(c, args, n), toComplete)
		}
		if f := byName[name]; f != nil {
			return fromStore(storeOf(c, args, n), func(ctx context.Context, st *rocks.Store) []cobra.Completion {
				return f(ctx, st, toComplete)
			})
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// fromStore opens store read-only and completes from it, within completionBudget.
func fromStore(store string, f func(ctx context.Context, st *rocks.Store) []cobra.Completion) ([]cobra.Completion, cobra.ShellCompDirective) {
	// An archive would be extracted first: too slow to offer anything in time.
	if store == "" || isArchive(store) || !looksLikeStore(store) {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(context.Background(), completionBudget)
	defer cancel()
	done := make(chan []cobra.Completion, 1)
	go func() {
		st, err := rocks.OpenStore(store, rocks.Options{Mode: rocks.ReadOnly})
		if err != nil {
			done <- nil
			return
		}
		defer st.Close()
		done <- f(ctx, st)
	}()
	select {
	case out := <-done:
		// The one way out for what a store holds: candidate made each; "" is one not offered.
		return slices.DeleteFunc(out, func(c cobra.Completion) bool { return c == "" }), cobra.ShellCompDirectiveNoFileComp
	case <-ctx.Done():
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// candidate is one completion of a value from a store, with its description: the
// description escaped as every output is (safeLine), and "" (not offered) for a value that
// is not its own safe text: the shell would insert it raw, and an escaped one names nothing.
func candidate(value, desc string) cobra.Completion {
	if value == "" || safeLine(value) != value {
		return ""
	}
	if desc == "" {
		return value
	}
	return cobra.CompletionWithDesc(value, safeLine(desc))
}

// boundedScan ends a completion's scan at its deadline or its count.
func boundedScan(ctx context.Context, n int) error {
	if ctx.Err() != nil || n >= completionMax {
		return rocks.Stop
	}
	return nil
}

// tenantCompletions: ids with their ordinal (format 3), or @N (#N) with the id when @N
// (#N) is being typed; on format 2 the tenants of the hooks read within the budget. The
// tenants come from the resolver's own listing (inspect.EachTenantByID, EachTenantByOrd),
// which is what a typed tenant is resolved against. A #N or @N that reaches it behind the
// quote or backslash that hid # from the shell ('#2, "#2, \#2: zsh passes the word as
// typed; bash's script, completionBash, passes what the word holds) is completed after
// it, each candidate led by the same character, so that the shell's own filter keeps it.
func tenantCompletions(ctx context.Context, st *rocks.Store, toComplete string) []cobra.Completion {
	var out []cobra.Completion
	if st.Migrating {
		return nil
	}
	lead := ""
	if len(toComplete) > 1 && strings.ContainsRune(`'"\`, rune(toComplete[0])) && strings.ContainsRune(inspect.OrdinalSigils, rune(toComplete[1])) {
		lead, toComplete = toComplete[:1], toComplete[1:]
	}
	if st.Format == format.Format2 {
		seen := map[string]bool{}
		_ = inspect.EachTenantByID(ctx, st, toComplete, func(t format.Tenant) error {
			if !seen[t.ID] {
				seen[t.ID] = true
				// No @N on format 2 to stand in for an id that is not safe text.
				out = append(out, candidate(t.ID, ""))
			}
			return boundedScan(ctx, len(out))
		})
		slices.Sort(out)
		return out
	}
	if toComplete != "" && strings.ContainsRune(inspect.OrdinalSigils, rune(toComplete[0])) {
		sigil := toComplete[:1]
		_ = inspect.EachTenantByOrd(ctx, st, func(t format.Tenant) error {
			ref := fmt.Sprintf("%s%d", sigil, t.Ord)
			if strings.HasPrefix(ref, toComplete) {
				out = append(out, candidate(lead+ref, t.ID))
			}
			return boundedScan(ctx, len(out))
		})
		return out
	}
	_ = inspect.EachTenantByID(ctx, st, toComplete, func(t format.Tenant) error {
		desc := ""
		if t.HasOrd() {
			desc = fmt.Sprintf("@%d", t.Ord)
		}
		c := candidate(t.ID, desc)
		if c == "" && desc != "" && toComplete == "" {
			// An id the shell must not get raw: its @N, which names the same tenant.
			c = candidate(desc, t.ID)
		}
		out = append(out, c)
		return boundedScan(ctx, len(out))
	})
	return out
}

// refCompletions: the refs of the newest dead letters, with their tenant and hook id.
func refCompletions(ctx context.Context, st *rocks.Store, toComplete string) []cobra.Completion {
	if st.Migrating {
		return nil
	}
	page, err := inspect.ScanDLQ(ctx, st, inspect.DLQOptions{Limit: completionMax})
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, r := range page.Rows {
		if strings.HasPrefix(r.Ref, toComplete) {
			out = append(out, candidate(r.Ref, r.Tenant+" "+r.HookID))
		}
	}
	return out
}

// familyCompletions: what scan takes, narrowed to the families of the store's format when
// the line names a store that opens.
func familyCompletions(store, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	all := inspect.ScanTargets()
	out, dir := fromStore(store, func(_ context.Context, st *rocks.Store) []cobra.Completion {
		fams := format.FamiliesOf(st.Format)
		if st.Migrating {
			fams = format.AllFamilies()
		}
		var out []cobra.Completion
		for _, f := range fams {
			out = append(out, f.Name)
		}
		for _, t := range all {
			if strings.HasPrefix(t, "cf:") || !slices.ContainsFunc(format.AllFamilies(), func(f format.Family) bool { return f.Name == t }) {
				out = append(out, t)
			}
		}
		return out
	})
	if out == nil {
		out = all
	}
	var match []cobra.Completion
	for _, v := range out {
		if strings.HasPrefix(v, toComplete) {
			match = append(match, v)
		}
	}
	return match, dir
}

// completeCheckpointPaths (checkpoints rm): the checkpoints of $ANKUSA_STORE, with what
// took them; directories when no store is named or it has none.
func completeCheckpointPaths(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	store := storeOf(c, nil, -1)
	if store == "" || isArchive(store) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	var out []cobra.Completion
	now := time.Now()
	for _, cp := range inspect.FindCheckpoints(store, nil, now) {
		if strings.HasPrefix(cp.Path, toComplete) && !slices.Contains(args, cp.Path) && len(out) < completionMax {
			out = append(out, cobra.CompletionWithDesc(cp.Path, checkpointTaker(cp)+", "+humanAge(cp.AgeMS)+" old"))
		}
	}
	if len(out) == 0 {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
