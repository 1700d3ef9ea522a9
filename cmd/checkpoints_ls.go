package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

func init() { clidoc.RegisterSchema("ankusa-store checkpoints ls", checkpointsLsOutput{}) }

type checkpointsLsOptions struct {
	store string
}

// checkpointsLsOutput is checkpoints ls's JSON.
type checkpointsLsOutput struct {
	Store       string            `json:"store"`
	Checkpoints []checkpointEntry `json:"checkpoints"`
	// Bytes and OwnBytes sum the checkpoints' (OwnBytes: what removing all of them frees,
	// when no two share a file).
	Bytes    uint64 `json:"bytes"`
	OwnBytes uint64 `json:"own_bytes"`
}

// checkpointEntry is one checkpoint and whether it still opens as a store.
type checkpointEntry struct {
	checkpoint.Checkpoint
	// Opens: it opened read-only as an Ankusa store; Format is its format then (0 when it
	// did not open), OpenError what the open said.
	Opens     bool   `json:"opens"`
	Format    uint32 `json:"format"`
	OpenError string `json:"open_error,omitempty"`
}

func newCheckpointsLsCmd(env *Env) *cobra.Command {
	opts := &checkpointsLsOptions{}
	c := &cobra.Command{
		Use:   "ls [flags] STORE",
		Short: "List every checkpoint the tool took of a store, with its size, age and whether it opens",
		Long: `ls lists the checkpoints this tool took of the store: migrate's (its --backup, by default
STORE.backup-<start time>) and counters verify --repair's (its --backup too, by default
STORE.pre-repair-<time>). They are found next to the store by those names and wherever
the store's record says they went: each command leaves a marker file in its checkpoint
(ANKUSA-MIGRATION-CHECKPOINT, ANKUSA-REPAIR-CHECKPOINT) and appends its path to
ANKUSA-CHECKPOINTS in the store directory, a file of the tool's own that RocksDB
ignores and no node reads (the store's keys are untouched).

For each: its path, what took it, when (its marker's time, else its name's, else its
directory's modification time) and its age, its size (each file counted once however
many hard links it has), the part it shares with the store (hard links to table files
the store still has), what removing it frees, and whether it still opens as a store
(read-only: it is never changed). status lists the same set, without opening them.

Exit status 0, with or without checkpoints.`,
		Example: `  ankusa-store checkpoints ls /var/lib/ankusa/store
  ankusa-store checkpoints ls -o json /var/lib/ankusa/store`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			return runCheckpointsLs(c.Context(), env, opts)
		},
	}
	storeArg(c)
	return c
}

func runCheckpointsLs(ctx context.Context, env *Env, opts *checkpointsLsOptions) error {
	if isArchive(opts.store) {
		return exitcode.Usagef("%s is an archive: checkpoints are taken of a store directory", opts.store)
	}
	if fi, err := os.Stat(opts.store); err != nil || !fi.IsDir() {
		return &exitcode.Error{Code: exitcode.Store, Err: fmt.Errorf("%s: no store directory there", opts.store)}
	}
	// What it cannot read it says, never "no checkpoints" (the name rules need the store's
	// parent listed, the record its file read).
	if _, err := os.ReadDir(filepath.Dir(filepath.Clean(checkpoint.Abs(opts.store)))); err != nil {
		return &exitcode.Error{Code: exitcode.Store, Err: fmt.Errorf("cannot list the checkpoints of %s: %w", opts.store, err)}
	}
	if f, err := os.Open(filepath.Join(opts.store, checkpoint.RecordFile)); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return &exitcode.Error{Code: exitcode.Store, Err: fmt.Errorf("cannot read the store's record of its checkpoints: %w", err)}
	}
	ignored, whole := checkpoint.IgnoredRecordLines(opts.store)
	for _, n := range ignored {
		env.note("%s", ui.SafeLine(checkpoint.RecordFile+" names "+n+": not counted as a checkpoint"))
	}
	for _, u := range checkpoint.UnfinishedOf(opts.store) {
		env.note("%s", ui.SafeLine(unfinishedNote(u)))
	}
	if !whole {
		env.note("%s has more than %d lines; the rest was not read", checkpoint.RecordFile, checkpoint.MaxRecordLines)
	}
	now := env.Now()
	out := checkpointsLsOutput{Store: opts.store, Checkpoints: []checkpointEntry{}}
	for _, cp := range checkpoint.Find(opts.store, nil, now) {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := checkpointEntry{Checkpoint: cp}
		// Its own options: whether a checkpoint opens is the answer, shown in its row.
		h, err := store.Open(cp.Path, store.Options{Options: rocks.Options{Mode: rocks.ReadOnly}})
		if err != nil {
			e.OpenError = err.Error()
		} else {
			e.Opens, e.Format = true, h.Format
			h.Close()
		}
		out.Bytes += cp.Bytes
		out.OwnBytes += cp.OwnBytes
		out.Checkpoints = append(out.Checkpoints, e)
	}
	return env.render(out, func() ui.Rows { return checkpointRows(out.Checkpoints, now) })
}

