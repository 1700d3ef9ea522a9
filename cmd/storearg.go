package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// isArchive reports whether a store argument names a .tar.zst archive rather than a directory.
func isArchive(path string) bool { return store.IsArchive(path) }

// storeEnv names the default store, as RESTIC_REPOSITORY names restic's repository.
const storeEnv = "ANKUSA_STORE"

// storeRule is the one rule every command that takes a store follows; the root's help, the
// --store flag and docs/commands.md say it in these words.
const storeRule = `A command that reads or writes a store takes it one way of three: as its last argument
(STORE; or its first, before the arguments it follows), with --store STORE, or from
$ANKUSA_STORE when it is given neither. The argument and --store name the same thing:
both given and different is a usage error (exit 2), never a guess.`

const storeFlagUsage = "the store (a directory or a .tar.zst); the same as the STORE argument (default $" + storeEnv + ")"

// storeArg gives c its store by storeRule: c's positional arguments are the names after
// [flags] in its Use line, STORE last. The resolved store is appended to the arguments c's
// own Args and RunE see, so a command reads args[len-1] as it always did.
func storeArg(c *cobra.Command) {
	names := cmdutil.Positionals(c.Use)
	storeArgAt(c, func() int { return len(names) - 1 })
}

// storeArgUnless is storeArg for a command whose flag replaces the arguments before STORE
// (dlq show --id HOOK_ID takes STORE only).
func storeArgUnless(c *cobra.Command, flag string) {
	names := cmdutil.Positionals(c.Use)
	storeArgAt(c, func() int {
		if f := c.Flags().Lookup(flag); f != nil && f.Changed {
			return 0
		}
		return len(names) - 1
	})
}

// storeArgAt is storeArg for a command whose arguments before STORE depend on its flags:
// at returns how many come before it.
func storeArgAt(c *cobra.Command, at func() int) {
	var flagStore string
	c.Flags().StringVar(&flagStore, "store", "", storeFlagUsage)
	dirFlag(c, "store")
	storeCompletions(c, cmdutil.Positionals(c.Use), at)
	args, run := c.Args, c.RunE
	c.Args = func(c *cobra.Command, a []string) error {
		a, err := resolveStoreArg(c, a, at(), flagStore)
		if err != nil {
			return err
		}
		if args != nil {
			return args(c, a)
		}
		return nil
	}
	c.RunE = func(c *cobra.Command, a []string) error {
		n := at()
		given := len(a) > n
		fromEnv := !given && !c.Flags().Changed("store") && os.Getenv(storeEnv) != ""
		a, err := resolveStoreArg(c, a, n, flagStore)
		if err != nil {
			return err
		}
		err = run(c, a)
		if fromEnv && err != nil && exitcode.Of(err) >= exitcode.Store && exitcode.Of(err) <= exitcode.Locked {
			// A store nobody typed on this line: say where it came from.
			return fmt.Errorf("%w (the store is $%s=%s)", err, storeEnv, os.Getenv(storeEnv))
		}
		return err
	}
}

