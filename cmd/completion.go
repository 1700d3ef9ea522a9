package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
	"github.com/ankusa/ankusa-store/pkg/tenant"
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
// reads (never a replay of the whole WAL into memory), gives up after its budget,
// offering nothing (or what a cut-short read found) rather than making the shell wait, and
// says so; it offers at most a few values for an empty word and more for one typed in
// part (completionBounds), and says how to get the others (issue 46: zsh took 30 s to show the
// 2,000 tenants an empty word was offered, bash asked whether to show them all).
//
// Without a store on the line or in $ANKUSA_STORE it says how to name one (noStoreHint),
// and a STORE typed before the arguments it follows (tenants show STORE <TAB>) is the
// store: completion takes the words in whatever order an operator types them, as the
// commands do (storeTypedFirst).
//
// completionBounds are those bounds: the defaults but in tests, which set them on the Env
// (Env.completion) rather than in package variables every test of cmd shared.
type completionBounds struct {
	// budget is under a second with the shell's own work and the start of the process:
	// an operator's TAB never waits longer, whatever the store.
	budget time.Duration
	// few: an empty word (or a bare @ or #) is offered the first tenants by ordinal, the
	// newest dead letters; a screenful, with a hint to type a prefix.
	few int
	// max: a word typed in part is offered at most this many, fewer than bash
	// (completion-query-items) and zsh (LISTMAX) list without asking first (100).
	max int
	// walMax is the most WAL a completion reads: past it, it reads the store's tables
	// alone (rocks.Options.SkipWAL) and says that the newest writes may be missing. 64 MiB
	// of a node's WAL is well inside the budget on a loaded machine, even read whole.
	walMax int64
}

// defaultCompletionBounds are the bounds of every completion but a test's.
func defaultCompletionBounds() completionBounds {
	return completionBounds{budget: 750 * time.Millisecond, few: 20, max: 50, walMax: 64 << 20}
}

// completionBoundsKey carries Env.completion in the context of the command line being
// completed: a completion function gets a cobra command, not the Env, and cobra hands the
// __complete command's context on to the command being completed.
type completionBoundsKey struct{}

// withCompletionBounds is ctx carrying b.
func withCompletionBounds(ctx context.Context, b completionBounds) context.Context {
	return context.WithValue(ctx, completionBoundsKey{}, b)
}

// boundsOf is the bounds the command line's Env set (Env.completion), or the defaults
// where it set none.
func boundsOf(c *cobra.Command) completionBounds {
	if ctx := c.Context(); ctx != nil {
		if b, ok := ctx.Value(completionBoundsKey{}).(completionBounds); ok && b != (completionBounds{}) {
			return b
		}
	}
	return defaultCompletionBounds()
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
			store, _, _ := completionStore(c, args, at())
			return fromStore(c, store, tenantFamilies, func(ctx context.Context, st *rocks.Store, say func(string)) []cobra.Completion {
				return tenantCompletions(ctx, st, boundsOf(c), toComplete, say)
			})
		})
	}
	c.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		n := at()
		store, before, first := completionStore(c, args, n)
		switch {
		case !first && len(args) == n && !c.Flags().Changed("store"):
			return nil, cobra.ShellCompDirectiveFilterDirs
		case len(before) >= n || len(before) >= len(names):
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		dir := cobra.ShellCompDirectiveNoFileComp
		switch {
		case store == "" && looksLikePath(toComplete):
			// No store yet, and a path being typed: the store, typed first.
			return nil, cobra.ShellCompDirectiveFilterDirs
		case names[len(before)] == "FAMILY":
			out, dir = familyCompletions(c, store, toComplete)
		case names[len(before)] == "TENANT":
			out, dir = fromStore(c, store, tenantFamilies, func(ctx context.Context, st *rocks.Store, say func(string)) []cobra.Completion {
				return tenantCompletions(ctx, st, boundsOf(c), toComplete, say)
			})
		case names[len(before)] == "SEQ[:SINK]":
			out, dir = fromStore(c, store, refFamilies, func(ctx context.Context, st *rocks.Store, say func(string)) []cobra.Completion {
				return refCompletions(ctx, st, boundsOf(c), toComplete, say)
			})
		}
		if looksLikePath(toComplete) && !slices.ContainsFunc(out, func(v cobra.Completion) bool { return strings.HasPrefix(v, toComplete) }) {
			// A path where no value of the store starts so: the store, typed first.
			return out, cobra.ShellCompDirectiveFilterDirs
		}
		return out, dir
	}
}

