package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/timearg"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

type migrateOptions struct {
	store      string
	dryRun     bool
	now        string
	backup     string
	noBackup   bool
	tenantsMax uint32
	verify     bool
	method     string
	rocksStats string // hidden: RocksDB's statistics go to this file
}

// The migration's methods (--method).
func newMigrateCmd(env *Env) *cobra.Command {
	opts := &migrateOptions{}
	c := &cobra.Command{
		Use:   "migrate [flags] STORE",
		Short: "Upgrade a store from format 2 to format 3 (TenantKeys)",
		Long: `migrate upgrades the store in STORE from format 2 to format 3: it re-keys the due,
inflight and dead rows by tenant ordinal and seeds the per-tenant counters (design
record TEN-1.a). The node must be stopped: the store is opened for writing.

By the steps (--method steps), the migration runs 500 rows at a time, each step committed
with its cursor in one synced batch, so it can stop at any instant (a crash, kill -9, a power cut) and resumes
where it stopped when run again; a resumed run classifies due rows against the start
time it persisted, whatever --now says. SIGINT or SIGTERM stop it after the current
step (exit 130). A format 3 store is nothing to do.

Before its first write it takes a RocksDB checkpoint of the store (hard links: seconds,
not a copy) into --backup, by default a directory next to the store named after it
and the start time. Restoring it means replacing the store directory with it.

--dry-run opens the store read-only and changes nothing: it prints the plan, and the
rows each phase would move, the tenants it would allocate and an estimated duration,
found by running the migration's own steps and dropping their writes. On a store
mid-migration it shows where the migration stopped instead.

--method picks how. steps is the path above. bulk writes the same store another way: the
steps' writes are computed as above but kept in sorted runs, written into table files by
column family (with the table options the node reads) and made visible by one atomic ingest,
so the store is format 2 until that commit and format 3 after it; a run stopped or killed
before the commit leaves the store as it was (a new empty family at most). It migrates
only a store no migration has touched (a store mid-migration is refused, exit 2: the steps
resume it). auto, the default, runs bulk on a store no migration has touched (a bulk run
killed before its commit leaves one) and the steps on a store a migration left mid-way.
A dry run says which method would run, the disk it needs and where, and its time, and
reads as that method does: by the bulk method's joins, their runs in $TMPDIR as the run's
(read as the steps do where $TMPDIR lacks that room, which the run would refuse), or by
the steps' lookups for --method steps.

The tenant cap (--tenants-max, the node's tenants.max) is reported, never enforced:
the cap refuses new tenants at ingest, it does not strand existing rows.

--verify runs counters verify on the migrated store in the same process once the
migration has finished (or on a store that was at format 3 already), so that an upgrade
script has one exit status for "migrated and healthy": 0 only if the verify finds the
store healthy, 1 with its findings, 3 on corruption. A dry run's plan says when a
verify would follow.`,
		Example: `  ankusa-store migrate --dry-run /var/lib/ankusa/store
  ankusa-store migrate --verify /var/lib/ankusa/store
  ankusa-store migrate --backup /backups/store-pre-v3 --now 2026-11-30T10:00:00Z /var/lib/ankusa/store`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			return runMigrate(c.Context(), env, opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.dryRun, "dry-run", false, "open read-only, change nothing, print what the migration would do")
	f.StringVar(&opts.now, "now", "", "start time of the migration: Unix ms or RFC 3339 (default: now; a resumed migration keeps its own)")
	f.StringVar(&opts.backup, "backup", "", "checkpoint directory, taken before the first write (default: STORE.backup-<start time>)")
	f.BoolVar(&opts.noBackup, "no-backup", false, "take no checkpoint")
	f.StringVar(&opts.rocksStats, "rocksdb-stats", "", "write RocksDB's statistics of the run to this file (for benchmarks)")
	_ = f.MarkHidden("rocksdb-stats")
	f.Uint32Var(&opts.tenantsMax, "tenants-max", format.DefaultTenantsMax, "the node's tenants.max, to report tenants over the cap")
	cmdutil.EnumFlag(c, f, &opts.method, cmdutil.Enum{Name: "method", Default: methodAuto, Noun: "method", Choices: methodChoices, Usage: "how to migrate: %s"})
	f.BoolVar(&opts.verify, "verify", false, "after the finish, run counters verify on the migrated store; exit 0 only if it is healthy")
	dirFlag(c, "backup")
	storeArg(c)
	return c
}

func runMigrate(ctx context.Context, env *Env, opts *migrateOptions) error {
	env.setWrites(true)
	if opts.backup != "" && opts.noBackup {
		return exitcode.Usagef("--backup and --no-backup exclude each other")
	}
	if opts.tenantsMax < 1 || opts.tenantsMax > format.MaxOrd {
		return exitcode.Usagef("--tenants-max must be in 1..%d, not %d", format.MaxOrd, opts.tenantsMax)
	}
	now := env.Now()
	nowSet := opts.now != ""
	if nowSet {
		t, err := timearg.Instant(opts.now)
		if err != nil {
			return exitcode.Usagef("--now: %v", err)
		}
		now = t
	}
	now = time.UnixMilli(now.UnixMilli()).UTC()
	if opts.dryRun {
		if opts.backup != "" {
			return exitcode.Usagef("--backup takes no checkpoint in a dry run; drop it or --dry-run")
		}
		return runMigrateDry(ctx, env, opts, now)
	}

	if isArchive(opts.store) {
		return exitcode.Usagef("%s is an archive; extract it first to migrate it (archives are opened read-only; --dry-run works on them)", opts.store)
	}
	// The checkpoint's policy, from the flags: a given --backup's place is checked before the
	// store is opened; the store's state completes it below.
	pol, err := checkpoint.MigrationPolicy(opts.store, opts.backup, opts.noBackup)
	if err != nil {
		return exitcode.Checkpoint(err)
	}
	// A look at the store read-only first: nothing is written (not even the
	// files RocksDB rewrites when it opens a store for writing) for a store
	// with nothing to do or a backup directory that is in the way.
	// One read-only open serves every look before the read-write open: the state here,
	// the space estimate below. It is closed before anything else opens the store.
	peek, closePeek, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	peekOpen := true
	endPeek := func() {
		if peekOpen {
			peekOpen = false
			closePeek()
		}
	}
	defer endPeek()
	state, err := migration.ReadState(peek)
	if err != nil {
		return err
	}
	res := migrateResult{Store: opts.store, Format: state.Format, Plan: planLines(migration.Pending(state.Format)), TenantsMax: opts.tenantsMax,
		Writes: writeRuleOf(opts.store)}
	if state.Done() {
		endPeek()
		// A run killed in its final flush or close left the node's OPTIONS files set
		// aside: put back now, or no other open would ever put them back. While a process
		// holds the store (a run of this tool that has them aside, or a node), it is not
		// this run's to touch: the holder's close, or the next run, puts them back.
		if rocks.NodeOptionsSetAside(opts.store) && rocks.ProbeLock(opts.store) == nil {
			if err := rocks.PutBackNodeOptions(opts.store); err != nil {
				return fmt.Errorf("%s is at format %d, but the node's OPTIONS files a killed run set aside (%s) could not be put back: %w", opts.store, format.Format3, rocks.NodeOptionsStash, err)
			}
			env.note("put back the node's OPTIONS files, which a killed run of this tool had set aside in %s", filepath.Join(opts.store, rocks.NodeOptionsStash))
		}
		// A bulk run killed after its ingest left the store migrated and its staging behind;
		// no later run would go past this point to sweep it. A live run's is locked, kept.
		migration.SweepStaging(opts.store)
		res.NothingToDo, res.Finished = true, true
		return migrateVerifyAndRender(ctx, env, opts, nil, res)
	}

	if opts.method == methodBulk && state.Migrating {
		return exitcode.Usagef("--method bulk: %v (--method steps or auto); nothing was written", migration.ErrBulkMidway)
	}
	res.Method = migrateMethod(opts.method, state.Migrating)
	if pol, err = pol.Resolve(state.Migrating, state.StartTime(), now); err != nil {
		return exitcode.Checkpoint(err)
	}
	mo := migration.Options{Now: now, TenantsMax: opts.tenantsMax, Backup: pol, Values: env.values}
	resumeNote := migrateResumeNote(pol, state)
	est, err := migrateSpace(ctx, peek, opts.store, pol.Dir, state, res.Method)
	counted := state.Cursor // where est counted the rows left from
	endPeek()
	if err != nil {
		return err
	}
	if resumeNote != "" {
		env.note("%s", resumeNote)
	}

	tune := migrateTuning
	tune.Statistics = opts.rocksStats != ""
	// The steps look up delivery rows at random (dead rows' sizes) and scan or write the
	// rest: the hooks are read once into the hook table (pkg/migration).
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadWrite, Tune: tune, LookupFamilies: []string{format.CFDeliveries}})
	if errors.Is(err, rocks.ErrNoSpace) {
		// The WAL's replay flushes what the last run committed: the store is as the read-only look read it.
		return migrateStopped(err, state, 0, "", "")
	}
	if err != nil {
		return err
	}
	defer closeStore()
	if opts.rocksStats != "" {
		defer func() { _ = os.WriteFile(opts.rocksStats, []byte(st.Statistics()), 0o644) }()
	}
	if state, err = migration.ReadState(st); err != nil {
		return err
	}
	if state.Migrating && nowSet && !now.Equal(state.StartTime()) {
		env.note("ignoring --now: a resumed migration classifies due rows against its start time, %s", state.StartTime().Format(time.RFC3339Nano))
	}
	if !state.Migrating {
		// A kept checkpoint now belongs to the migration this run starts.
		if err := pol.Adopt(now); err != nil {
			return err
		}
	}
	// The checkpoint a stopped run's error names as its own (a second interrupted run is
	// still one migration, with one checkpoint to restore).
	backupNote := pol.Holds()

	var p *progress.Progress
	rep := reporting.Nop
	if env.progressMode() != progress.None {
		// The checkpoint is not in the label: its own line follows the moment it exists,
		// once, and a log's every progress line would repeat it.
		// The total is known before the first step: the space check counted what is left
		// (or, for the bulk method, bounded it closely).
		// Where the run starts elsewhere than that count did (a run stopped in between),
		// counting is a pass over the keys: on a terminal before the first step (shown
		// too, not a silent pause), in a log beside the steps, so that an unattended run
		// writes its first step as soon as it did.
		phase := "from the start"
		if state.Migrating {
			phase = "resuming in phase " + migration.Phase(state.Cursor.Phase).String()
		}
		p = env.Progress(fmt.Sprintf("migrate %s (%s): counting the rows to move", opts.store, phase), "", 0)
		// The steps' phases, or the bulk method's stages (the join and the reads count rows;
		// the line starts on the space check's total until the join's key pass has counted).
		rep = migrateProgress(p, "migrate "+opts.store)
		if res.Method == methodBulk {
			rep = migrateBulkProgress(p, "migrate "+opts.store)
		}
		left := est.RowsLeft()
		approx := false
		switch {
		case res.Method == methodBulk:
			// The bulk method's check counted the rows, or bounded them closely by the
			// index family's table properties (EstimateBulkSpace) where no pass over the
			// keys precedes a run that reads them all: the read stage's total either way,
			// a bound shown as about so many.
			left, approx = [len(left)]int64{est.Rows}, est.RowsBound
		case bytes.Equal(counted.Encode(), state.Cursor.Encode()):
			// The space check's scan counted them, from the cursor the run starts at: no
			// second pass over the keys (at 10^8 rows some 20 s of CPU beside the run).
		case env.progressMode() == progress.TTY:
			if left, err = migration.CountLeft(ctx, st, state.Cursor); err != nil {
				p.Done()
				return migrateStopped(err, state, 0, backupNote, "")
			}
		default:
			left = [len(left)]int64{}                                 // the total is given when the count beside the run ends
			defer countLeftAsync(ctx, st, state.Cursor, p.SetTotal)() // before closeStore
		}
		var total int64
		for _, n := range left {
			total += n
		}
		p.SetUnit("rows")
		p.SetTotal(total)
		if approx {
			p.Approx()
		}
		p.SetLabel(fmt.Sprintf("migrate %s (%s)", opts.store, phase))
		p.Show() // the start line at once: a migration is long work
	}
	// The checkpoint's path is printed the moment it exists (before the first step commits):
	// it is the line an operator needs in scrollback if the box dies.
	cpShown := false
	showCheckpoint := func(path string) {
		if path != "" && !cpShown && !env.JSON() {
			cpShown = true
			line := "checkpoint of the store before migrating: " + path
			if p != nil {
				p.Print("%s", line)
			} else {
				fmt.Fprint(env.IO.Err, env.wrapErr(ui.SafeLine(line)))
			}
		}
	}
	mo.OnStep = func(migration.StepInfo) {
		if pol.Dir != "" {
			showCheckpoint(pol.Dir)
		}
	}
	mo.Progress = rep
	// A staging directory a killed bulk run left in the store goes, whichever method runs now.
	migration.SweepStaging(opts.store)
	run := migration.Run
	if res.Method == methodBulk {
		run = migration.RunBulk
	}
	sum, err := run(ctx, st, mo)
	if p != nil {
		p.Done()
	}
	if res.Method == methodBulk && err == nil {
		env.note("%s", bulkStagedNote(sum, os.TempDir()))
	}
	showCheckpoint(sum.Backup)
	res.checkpointShown = cpShown
	if err != nil {
		// Whether the store is left mid-migration is the store's to say: the
		// preparation may have been committed even if no step was.
		after, rerr := migration.ReadState(st)
		if rerr != nil {
			return fmt.Errorf("%w; the state this left the store in could not be read back (%v): 'migrate --dry-run %s' says what it is", err, rerr, opts.store)
		}
		if after.Migrating || after.Done() {
			sres := summaryResult(res, sum)
			sres.checkpointShown = cpShown
			if rerr := renderMigrate(env, sres); rerr != nil {
				return rerr
			}
		}
		return migrateStopped(err, after, sum.Steps, backupNote, res.Method)
	}
	res = summaryResult(res, sum)
	return migrateVerifyAndRender(ctx, env, opts, st, res)
}