// resolveStoreArg applies storeRule to the positional arguments a, of which n come before
// STORE: a store typed first is moved to STORE's place (storeTypedFirst).
func resolveStoreArg(c *cobra.Command, a []string, n int, flagStore string) ([]string, error) {
	flagSet := c.Flags().Changed("store")
	if flagSet && flagStore == "" {
		return nil, exitcode.Usagef("--store needs a store path")
	}
	switch {
	case len(a) > n:
		if i := storeTypedFirst(a, n); i >= 0 && len(a) == n+1 {
			a = append(slices.Delete(slices.Clone(a), i, i+1), a[i])
		}
		if flagSet && len(a) == n+1 && filepath.Clean(a[n]) != filepath.Clean(flagStore) {
			return nil, exitcode.Usagef("the store is given twice, as the argument %s and as --store %s: give one", a[n], flagStore)
		}
		return a, nil
	case len(a) == n:
		names := cmdutil.Positionals(c.Use)
		if i := slices.IndexFunc(a, looksLikeStore); i >= 0 && !flagSet && n < len(names) {
			// The store typed first, and an argument after it missing, whatever
			// $ANKUSA_STORE holds: the store is not the argument.
			return nil, exitcode.Usagef("%s", argMissingMsg(c.CommandPath(), names, names[n-1], a[i]))
		}
		if flagSet {
			return append(a[:n:n], flagStore), nil
		}
		if s := os.Getenv(storeEnv); s != "" {
			return append(a[:n:n], s), nil
		}
		if n > 0 && n < len(names) {
			return nil, exitcode.Usagef("%s", storeMissingMsg(c.CommandPath(), names))
		}
		return nil, exitcode.Usagef("%s", noStoreMsg(c.CommandPath()))
	default:
		names := cmdutil.Positionals(c.Use)
		if n < len(names) {
			missing := slices.Clone(names[len(a):n])
			if !flagSet && os.Getenv(storeEnv) == "" {
				missing = append(missing, "STORE")
			}
			return nil, exitcode.Usagef("%s", missingArgsMsg(c.CommandPath(), names, missing))
		}
		return nil, exitcode.Usagef("%s takes %d argument(s) before STORE, got %d", c.CommandPath(), n, len(a))
	}
}

// storeTypedFirst is where in a the STORE argument is when it was typed before the n
// arguments it follows (tenants show STORE acme), as an operator who names the store first
// types it: the first of those n that is a store, when the word in STORE's place is none
// (or is not typed yet, for completion); -1 when there is no such store. A line in the
// documented order is never read otherwise: its last word is a store.
func storeTypedFirst(a []string, n int) int {
	if len(a) > n && looksLikeStore(a[n]) {
		return -1
	}
	for i := range min(n, len(a)) {
		if looksLikeStore(a[i]) {
			return i
		}
	}
	return -1
}

// looksLikeStore: an archive file, or a directory with RocksDB's CURRENT file.
func looksLikeStore(p string) bool {
	if p == "" {
		return false
	}
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return isArchive(p)
	}
	_, err = os.Stat(filepath.Join(p, "CURRENT"))
	return err == nil
}

// optionalStoreArg is storeRule for a command that reads a store only when given one (keys
// decode): after its other arguments, which are key hex, the last argument is the store
// when it is not hex and names a path that exists; else --store, else $ANKUSA_STORE.
// It sets *dst and hands the command its arguments without the store.
func optionalStoreArg(c *cobra.Command, dst *string, isValue func(string) bool) {
	var flagStore string
	c.Flags().StringVar(&flagStore, "store", "", storeFlagUsage)
	dirFlag(c, "store")
	run := c.RunE
	c.RunE = func(c *cobra.Command, a []string) error {
		flagSet := c.Flags().Changed("store")
		if flagSet && flagStore == "" {
			return exitcode.Usagef("--store needs a store path")
		}
		*dst = ""
		if n := len(a); n > 1 && !isValue(a[n-1]) {
			if _, err := os.Stat(a[n-1]); err == nil {
				*dst, a = a[n-1], a[:n-1]
			}
		}
		switch {
		case *dst != "" && flagSet && filepath.Clean(*dst) != filepath.Clean(flagStore):
			return exitcode.Usagef("the store is given twice, as the argument %s and as --store %s: give one", *dst, flagStore)
		case *dst == "" && flagSet:
			*dst = flagStore
		case *dst == "":
			*dst = os.Getenv(storeEnv)
		}
		return run(c, a)
	}
}

// storeOf is the store a command line being completed names, by storeRule: --store, the
// argument at storeAt when it is there, else $ANKUSA_STORE; "" when none.
func storeOf(c *cobra.Command, args []string, storeAt int) string {
	if f := c.Flags().Lookup("store"); f != nil && f.Changed && f.Value.String() != "" {
		return f.Value.String()
	}
	if storeAt >= 0 && len(args) > storeAt {
		return args[storeAt]
	}
	return os.Getenv(storeEnv)
}
