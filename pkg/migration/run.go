package migration

import (
	"context"
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/slots"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Options configure Run.
type Options struct {
	// Now is the start time of a migration that has not begun; zero means
	// the clock. A resumed migration keeps the start time it persisted.
	Now time.Time
	// TenantsMax is the cap the summary measures the overage against
	// (0: format.DefaultTenantsMax). It is never enforced.
	TenantsMax uint32
	// Backup is the checkpoint taken before the run's first write: where it goes
	// (Backup.Dir, which must not exist; "" takes none), and the marker it gets
	// once taken, before the first write (checkpoint.Policy.Mark).
	Backup checkpoint.Policy
	// OnStep is called after each committed step, from the committing
	// goroutine; it must not block for long. It is the step as an event
	// (what the caller prints once a step exists, what a test stops at).
	OnStep func(StepInfo)
	// Progress, if set, counts the rows each committed step read, its phase
	// the name of the phase the step left the cursor in ("due", "finish"),
	// after OnStep, from the same goroutine.
	Progress reporting.Reporter
	// Values reads the dead values and delivery rows (the zero value, the
	// tool's own, reads them in place; migrate's test compares the whole
	// decode, format.ValueReader.Whole).
	Values format.ValueReader

	// Knobs for tests; zero means the contract's or the tuned value.
	stepRows   int
	cacheLimit int
	workers    int
	ahead      int
	chunk      int
	hookTable  int // 0: when it pays and fits (buildHookTable), 1: always, -1: never
	runBytes   int // the bulk method's run in memory (bulkRunBytes)
	tableBytes int // the bulk method's table files' key and value bytes (tableFileBytes)
	joinBatch  int // the bulk method's join elements sorted at a time (joinBatch)
	sumOrds    int // the bulk method's counters summed below this ordinal (counterSumOrds)
	hookParts  int // the bulk method's hooks' range cut in this many parts (0: by hookPartRows)
	// keySplit, if set, is where the bulk method's key pass cuts the dead and the due rows'
	// keys (nil: not at all), in place of keyParts' halfway key.
	keySplit func(Phase) []byte
	// hookWorkers scan the bulk method's hooks' parts (hookWorkers).
	hookWorkers int
	// joinScan, if set, is how the bulk method's joins read the hooks and the deliveries
	// (a test's reader that fails).
	joinScan joinScan
	// readEnd, when set, is told as the bulk method's read stage ends what its join held
	// (rowJoin.held) before it let it go and after (the tests' look at its memory).
	readEnd func(before, after int)
	// joinRuns bound the bulk method's join runs (the zero Limits: runs.DefaultLimits).
	joinRuns runs.Limits
	// joinSlots bound the bulk method's joins' answers (the zero Limits:
	// slots.DefaultLimits).
	joinSlots slots.Limits
}

// StepInfo describes a committed step.
type StepInfo struct {
	Num int // 1-based, in this run
	// Phase the cursor is in after the step (PhaseFinish once finished).
	Phase Phase
	// Rows read by the step in each phase, moved and stray.
	Rows [numRowPhases]int64
	// Finished: this step's batch finished the migration.
	Finished bool
}

// stepped tells OnStep and Progress that stp is committed (or, in Plan, simulated).
func (o Options) stepped(stp *step) {
	if o.OnStep == nil && o.Progress == nil {
		return
	}
	s := stepInfo(stp)
	if o.OnStep != nil {
		o.OnStep(s)
	}
	if o.Progress != nil {
		o.Progress.Phase(s.Phase.String())
		o.Progress.Add(s.Total())
	}
}

// Total is the number of rows the step read.
func (s StepInfo) Total() int64 {
	var n int64
	for _, r := range s.Rows {
		n += r
	}
	return n
}

// startTime is the start a migration that has not begun records (ms precision).
func (o Options) startTime() time.Time {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	return time.UnixMilli(o.Now.UnixMilli()).UTC()
}

func (o Options) withDefaults() Options {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.stepRows == 0 {
		o.stepRows = format.MigrationStepRows
	}
	if o.cacheLimit == 0 {
		o.cacheLimit = defaultCacheLimit
	}
	if o.workers == 0 {
		o.workers = 2
	}
	if o.ahead == 0 {
		o.ahead = 2*o.workers + 2
	}
	if o.chunk == 0 {
		o.chunk = scanChunkSteps
	}
	if o.runBytes == 0 {
		o.runBytes = bulkRunBytes
	}
	if o.joinBatch == 0 {
		o.joinBatch = joinBatch
	}
	if o.sumOrds == 0 {
		o.sumOrds = counterSumOrds
	}
	if o.hookWorkers == 0 {
		o.hookWorkers = hookWorkers
	}
	return o
}

// Run migrates a store opened read-write to format 3, or resumes a migration
// that stopped. A format 3 store is left alone (Summary.NothingToDo). When ctx
// is cancelled, Run stops after the step it is committing and returns ctx's
// error with the summary so far: the store is resumable. Any other error also
// leaves a resumable store (every step is one synced batch).
func Run(ctx context.Context, st *rocks.Store, opts Options) (Summary, error) {
	opts = opts.withDefaults()
	sum := newSummary(opts.TenantsMax)
	began := time.Now()
	state, done, err := begin(ctx, st, opts, &sum, false)
	if done || err != nil {
		return sum, err
	}
	var earlier Earlier
	if state.Migrating {
		earlier = readEarlier(st.Dir, state)
		sum.Resumed = true
		for _, cf := range []string{format.CFTenants, format.CFCounters} {
			if !st.HasFamily(cf) {
				return sum, fmt.Errorf("%w: %s is mid-migration but has no %s column family", rocks.ErrCorrupt, st.Dir, cf)
			}
		}
	} else {
		start, err := startOf(opts)
		if err != nil {
			return sum, err
		}
		if err := prepare(st, uint64(start.UnixMilli())); err != nil {
			return sum, err
		}
		if state, err = ReadState(st); err != nil {
			return sum, err
		}
	}
	sum.StartedAt = state.StartTime()
	sum.Tenants = state.NextOrd - format.FirstOrd

	// The record of the whole migration: what earlier runs found, then this run's steps.
	base, runs, incomplete := newSummary(opts.TenantsMax), 1, ""
	if sum.Resumed {
		runs = earlier.Runs + 1
		if earlier.Runs == 0 {
			runs = 0 // how many runs came before is unknown
		}
		if earlier.Known {
			base, incomplete = earlier.Summary, earlier.Incomplete
		} else {
			incomplete = earlier.Why
		}
	}
	rec := newRecorder(st.Dir, state, runs, incomplete, base, state.Cursor)
	wholeWith := func(s Summary) Summary {
		w := base
		w.Resumed, w.StartedAt, w.Backup = false, s.StartedAt, ""
		w.merge(s)
		return w
	}

	ords, err := newOrdinals(st, state.NextOrd, opts.cacheLimit)
	if err != nil {
		return sum, err
	}
	defer ords.free()
	hooks, err := buildHookTable(ctx, st, opts.hookTable, hookTableLimit, st.Dir)
	if err != nil {
		return sum, err
	}
	// p.run returns once every fetch worker has stopped.
	defer hooks.free()
	p := &pipeline{
		scan:    newScanner(st, state.Cursor, opts.stepRows, opts.chunk),
		fetch:   func(stp *step) error { return fetch(st, hooks, stp, opts.Values) },
		build:   newBuilder(ords, state.StartedAt),
		workers: opts.workers,
		ahead:   opts.ahead,
	}
	err = p.run(ctx, func(stp *step) error {
		next := sum
		next.add(&stp.stats)
		next.Finished = stp.finish
		next.Duration = time.Since(began)
		rec.beforeCommit(wholeWith(next), stp.cursor)
		if err := st.Write(stp.batch, true); err != nil {
			return err
		}
		sum.add(&stp.stats)
		sum.Finished = stp.finish
		opts.stepped(stp)
		if stp.num == 1 && !stp.finish {
			pauseAt(PauseAfterStep, st)
		}
		return nil
	})
	if err == nil && sum.Finished {
		err = flushAtRest(st)
		if err == nil {
			err = settleAtRest(ctx, st, opts.Progress)
		}
	}
	sum.DefaultHooksApprox = p.build.approx
	sum.Duration = time.Since(began)
	sum.setOverCap()
	w := wholeWith(sum)
	sum.Whole, sum.Runs, sum.EarlierUnknown, sum.RecordErr = &w, runs, incomplete, rec.err
	return sum, err
}

func stepInfo(stp *step) StepInfo {
	info := StepInfo{Num: stp.num, Phase: Phase(stp.cursor.Phase), Finished: stp.finish}
	for i := range info.Rows {
		info.Rows[i] = stp.stats.rows[i] + stp.stats.strays[i]
	}
	return info
}

// begin is what both methods do before their first write: the store must be open
// read-write; a format 3 store needs nothing (done, and sum says so); then the context, and
// the backup the options ask for. The bulk method first sweeps the staging killed runs left
// (before the format 3 store's early return: a run killed after its ingest leaves a
// migrated store with its staging), and refuses a store mid-migration.
func begin(ctx context.Context, st *rocks.Store, opts Options, sum *Summary, bulk bool) (state State, done bool, err error) {
	if st.Mode() != rocks.ReadWrite {
		return state, false, fmt.Errorf("migration: %s is open %v; migrating needs read-write", st.Dir, st.Mode())
	}
	if bulk {
		SweepStaging(st.Dir)
	}
	if state, err = ReadState(st); err != nil {
		return state, false, err
	}
	if state.Done() {
		sum.NothingToDo, sum.Finished = true, true
		return state, true, nil
	}
	if bulk && state.Migrating {
		return state, false, ErrBulkMidway
	}
	if err := ctx.Err(); err != nil {
		return state, false, err
	}
	return state, false, takeBackup(st, opts, state, sum)
}

// startOf is the start a migration that has not begun records.
func startOf(opts Options) (time.Time, error) {
	start := opts.startTime()
	if start.UnixMilli() < 0 {
		return start, fmt.Errorf("migration: start time %v is before the Unix epoch", start)
	}
	return start, nil
}

// takeBackup takes the checkpoint opts asks for before the run's first write, and marks it
// as this migration's (so that a run killed before that write leaves one that says what it is).
func takeBackup(st *rocks.Store, opts Options, state State, sum *Summary) error {
	if opts.Backup.Dir == "" {
		return nil
	}
	if err := opts.Backup.Take(st); err != nil {
		return err
	}
	sum.Backup = opts.Backup.Dir
	start := state.StartTime()
	if !state.Migrating {
		start = opts.startTime()
	}
	if err := opts.Backup.Mark(start); err != nil {
		return err
	}
	pauseAt(PauseAfterCheckpoint, st)
	return nil
}