// writeRuleOf is the write rule a read-write open of the store in dir would apply, in one
// line; "" when the store's files cannot be read (the open reports why).
func writeRuleOf(dir string) string {
	w, err := rocks.ChooseWriteRule(dir)
	if err != nil {
		return ""
	}
	return w.String()
}

// migrateResumeNote is the note that says which checkpoint holds the store as it was when this
// run takes none of its own (pol resolved): "" when it takes one or none was asked for.
func migrateResumeNote(pol checkpoint.Policy, state migration.State) string {
	started := state.StartTime().Format(time.RFC3339Nano)
	switch {
	case pol.Kept != "" && state.Migrating:
		return fmt.Sprintf("resuming the migration started at %s; the checkpoint its first run took is %s", started, pol.Kept)
	case pol.Kept != "":
		// The first run stopped after its checkpoint, before its first write: the store is
		// as the checkpoint holds it, which stays the one to restore.
		return fmt.Sprintf("the checkpoint %s was taken of this store by a run that stopped before writing; keeping it", pol.Kept)
	case pol.Default == "":
		return ""
	}
	// Resuming without --backup: the checkpoint of the store as it was is the one the first
	// run took; a second one would hold a half-moved store.
	where := "none was taken at the default place " + pol.Default + " (the first run may have had --backup DIR or --no-backup)"
	switch pol.Earlier {
	case "":
	case pol.Default:
		where = "the first run's is " + pol.Default
	default:
		where = "the first run's is " + pol.Earlier + ", its --backup"
	}
	return fmt.Sprintf("resuming the migration started at %s; no checkpoint is taken (%s)", started, where)
}
