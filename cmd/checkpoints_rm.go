package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { registerSchema("ankusa-store checkpoints rm", checkpointsRmOutput{}) }

type checkpointsRmOptions struct {
	paths []string
	yes   bool
}

// checkpointsRmOutput is checkpoints rm's JSON: what was (with --yes) or would be removed.
type checkpointsRmOutput struct {
	Removed     bool                 `json:"removed"`
	Checkpoints []inspect.Checkpoint `json:"checkpoints"`
	// OwnBytes is what the removal freed (or frees).
	OwnBytes uint64 `json:"own_bytes"`
}

func newCheckpointsRmCmd(env *Env) *cobra.Command {
	opts := &checkpointsRmOptions{}
	c := &cobra.Command{
		Use:   "rm [flags] PATH...",
		Short: "Remove checkpoints the tool took (needs --yes)",
		Long: `rm removes checkpoints this tool took, as checkpoints ls lists them: each PATH must be a
directory holding the marker of the command that took it (ANKUSA-MIGRATION-CHECKPOINT,
ANKUSA-REPAIR-CHECKPOINT), or one named by their rules next to its store
(STORE.backup-<time>, STORE.pre-repair-<time>) that holds a RocksDB store. Anything
else is refused, and so is a checkpoint that was restored as its store (its marker
names the directory itself), the store $ANKUSA_STORE names, and migrate's checkpoint of
a store still mid-migration (the only copy of the store as it was): nothing is removed
unless every PATH passes. The path is then dropped from its store's record.

Without --yes it says what it would remove and what that frees, and exits 2.

A checkpoint is a copy of the store as it was: remove the migration's once the
migrated store has been verified (counters verify) and the node runs on it.`,
		Example: `  ankusa-store checkpoints rm --yes /backups/store-pre-v3`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("%s takes PATH: the checkpoint to remove (checkpoints ls lists them)", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.paths = args
			return runCheckpointsRm(c.Context(), env, opts)
		},
	}
	c.Flags().BoolVar(&opts.yes, "yes", false, "remove them (without it, say what would be removed)")
	c.ValidArgsFunction = completeCheckpointPaths
	return c
}

func runCheckpointsRm(ctx context.Context, env *Env, opts *checkpointsRmOptions) error {
	var out checkpointsRmOutput
	var stores []string
	for _, p := range opts.paths {
		cp, store, err := checkRemovable(p, env)
		if err != nil {
			return err
		}
		out.Checkpoints = append(out.Checkpoints, cp)
		out.OwnBytes += cp.OwnBytes
		stores = append(stores, store)
	}
	if !opts.yes {
		for _, c := range out.Checkpoints {
			fmt.Fprintln(env.IO.Err, safeLine(fmt.Sprintf("would remove %s (%s, taken %s, frees %s)", c.Path, checkpointTaker(c), c.TakenAt.Format(viewTimeLayout), HumanBytes(c.OwnBytes))))
		}
		return usageErr("checkpoints rm removes them: add --yes to go ahead (nothing was removed)")
	}
	env.finishWork = true
	for i, c := range out.Checkpoints {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := removeAside(c.Path); err != nil {
			return &ExitError{Code: ExitStore, Err: err}
		}
		if err := forgetCheckpoint(stores[i], c.Path); err != nil {
			fmt.Fprintln(env.IO.Err, safeLines(fmt.Sprintf("warning: removed %s, but could not drop it from %s's record: %v", c.Path, stores[i], err)))
		}
	}
	out.Removed = true
	return env.render(out, func() Rows {
		rows := Rows{Columns: []Column{{Header: "Removed", Name: "path"}, {Header: "Taken by"}, {Header: "Freed", Name: "own_bytes", Right: true}}}
		for _, c := range out.Checkpoints {
			rows.Add(Text(c.Path), Text(checkpointTaker(c)), Cell{Human: HumanBytes(c.OwnBytes), Plain: fmt.Sprint(c.OwnBytes)})
		}
		return rows
	})
}

func checkpointTaker(c inspect.Checkpoint) string {
	if c.TakenBy != "" {
		return c.TakenBy
	}
	return "unknown (" + c.Kind + ")"
}