// noStoreHint is what completion says where it needs a store and the line names none.
const noStoreHint = "name the store: --store or $" + storeEnv

// completionStore is the store a command line being completed names (storeOf), or the
// STORE typed before the arguments it follows (tenants show STORE <TAB>: storeTypedFirst),
// with the arguments typed before STORE's place (the others but that store) and whether the
// store came first.
func completionStore(c *cobra.Command, args []string, n int) (store string, before []string, first bool) {
	if !c.Flags().Changed("store") {
		if i := storeTypedFirst(args, n); i >= 0 {
			return args[i], slices.Delete(slices.Clone(args), i, i+1), true
		}
	}
	return storeOf(c, args, n), args, false
}

// looksLikePath: a word that can only be a path being typed where a value is asked for
// (tenant ids and refs are no paths, but an id may hold a slash: completion offers the
// store's values first and a path only when none starts with the word).
func looksLikePath(w string) bool {
	return strings.HasPrefix(w, "/") || strings.HasPrefix(w, ".") || strings.HasPrefix(w, "~") || strings.Contains(w, "/")
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
// lists, and completes from it within its budget (boundsOf). When the budget runs out first it
// offers nothing and says so (gaveUp); f says what the shell should know of what it offers
// (a read it cut short, the values left out: say). With no store it says how to name one.
func fromStore(c *cobra.Command, dir string, fams func(listed []string) []string,
	f func(ctx context.Context, st *rocks.Store, say func(string)) []cobra.Completion) ([]cobra.Completion, cobra.ShellCompDirective) {
	if dir == "" {
		return cobra.AppendActiveHelp(nil, noStoreHint), cobra.ShellCompDirectiveNoFileComp
	}
	// An archive would be extracted first: too slow to offer anything in time.
	if isArchive(dir) || !looksLikeStore(dir) {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	b := boundsOf(c)
	ctx, cancel := context.WithTimeout(context.Background(), b.budget)
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
		if wal := store.WALBytes(dir); wal > b.walMax {
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
		return gaveUp(c, nil, fmt.Sprintf("completion gave up: opening and reading %s took longer than %s: nothing offered", dir, b.budget)), cobra.ShellCompDirectiveNoFileComp
	}
}

// gaveUp says that a completion stopped at its budget, or read less than the store holds,
// or offers fewer values than it has (a hint to type more): on stderr (which the shells' scripts
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

// limit is how many values a word is offered: few when nothing of it is typed yet (a
// bare @ or # is nothing of an ordinal), more when part of it is.
func (b completionBounds) limit(typed string) int {
	if typed == "" || (len(typed) == 1 && strings.ContainsRune(tenant.OrdinalSigils, rune(typed[0]))) {
		return b.few
	}
	return b.max
}

// bounded collects a completion's values up to limit: add ends the walk (rocks.Stop) at the
// value past it, which only says there are more (more), or at the deadline. A value that is
// not offered ("", candidate) is not counted.
type bounded struct {
	ctx   context.Context
	limit int
	out   []cobra.Completion
	more  bool
}

func (b *bounded) add(c cobra.Completion) error {
	switch {
	case b.ctx.Err() != nil:
		return rocks.Stop
	case c == "":
		return nil
	case len(b.out) == b.limit:
		b.more = true
		return rocks.Stop
	}
	b.out = append(b.out, c)
	return nil
}

// familyCompletions: what scan takes, narrowed to what the store has (its format's key
// families, the column families it holds: inspect.ScanTargetsOf) when the line names a
// store that opens.
func familyCompletions(c *cobra.Command, store, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	dir := cobra.ShellCompDirectiveNoFileComp
	if store != "" {
		// Without a store, every family scan takes: no hint to name one.
		out, dir = fromStore(c, store, func([]string) []string { return []string{} }, func(_ context.Context, st *rocks.Store, _ func(string)) []cobra.Completion {
			return inspect.ScanTargetsOf(st)
		})
	}
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
		if strings.HasPrefix(cp.Path, toComplete) && !slices.Contains(args, cp.Path) && len(out) < boundsOf(c).max {
			out = append(out, cobra.CompletionWithDesc(cp.Path, checkpointTaker(cp)+", "+words.Age(cp.AgeMS)+" old"))
		}
	}
	if len(out) == 0 {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
