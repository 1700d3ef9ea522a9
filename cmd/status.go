package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() {
	clidoc.RegisterSchema("ankusa-store status", statusOutput{})
}

type statusOptions struct {
	store       string
	exact       bool
	tenantsMax  uint32
	metricsFile string
}

// statusOutput is status's JSON: inspect.Status (what the store's files and
// a constant number of reads say) and what this command adds around it.
type statusOutput struct {
	Store   string `json:"store"`
	Archive bool   `json:"archive"`
	inspect.Status
	// Migration is set on a store mid-migration.
	Migration *statusMigration `json:"migration"`
	// Upgrade is set on a format 2 store: what migrate would do, and the disk it needs.
	Upgrade *statusUpgrade `json:"upgrade"`
	// Checkpoints of the store: next to it by the name rules, and wherever the store's
	// record says (a migrate --backup, a repair's --backup); as checkpoints ls lists them.
	Checkpoints []checkpoint.Checkpoint `json:"checkpoints"`
	// UnfinishedRemovals: what removals of its checkpoints left set aside (a checkpoints rm
	// killed part way, or one running), as checkpoints ls notes them: bytes no checkpoint
	// counts any more.
	UnfinishedRemovals []checkpoint.UnfinishedRemoval `json:"unfinished_removals,omitempty"`
}

type statusMigration struct {
	Phase      string         `json:"phase"`
	LastKey    string         `json:"last_key"`
	LastKeyHex string         `json:"last_key_hex"`
	StartedAt  time.Time      `json:"started_at"`
	RowsLeft   int64          `json:"rows_left"`
	Phases     []migratePhase `json:"phases"`
	// Checkpoint is the one the migration took before its first write: at its --backup
	// (found from the store's record, by the marker naming this migration) or by
	// migrate's default name rule (STORE.backup-<start time>); "" when there is none
	// (a run with --no-backup takes none; or it was moved or removed), and Exists false.
	Checkpoint       string `json:"checkpoint"`
	CheckpointExists bool   `json:"checkpoint_exists"`
	// CheckpointDefault is where migrate takes it by default (STORE.backup-<start time>),
	// looked for whether or not it is there.
	CheckpointDefault string `json:"checkpoint_default,omitempty"`
}

type statusUpgrade struct {
	Plan []string `json:"plan"`
	// Phases are the keys each phase would read (rows and strays), counted
	// as the dry run counts a store mid-migration (migration.CountLeft).
	Phases              []migratePhase `json:"phases"`
	Rows                int64          `json:"rows"`
	EstimatedDurationMS int64          `json:"estimated_duration_ms"`
	// FreeBytes is the free space of the store's file system (null for an archive).
	FreeBytes *uint64 `json:"free_bytes"`
	// NeedBytes is what the migration needs free on the store's file system, by
	// NeedRule: migrate's own figure, its checkpoint's copied files (CheckpointBytes)
	// included.
	NeedBytes       uint64 `json:"need_bytes"`
	CheckpointBytes uint64 `json:"checkpoint_bytes"`
	// CheckpointElsewhereBytes: the default checkpoint's place is on another file
	// system than the store (the store is a mount point), which then needs the whole store.
	CheckpointElsewhereBytes uint64 `json:"checkpoint_elsewhere_bytes,omitempty"`
	// TempElsewhereBytes: the bulk method's joins spill their sorted runs to the temporary
	// directory, TempDir, on another file system than the store, which then needs them.
	TempElsewhereBytes uint64 `json:"temp_elsewhere_bytes,omitempty"`
	TempDir            string `json:"temp_dir,omitempty"`
	NeedRule           string `json:"need_rule"`
	// Enough is migrate's own check (null for an archive): false exactly when
	// 'migrate STORE' would refuse, with Short its refusal.
	Enough *bool  `json:"enough"`
	Short  string `json:"short,omitempty"`
}