// checkRemovable says whether path is, by every check, an idle checkpoint this tool took of a
// store that is there, opens and is not mid-migration, and of which store. It fails closed:
// whatever it cannot prove is refused, with the reason.
//
//   - path is the checkpoint's own directory, not a symlink to one; symlinks in its parents
//     are resolved, and so is the store its marker names, so no spelling of a path slips by.
//   - Its marker (or, without one, its STORE.backup-<time> / STORE.pre-repair-<time> name next
//     to a store) says what it is a checkpoint of; a marker that is empty or does not decode
//     proves nothing.
//   - It is not the store itself, nor $ANKUSA_STORE, under any spelling (a checkpoint restored
//     in place keeps its marker).
//   - No process holds its LOCK (the probe migrate makes): a node or a paused migrate that
//     runs on it makes it a live store.
//   - It has not been opened for writing since its marker was written: its CURRENT and
//     MANIFEST files are not newer than the marker (a copy of a checkpoint that was migrated
//     and used as a store keeps the old marker, naming the store it was taken of).
//   - Its store is there, opens read-only, and is not mid-migration: otherwise the
//     checkpoint may be the only good copy of the store.
func checkRemovable(path string, env *Env) (inspect.Checkpoint, string, error) {
	refuse := func(format string, args ...any) (inspect.Checkpoint, string, error) {
		return inspect.Checkpoint{}, "", usageErr(format+": refused (nothing was removed)", args...)
	}
	abs := absStore(path)
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return inspect.Checkpoint{}, "", usageErr("%s does not exist", path)
	case err != nil:
		return inspect.Checkpoint{}, "", usageErr("%s: %v", path, errors.Unwrap(err))
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := filepath.EvalSymlinks(abs)
		return refuse("%s is a symlink (to %s), not a checkpoint's own directory: name the directory itself", path, target)
	case !fi.IsDir():
		return refuse("%s is not a directory, so no checkpoint", path)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return refuse("%s: cannot resolve its path: %v", path, err)
	}
	if s := os.Getenv(storeEnv); s != "" {
		if rs, err := filepath.EvalSymlinks(absStore(s)); err == nil && rs == real {
			return refuse("%s is the store $%s names, not a checkpoint", path, storeEnv)
		}
	}
	var store string
	migrateCP := false
	markPath := ""
	if by, m, ok := inspect.ReadCheckpointMark(real); ok {
		if m.Store == "" || !filepath.IsAbs(m.Store) {
			return refuse("%s holds a checkpoint marker that is empty or does not decode: it proves nothing", path)
		}
		store, migrateCP = m.Store, by == "migrate"
		markPath = filepath.Join(real, inspect.MigrationMark)
		if by != "migrate" {
			markPath = filepath.Join(real, inspect.RepairMark)
		}
	} else if s, kind, ok := inspect.CheckpointNameRule(real); ok && looksLikeStore(real) {
		store, migrateCP = s, kind == "backup"
	} else {
		return refuse("%s is not a checkpoint this tool took (no %s or %s marker in it, and no STORE.backup-<time> or STORE.pre-repair-<time> name with a store inside)", path, inspect.MigrationMark, inspect.RepairMark)
	}
	storeReal, err := filepath.EvalSymlinks(store)
	if err != nil {
		return refuse("%s is a checkpoint of %s, which is not there (moved or removed): it may be the only copy of that store", path, filepath.Clean(store))
	}
	if storeReal == real {
		return refuse("%s is a checkpoint restored as its store (its marker names it)", path)
	}
	if err := rocks.ProbeLock(real); err != nil {
		if errors.Is(err, rocks.ErrLocked) {
			return inspect.Checkpoint{}, "", &ExitError{Code: ExitLocked, Err: fmt.Errorf("%s is in use as a store: %w: refused (nothing was removed)", path, err)}
		}
		return inspect.Checkpoint{}, "", &ExitError{Code: ExitStore, Err: fmt.Errorf("%s: %w: refused (nothing was removed)", path, err)}
	}
	if markPath != "" {
		if used := writtenSince(real, markPath); used != "" {
			return refuse("%s has been opened for writing since it was taken (its %s is newer than its marker): it is in use as a store, not a checkpoint", path, used)
		}
	}
	st, err := rocks.OpenStore(storeReal, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return inspect.Checkpoint{}, "", &ExitError{Code: ExitStore, Err: fmt.Errorf("%s is a checkpoint of %s, which does not open (%w): it may be the only good copy of the store: refused (nothing was removed)", path, filepath.Clean(store), err)}
	}
	mid := st.Migrating
	st.Close()
	if mid && migrateCP {
		return refuse("%s is migrate's checkpoint of %s, which is mid-migration: it is the only copy of the store as it was; finish the migration (the same migrate command again) and verify it first", path, filepath.Clean(store))
	}
	if mid {
		return refuse("%s is a checkpoint of %s, which is mid-migration: finish the migration and verify it first", path, filepath.Clean(store))
	}
	for _, c := range inspect.FindCheckpoints(storeReal, []string{real}, env.Now()) {
		if c.Path == real {
			return c, storeReal, nil
		}
	}
	return refuse("%s: not found as a checkpoint of %s", path, filepath.Clean(store))
}

// writtenSince names the first of dir's CURRENT and MANIFEST files modified after the marker
// file mark was, "" when none was: RocksDB writes both at every read-write open.
func writtenSince(dir, mark string) string {
	mfi, err := os.Stat(mark)
	if err != nil {
		return "marker (unreadable)"
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "directory (unreadable)"
	}
	for _, e := range ents {
		n := e.Name()
		if n != "CURRENT" && !strings.HasPrefix(n, "MANIFEST-") {
			continue
		}
		fi, err := e.Info()
		if err == nil && fi.ModTime().After(mfi.ModTime()) {
			return n
		}
	}
	return ""
}

// removeAside removes the checkpoint dir crash-safely: it is first renamed, in its parent, to
// a dot-name that no rule lists (so a kill leaves either the checkpoint, whole, or nothing
// that checkpoints ls, status or completion offer), then removed. A failure says what is
// where.
func removeAside(dir string) error {
	aside := filepath.Join(filepath.Dir(dir), fmt.Sprintf(".%s.ankusa-removing-%d", filepath.Base(dir), os.Getpid()))
	if err := os.Rename(dir, aside); err != nil {
		return fmt.Errorf("removing %s: could not set it aside (%w); nothing was removed", dir, err)
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("removing %s: it was set aside as %s (no longer a checkpoint anything lists) and partly removed; what is left is there: remove it by hand (rm -rf): %w", dir, aside, err)
	}
	return nil
}