// unfinishedNote says what a removal left set aside, and what finishes it: checkpoints rm
// --yes only where the checks it would make pass (checkpoint.CheckFinish), else why not.
func unfinishedNote(u checkpoint.UnfinishedRemoval) string {
	if u.Running {
		return fmt.Sprintf("%s of %s is set aside as %s by process %d, which is running (a removal under way, or a process that reused the pid of one that was killed); once no process %d runs, checkpoints rm --yes %s finishes it", words.Bytes(int64(u.Bytes)), u.Dir, u.Aside, u.PID, u.PID, u.Dir)
	}
	if _, err := checkpoint.CheckFinish(u, protectedStore()); err != nil {
		return fmt.Sprintf("%v (process %d is gone; %s of it is left there)", err, u.PID, words.Bytes(int64(u.Bytes)))
	}
	return fmt.Sprintf("the removal of %s did not finish (process %d is gone): %s of it is left set aside as %s; checkpoints rm --yes %s finishes it", u.Dir, u.PID, words.Bytes(int64(u.Bytes)), u.Aside, u.Dir)
}

func checkpointRows(cps []checkpointEntry, now time.Time) ui.Rows {
	rows := ui.Rows{Columns: []ui.Column{{Header: "Path"}, {Header: "Taken by"}, {Header: "Taken at (UTC)", Name: "taken_at", Drop: 2},
		{Header: "Age", Right: true, TableOnly: true}, {Header: "Size", Name: "bytes", Right: true, Drop: 1},
		{Header: "Shared", Name: "shared_bytes", Right: true, Drop: 3}, {Header: "Frees", Name: "own_bytes", Right: true},
		{Header: "Opens", Name: "opens", Flex: true}},
		Empty: "no checkpoints (none next to the store, none in its record)"}
	for _, c := range cps {
		by := c.TakenBy
		if by == "" {
			by = "unknown (" + c.Kind + ")"
		}
		opens := ui.Text(fmt.Sprintf("format %d", c.Format))
		opens.Plain = fmt.Sprintf("yes format=%d", c.Format)
		if !c.Opens {
			opens = ui.Cell{Human: "NO: " + c.OpenError, Plain: "no " + c.OpenError, Color: ui.ColorRed}
		}
		rows.Add(ui.Text(c.Path), ui.Text(by), ui.Cell{Human: c.TakenAt.UTC().Format("2006-01-02 15:04:05"), Plain: c.TakenAt.Format(viewTimeLayout)},
			ui.Text(words.Age(now.Sub(c.TakenAt).Milliseconds())),
			ui.Cell{Human: words.Bytes(int64(c.Bytes)), Plain: fmt.Sprint(c.Bytes)},
			ui.Cell{Human: words.Bytes(int64(c.SharedBytes)), Plain: fmt.Sprint(c.SharedBytes)},
			ui.Cell{Human: words.Bytes(int64(c.OwnBytes)), Plain: fmt.Sprint(c.OwnBytes)}, opens)
	}
	return rows
}