// statusNeedRule says where NeedBytes comes from: the estimate migrate itself checks before
// its first write, so status and migrate never disagree about the room a migration needs.
const statusNeedRule = "migrate's own check for the bulk method it runs on this store (rows left: their writes in sorted runs and half as much again in table files, slack, its joins' sorted runs when the temporary directory is on the store's file system, and its checkpoint's copied WAL, MANIFEST and OPTIONS)"

func newStatusCmd(env *Env) *cobra.Command {
	opts := &statusOptions{}
	c := &cobra.Command{
		Use:   "status [flags] STORE",
		Short: "Say what a store is: format, migration state, families, tenants, backlog age, checkpoints",
		Long: `status is the first command of the runbook and of every bug report. It says what
the store is before anything is done to it:

  - its format, and on a store mid-migration the phase, the last key moved, the start
    time, the keys left and the checkpoint the migration took;
  - every column family with its key count (RocksDB's estimate, rocksdb.estimate-num-keys,
    unless --exact reads them all), size on disk, memtable bytes and SST files per level,
    and the write-ahead log; the RocksDB version and SST format versions in the store's
    files (a store written by a newer RocksDB than this tool's says so here), and the
    erlang-rocksdb releases that could have written it (written by: those vendoring the
    RocksDB its OPTIONS file names, else those whose RocksDB reads every table);
  - on format 3: the tenants (m:next_ord - 1) against --tenants-max, the node aggregate
    (the six counters of ordinal 0, shards summed) and the oldest due row, from the first
    active marker as the node's oldest_due_age gauge reads it;
  - on format 2: the keys each migration phase would read and the free disk space
    against what migrate needs;
  - the checkpoints of the store, as checkpoints ls finds them (next to it, STORE.backup-*
    and STORE.pre-repair-*, and wherever its record says: a migrate --backup, a repair's
    --backup), with their age and size, and what a checkpoints rm killed part way left
    set aside (checkpoints ls says whether the same rm finishes it).

On format 3 it reads a constant number of keys whatever the store holds: it never
folds a family (without --exact). The store is opened read-only (a directory or a
.tar.zst), which works while a node holds it; the memtable bytes are then those of
the WAL this read replayed. --metrics-file writes the same numbers for
node_exporter's textfile collector. Exit status 0 whenever the store could be read;
3 when a counter of the aggregate could not be read (a damaged table, a value that is
not an integer): it is shown as unreadable with the reason (null in JSON, no value but
ankusa_store_aggregate_unreadable 1 in the metrics file), never as a number.`,
		Example: `  ankusa-store status /var/lib/ankusa/store
  ankusa-store status -o json store-v3.tar.zst
  ankusa-store status --metrics-file /tmp/ankusa_store_status.prom store/`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			return runStatus(c.Context(), env, opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.exact, "exact", false, "count every key of every column family (reads the whole store)")
	f.Uint32Var(&opts.tenantsMax, "tenants-max", format.DefaultTenantsMax, "the node's tenants.max, which the tenant count is held against")
	f.StringVar(&opts.metricsFile, "metrics-file", "", "also write the status as Prometheus metrics to this file, atomically")
	storeArg(c)
	return c
}

func runStatus(ctx context.Context, env *Env, opts *statusOptions) error {
	if opts.tenantsMax < 1 || opts.tenantsMax > format.MaxOrd {
		return exitcode.Usagef("--tenants-max must be in 1..%d, not %d", format.MaxOrd, opts.tenantsMax)
	}
	if err := checkMetricsFile(opts.metricsFile); err != nil {
		return err
	}
	start := time.Now()
	out, err := runStatusStore(ctx, env, opts)
	if opts.metricsFile != "" && exitcode.Of(err) != exitcode.Usage {
		// After the result is printed: a file that cannot be written loses neither.
		writeRunMetrics(env, opts.metricsFile, statusMetrics(opts.store, out, err, time.Since(start), env.Now()))
	}
	return err
}

// runStatusStore reads and prints the status; out is what was printed (nil when the run
// failed before it had a status), for the metrics file.
func runStatusStore(ctx context.Context, env *Env, opts *statusOptions) (*statusOutput, error) {
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer closeStore()
	now := env.Now()
	s, err := inspect.StoreStatus(ctx, st, inspect.StatusOptions{Exact: opts.exact, TenantsMax: opts.tenantsMax, Now: now})
	if err != nil {
		return nil, err
	}
	out := statusOutput{Store: opts.store, Archive: isArchive(opts.store), Status: *s, Checkpoints: []checkpoint.Checkpoint{}}
	if !out.Archive {
		out.Checkpoints = checkpoint.Find(opts.store, nil, now)
		out.UnfinishedRemovals = checkpoint.UnfinishedOf(opts.store)
	}
	if st.Migrating {
		if out.Migration, err = statusMidway(ctx, st, opts.store, out.Checkpoints); err != nil {
			return nil, err
		}
	} else if st.Format == format.Format2 {
		if out.Upgrade, err = statusUpgradeOf(ctx, st, opts.store, out.Archive, now); err != nil {
			return nil, err
		}
		if u := out.Upgrade; u.Enough != nil && !*u.Enough {
			out.Notes = append(out.Notes, inspect.ViewNote{Warning: true, Text: fmt.Sprintf(
				"migrate would refuse: %s (%s)", strings.TrimSuffix(u.Short, "; nothing was written"), statusNeedRule)})
		}
	}
	if err := rocks.ForeignStash(opts.store); !out.Archive && err != nil {
		// Never read as the node's files: the writer named above is the store's own.
		out.Notes = append(out.Notes, inspect.ViewNote{Warning: true, Text: err.Error()})
	} else if !out.Archive && rocks.NodeOptionsSetAside(opts.store) {
		if rocks.ProbeLock(opts.store) == nil {
			out.Notes = append(out.Notes, inspect.ViewNote{Warning: true, Text: fmt.Sprintf(
				"the node's OPTIONS files are set aside in %s by a run of this tool that was killed, and the store's own are this tool's RocksDB's (older RocksDB releases, Debian's 7.8.3 ldb among them, refuse them): run that command again, or migrate, to put them back",
				filepath.Join(opts.store, rocks.NodeOptionsStash))})
		} else {
			out.Notes = append(out.Notes, inspect.ViewNote{Text: fmt.Sprintf(
				"the node's OPTIONS files are set aside in %s while a run of this tool has the store open for writing; it puts them back when it closes",
				filepath.Join(opts.store, rocks.NodeOptionsStash))})
		}
	}
	printViewNotes(env, out.Notes)
	if err := printStatus(env, &out, now); err != nil {
		return &out, err
	}
	if a := out.Aggregate; a != nil && a.Err() != nil {
		return &out, countersUnreadableErr("the node aggregate", a.UnreadableCount(), a.Err())
	}
	return &out, nil
}

func printStatus(env *Env, out *statusOutput, now time.Time) error {
	if env.JSON() {
		return ui.WriteJSON(env.IO.Out, out)
	}
	if err := env.render(out, func() ui.Rows { return statusSummaryRows(out, now) }); err != nil {
		return err
	}
	fmt.Fprintln(env.IO.Out)
	return env.render(out, func() ui.Rows { return statusFamilyRows(out) })
}

func statusMidway(ctx context.Context, st *rocks.Store, store string, cps []checkpoint.Checkpoint) (*statusMigration, error) {
	state, err := migration.ReadState(st)
	if err != nil {
		return nil, err
	}
	left, err := migration.CountLeft(ctx, st, state.Cursor)
	if err != nil {
		return nil, err
	}
	c := state.Cursor
	m := &statusMigration{Phase: migration.Phase(c.Phase).String(), LastKey: "none (the phase has not moved a row yet)",
		LastKeyHex: fmt.Sprintf("%x", c.LastKey), StartedAt: state.StartTime()}
	if len(c.LastKey) > 0 {
		m.LastKey = format.DecodeKey(format.CFIndex, c.LastKey).String()
	}
	for _, p := range migration.RowPhases {
		m.Phases = append(m.Phases, migratePhase{Phase: p.String(), Rows: left[p-1]})
		m.RowsLeft += left[p-1]
	}
	if !isArchive(store) {
		m.CheckpointDefault = checkpoint.BackupName(store, state.StartTime())
		if fi, err := os.Stat(m.CheckpointDefault); err == nil && fi.IsDir() {
			m.Checkpoint, m.CheckpointExists = m.CheckpointDefault, true
		}
		// A --backup elsewhere: the checkpoint whose marker names this migration.
		for _, c := range cps {
			if !m.CheckpointExists && c.TakenBy == "migrate" && c.Marked && checkpoint.SameDir(c.MarkStore, store) && c.TakenAt.Equal(state.StartTime()) {
				m.Checkpoint, m.CheckpointExists = c.Path, true
			}
		}
	}
	return m, nil
}

func statusUpgradeOf(ctx context.Context, st *rocks.Store, store string, archive bool, now time.Time) (*statusUpgrade, error) {
	est, err := migration.EstimateSpace(ctx, st, format.MigrationCursor{Phase: uint8(migration.PhaseDue)})
	if err != nil {
		return nil, err
	}
	left := est.RowsLeft()
	// The run status stands for, a plain 'migrate STORE' of a store no migration has
	// touched, is the bulk method's: its figure as that run works it out.
	if est, err = migration.BulkSpace(st, est); err != nil {
		return nil, err
	}
	u := &statusUpgrade{Plan: planLines(migration.Pending(format.Format2)), NeedRule: statusNeedRule}
	for _, p := range migration.RowPhases {
		u.Phases = append(u.Phases, migratePhase{Phase: p.String(), Rows: left[p-1]})
		u.Rows += left[p-1]
	}
	u.EstimatedDurationMS, _ = methodDuration(u.Rows, methodBulk)
	// The run status stands for is a plain 'migrate STORE': its checkpoint at the default
	// place beside the store (an archive's: beside the store it extracts to).
	dir := store
	if archive {
		dir = st.Dir
	}
	need, err := migration.NeedSpace(est, dir, checkpoint.BackupName(dir, now))
	if err != nil {
		return nil, err
	}
	u.NeedBytes, u.CheckpointBytes = uint64(need.Needed), uint64(need.CheckpointBytes)
	u.CheckpointElsewhereBytes = uint64(need.CheckpointElsewhereBytes)
	if need.TempElsewhereBytes > 0 {
		u.TempElsewhereBytes, u.TempDir = uint64(need.TempElsewhereBytes), need.TempDir
	}
	if !archive {
		if free, err := need.Measure(); err == nil {
			f, enough := uint64(free.Store), free.Short == nil
			u.FreeBytes, u.Enough = &f, &enough
			if free.Short != nil {
				u.Short = free.Short.Error()
			}
		}
	}
	return u, nil
}

// statusWrittenBy is which node releases could have written the store, and what says so.
func statusWrittenBy(rd inspect.StatusRocksDB) string {
	w := rd.WrittenBy
	switch {
	case w.By == "options":
		return fmt.Sprintf("%s, by its %s", w, rd.OptionsFile)
	case w.By == "nothing":
		return fmt.Sprintf("%s: no OPTIONS file and no table says which", w)
	case rd.RocksDBVersion != "":
		return fmt.Sprintf("%s, by its tables' format_version (RocksDB %s of its %s is no release's)", w, rd.RocksDBVersion, rd.OptionsFile)
	}
	return fmt.Sprintf("%s, by its tables' format_version (no OPTIONS file)", w)
}
