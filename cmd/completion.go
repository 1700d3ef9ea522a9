package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
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
// A completion from a store is read-only and bounded: it opens only the column families it
// reads (never a replay of the whole WAL into memory), gives up after completionBudget,
// offering nothing (or what a cut-short read found) rather than making the shell wait, and
// says so; it offers at most completionMax values.
var (
	completionBudget = 2 * time.Second
	completionMax    = 2000
	// completionWALMax is the most WAL a completion reads: past it, it reads the store's
	// tables alone (rocks.Options.SkipWAL) and says that the newest writes may be missing.
	// 64 MiB of a node's WAL is well inside the budget on a loaded machine, even read whole.
	completionWALMax int64 = 64 << 20
)

func registerGlobalCompletions(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("output", fixedValues("table", "tsv", "json"))
	_ = root.RegisterFlagCompletionFunc("progress", fixedValues(progress.Modes...))
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
			return fromStore(c, storeOf(c, args, at()), tenantFamilies, func(ctx context.Context, st *rocks.Store, gaveUp func(string)) []cobra.Completion {
				return tenantCompletions(ctx, st, toComplete)
			})
		})
	}
	c.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		n := at()
		switch {
		case len(args) == n && !c.Flags().Changed("store"):
			return nil, cobra.ShellCompDirectiveFilterDirs
		case len(args) >= n || len(args) >= len(names):
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		store := storeOf(c, args, n)
		switch names[len(args)] {
		case "FAMILY":
			return familyCompletions(c, store, toComplete)
		case "TENANT":
			return fromStore(c, store, tenantFamilies, func(ctx context.Context, st *rocks.Store, gaveUp func(string)) []cobra.Completion {
				return tenantCompletions(ctx, st, toComplete)
			})
		case "SEQ[:SINK]":
			return fromStore(c, store, refFamilies, func(ctx context.Context, st *rocks.Store, gaveUp func(string)) []cobra.Completion {
				return refCompletions(ctx, st, toComplete, gaveUp)
			})
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// The column families each completion reads, from the families the store lists: only
// those are opened (rocks.Options.Families), so that the open puts only their part of the
// WAL into memory. A node writes its hooks, deliveries and index all the time and its
// tenants seldom: a store with hundreds of MiB of WAL opened whole spent the budget
// replaying it (issue 31). The metadata family is always open (the format guard).
func tenantFamilies(listed []string) []string {
	if slices.Contains(listed, format.CFTenants) {
		return []string{format.CFTenants} // format 3: the n and t rows
	}
	return []string{format.CFHooks} // format 2: a tenant is the tenant of a hook
}

func refFamilies(listed []string) []string {
	if slices.Contains(listed, format.CFTenants) {
		return []string{format.FamDead.CF, format.CFTenants} // x, and the t rows that name its ordinals
	}
	return []string{format.FamDead.CF, format.CFHooks} // x, and the hooks that name its tenants
}

// fromStore opens the store dir read-only, with the column families fams picks from those it
// lists, and completes from it within completionBudget. When the budget runs out first it
// offers nothing and says so (gaveUp); f says so of a read it cut short.
func fromStore(c *cobra.Command, dir string, fams func(listed []string) []string,
	f func(ctx context.Context, st *rocks.Store, gaveUp func(string)) []cobra.Completion) ([]cobra.Completion, cobra.ShellCompDirective) {
	// An archive would be extracted first: too slow to offer anything in time.
	if dir == "" || isArchive(dir) || !looksLikeStore(dir) {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(context.Background(), completionBudget)
	defer cancel()
	type result struct {
		out  []cobra.Completion
		gave []string
	}
	done := make(chan result, 1)
	go func() {
		listed, err := rocks.ListFamilies(dir)
		if err != nil {
			done <- result{}
			return
		}
		var r result
		o := rocks.Options{Mode: rocks.ReadOnly, Families: fams(listed)}
		if wal := store.WALBytes(dir); wal > completionWALMax {
			o.SkipWAL = true
			r.gave = append(r.gave, fmt.Sprintf("completion: %s holds %s of WAL, more than completion reads: offered from its tables alone, without the writes since its last flush",
				dir, words.Bytes(int64(wal))))
		}
		// Its own options: no progress (the shell is waiting on stdout), no closing hook.
		h, err := store.Open(dir, store.Options{Options: o})
		if err != nil {
			done <- result{}
			return
		}
		defer h.Close()
		st := h.Store
		r.out = f(ctx, st, func(msg string) { r.gave = append(r.gave, msg) })
		done <- r
	}()
	select {
	case r := <-done:
		// The one way out for what a store holds: candidate made each; "" is one not offered.
		out := slices.DeleteFunc(r.out, func(c cobra.Completion) bool { return c == "" })
		for _, msg := range r.gave {
			out = gaveUp(c, out, msg)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	case <-ctx.Done():
		return gaveUp(c, nil, fmt.Sprintf("completion gave up: opening and reading %s took longer than %s: nothing offered", dir, completionBudget)), cobra.ShellCompDirectiveNoFileComp
	}
}

// gaveUp says that a completion stopped at its budget, or read less than the store holds: on stderr (which the shells' scripts
// drop, but a person running __complete, or cobra's BASH_COMP_DEBUG_FILE, sees), and as
// cobra's active help, which bash and zsh print under the prompt (ANKUSA_STORE_ACTIVE_HELP=0
// turns it off).
func gaveUp(c *cobra.Command, out []cobra.Completion, msg string) []cobra.Completion {
	fmt.Fprintln(c.ErrOrStderr(), msg)
	cobra.CompDebugln(msg, false)
	return cobra.AppendActiveHelp(out, msg)
}

// candidate is one completion of a value from a store, with its description: the
// description escaped as every output is (safeLine), and "" (not offered) for a value that
// is not its own safe text: the shell would insert it raw, and an escaped one names nothing.
func candidate(value, desc string) cobra.Completion {
	if value == "" || ui.SafeLine(value) != value {
		return ""
	}
	if desc == "" {
		return value
	}
	return cobra.CompletionWithDesc(value, ui.SafeLine(desc))
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
// typed; the scripts of completion_scripts.go pass what the word holds) is completed after
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

// refCompletions: the refs of the dead letters whose ref starts with what is typed, newest
// first, from the whole dead-letter set (the walk stops at the budget: what it found by then
// is offered, and completion says it gave up), with their tenant and hook id.
func refCompletions(ctx context.Context, st *rocks.Store, toComplete string, gaveUp func(string)) []cobra.Completion {
	if st.Migrating {
		return nil
	}
	// The walk leaves a quarter of the budget to name the tenants of what it found.
	walk, cancel := context.WithTimeout(ctx, completionBudget*3/4)
	defer cancel()
	rows, complete, err := inspect.DeadRefs(walk, st, toComplete, completionMax)
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, r := range rows {
		out = append(out, candidate(r.Ref, r.Tenant+" "+r.HookID))
	}
	if !complete {
		gaveUp(fmt.Sprintf("completion gave up: read part of the dead-letter set in %s: %d refs found until then", completionBudget*3/4, len(out)))
	}
	return out
}

// familyCompletions: what scan takes, narrowed to what the store has (its format's key
// families, the column families it holds: inspect.ScanTargetsOf) when the line names a
// store that opens.
func familyCompletions(c *cobra.Command, store, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out, dir := fromStore(c, store, func([]string) []string { return []string{} }, func(_ context.Context, st *rocks.Store, _ func(string)) []cobra.Completion {
		return inspect.ScanTargetsOf(st)
	})
	if out == nil {
		out = inspect.ScanTargets()
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
	for _, cp := range checkpoint.Find(store, nil, now) {
		if strings.HasPrefix(cp.Path, toComplete) && !slices.Contains(args, cp.Path) && len(out) < completionMax {
			out = append(out, cobra.CompletionWithDesc(cp.Path, checkpointTaker(cp)+", "+words.Age(cp.AgeMS)+" old"))
		}
	}
	if len(out) == 0 {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
