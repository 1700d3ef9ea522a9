package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
)

func init() { clidoc.RegisterSchema("ankusa-store checkpoints rm", checkpointsRmOutput{}) }

type checkpointsRmOptions struct {
	paths []string
	yes   bool
}

// checkpointsRmOutput is checkpoints rm's JSON: what was (with --yes) or would be removed.
type checkpointsRmOutput struct {
	Removed     bool                    `json:"removed"`
	Checkpoints []checkpoint.Checkpoint `json:"checkpoints"`
	// OwnBytes is what the removal freed (or frees).
	OwnBytes uint64 `json:"own_bytes"`
	// Finished are the checkpoints whose removal, killed part way by an earlier run, this
	// run finished (or would finish): what that run had left set aside.
	Finished []string `json:"finished,omitempty"`
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

Nothing can race it into removing something else: the checkpoint's directory is
renamed aside and what the rename moved is checked again (the same directory, not a
link swapped in; its marker; not written since), its LOCK is held until it is gone (a
node that opens it meanwhile makes rm refuse, exit 4), and its files are removed
through the directory's descriptor, a link among them removed as a link, never
followed (docs/fileops.md). A removal killed part way leaves it set aside as
.NAME.ankusa-removing-PID, which nothing lists as a checkpoint; checkpoints ls and
status note it, and the same rm --yes PATH finishes it after making every check above
again on what was left.

Without --yes it says what it would remove and what that frees, and exits 2.

A checkpoint is a copy of the store as it was: remove the migration's once the
migrated store has been verified (counters verify) and the node runs on it.`,
		Example: `  ankusa-store checkpoints rm --yes /backups/store-pre-v3`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitcode.Usagef("%s takes PATH: the checkpoint to remove (checkpoints ls lists them)", c.CommandPath())
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
	var remove []checkpoint.Removable
	var finish []checkpoint.UnfinishedRemoval
	// Every PATH passes every check before anything is removed; a removal killed part way is
	// finished only where the checks of a first rm pass on what it left.
	for _, p := range opts.paths {
		if us := checkpoint.UnfinishedAt(p); len(us) > 0 {
			for _, u := range us {
				u, err := checkpoint.CheckFinish(u, protectedStore())
				if err != nil {
					return exitcode.Checkpoint(err)
				}
				finish = append(finish, u)
			}
			out.Finished = append(out.Finished, us[0].Dir)
			continue
		}
		r, err := checkRemovable(p, env)
		if err != nil {
			return err
		}
		remove = append(remove, r)
		out.Checkpoints = append(out.Checkpoints, r.Checkpoint)
		out.OwnBytes += r.OwnBytes
	}
	if !opts.yes {
		for _, c := range out.Checkpoints {
			fmt.Fprint(env.IO.Err, env.wrapPreview(fmt.Sprintf("would remove %s (%s, taken %s, frees %s)", c.Path, checkpointTaker(c), c.TakenAt.Format(viewTimeLayout), words.Bytes(int64(c.OwnBytes)))))
		}
		for _, u := range finish {
			fmt.Fprintln(env.IO.Err, ui.SafeLine(fmt.Sprintf("would finish removing %s: a removal (process %d, gone) left %s of it set aside as %s", u.Dir, u.PID, words.Bytes(int64(u.Bytes)), u.Aside)))
		}
		return exitcode.Usagef("checkpoints rm removes them: add --yes to go ahead (nothing was removed)")
	}
	env.setWrites(true)
	for _, r := range remove {
		if err := ctx.Err(); err != nil {
			return err
		}
		warning, err := checkpoint.Remove(r)
		if warning != "" {
			env.warn("%s", warning)
		}
		if err != nil {
			return exitcode.Checkpoint(err)
		}
	}
	for _, u := range finish {
		if err := ctx.Err(); err != nil {
			return err
		}
		warning, err := checkpoint.Finish(u)
		if warning != "" {
			env.warn("%s", warning)
		}
		if err != nil {
			return exitcode.Checkpoint(err)
		}
		out.OwnBytes += u.Bytes
		fmt.Fprintln(env.IO.Err, ui.SafeLine(fmt.Sprintf("finished removing %s: what a removal (process %d, gone) left set aside as %s is removed", u.Dir, u.PID, u.Aside)))
	}
	out.Removed = true
	return env.render(out, func() ui.Rows {
		rows := ui.Rows{Columns: []ui.Column{{Header: "Removed", Name: "path"}, {Header: "Taken by"}, {Header: "Freed", Name: "own_bytes", Right: true}}}
		for _, c := range out.Checkpoints {
			rows.Add(ui.Text(c.Path), ui.Text(checkpointTaker(c)), ui.Cell{Human: words.Bytes(int64(c.OwnBytes)), Plain: fmt.Sprint(c.OwnBytes)})
		}
		for _, u := range finish {
			rows.Add(ui.Text(u.Dir), ui.Text("(finished an interrupted removal)"), ui.Cell{Human: words.Bytes(int64(u.Bytes)), Plain: fmt.Sprint(u.Bytes)})
		}
		return rows
	})
}

func checkpointTaker(c checkpoint.Checkpoint) string {
	if c.TakenBy != "" {
		return c.TakenBy
	}
	return "unknown (" + c.Kind + ")"
}

// checkRemovable is checkpoint.CheckRemovable with $ANKUSA_STORE protected, its refusals
// mapped to exit codes.
func checkRemovable(path string, env *Env) (checkpoint.Removable, error) {
	r, err := checkpoint.CheckRemovable(path, protectedStore(), env.Now())
	return r, exitcode.Checkpoint(err)
}

// protectedStore is the store no checkpoint command removes whatever a marker says:
// $ANKUSA_STORE's.
func protectedStore() checkpoint.Protected {
	return checkpoint.Protected{Store: os.Getenv(storeEnv), Var: storeEnv}
}
