package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

type countersVerifyOptions struct {
	store  string
	tenant string
	// scope is the tenant --tenant names, resolved once the store is open.
	scope      format.Tenant
	secondary  bool
	repair     bool
	yes        bool
	checkpoint string
	metrics    string
}

func newCountersVerifyCmd(env *Env) *cobra.Command {
	opts := &countersVerifyOptions{}
	c := &cobra.Command{
		Use:   "verify [flags] STORE",
		Short: "Check every counter and invariant of a store (its health check)",
		Long: `verify folds the key families of a store at one snapshot and checks every invariant
of a healthy store: every counter, of every tenant and of the aggregate (ordinal 0, its
shards summed), equals the fold of its rows; every due row has its active marker; x and X
mirror each other; the t and n rows agree and every ordinal in use has a t row below
m:next_ord; every delivery row has at most one index key; every sentinel is present and no
format 2 key is left. On a format 2 store it checks what applies (sentinels, one index key
per delivery row): counters do not exist before format 3.

A counter mismatch shows the tenant (id and ordinal), the field, the stored and folded
values and the delta (folded - stored). Every other finding names its keys, decoded.
What the contract allows is counted, not failed: stale active markers, leaked delivery
rows, index rows whose delivery row or hook is gone. A fold that misses its hi sentinel,
or a counter whose merge fails on a bad operand, is corruption: it is named with its key
and the command exits 3.

The store is opened read-only (a directory or a .tar.zst), which works while a node holds
it; --secondary opens it as a RocksDB secondary instead. A store mid-migration is refused.
--tenant checks one tenant: its rows, counters, markers and tenant rows; what only the
whole store can show (the aggregate, leaks, a delivery row with two index keys) is listed
as not checked.

--repair --yes needs the store to itself (exit 4 while a node holds it): it verifies
and, when counters differ, takes a checkpoint (--backup, which must not exist:
exit 2 before the store is touched; by default STORE.pre-repair-<time>, with a -2, -3...
suffix if taken) and marks it as migrate marks its own (ANKUSA-REPAIR-CHECKPOINT inside,
its path in the store's ANKUSA-CHECKPOINTS) before anything is written, writes one
corrective int_add merge operand (folded - stored) per counter mismatch in one synced
batch, never overwriting a counter, and verifies again;
both results are printed. It writes nothing, and takes no checkpoint, when no counter
differs or the store is corrupt, and fixes only counters. Before opening the store it
checks that the checkpoint's file system has room for it (exit 3 when short).

On a terminal (or with -o table) the result is a report: counter mismatches as a table,
every other finding as a block with its keys decoded and in hex and what to do next, then
what was counted, what was not checked and the verdict. Piped or redirected, or with
-o tsv, it is TSV rows on stdout (columns check, ord, tenant, field, stored, folded, delta,
key, detail): one row per counter mismatch, finding and corruption; then counted rows
(field the count's name, detail the count), not_checked rows (field the check, detail
why), not_listed rows (field the check, detail how many more) and last the verdict row
(field healthy, findings or corrupt, detail the verdict). -q drops progress and notes,
never a row. With --repair the rows are the report before the repair, a checkpoint row
(field taken or none, detail the path) and a repair row (field written, nothing,
not_written or written_unverified, detail what the store holds, in words), a blank line,
and the report after it. -o json: one document.

A repair that fails says what it left: nothing written (the verify before it, the
checkpoint or its marking failed: the store is as it was), the batch not written (its write failed: the
store reads as before, the checkpoint holds it as it was), or the batch written and synced
but the verify after it unfinished (run counters verify again); exit 3, and the metrics
file gets no health gauge.

Exit status: 0 healthy, 1 findings, 3 corruption or a store error, 4 locked.`,
		Example: `  ankusa-store counters verify /var/lib/ankusa/store
  ankusa-store counters verify --tenant acme -o json /var/lib/ankusa/store
  ankusa-store counters verify --repair --yes /srv/copy-of-store`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			if c.Flags().Changed("tenant") && opts.tenant == "" {
				return exitcode.Usagef("--tenant needs a tenant id; leave it out to check the whole store")
			}
			return runCountersVerify(c.Context(), env, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.tenant, "tenant", "", "check only this tenant: its id, or @N for the tenant of ordinal N")
	f.BoolVar(&opts.secondary, "secondary", false, "open the store as a RocksDB secondary instance (follows a running node)")
	f.BoolVar(&opts.repair, "repair", false, "write a corrective merge operand for every counter mismatch (needs --yes)")
	f.BoolVar(&opts.yes, "yes", false, "confirm --repair")
	f.StringVar(&opts.checkpoint, "backup", "", "with --repair: where the checkpoint goes (must not exist; default STORE.pre-repair-<time>), as migrate --backup")
	// One name for one thing: the checkpoint a command takes before it writes is --backup
	// in migrate and repair alike (the runbook's name); --checkpoint was repair's.
	cmdutil.DeprecatedAlias(env.IO.Err, c, "checkpoint", "backup")
	f.StringVar(&opts.metrics, "metrics-file", "", "also write the result as Prometheus metrics to this file, atomically (for node_exporter's textfile collector)")
	dirFlag(c, "backup")
	storeArg(c)
	return c
}

func runCountersVerify(ctx context.Context, env *Env, opts *countersVerifyOptions) error {
	switch {
	case opts.repair && !opts.yes:
		return exitcode.Usagef("--repair writes corrective merge operands into the store: add --yes to go ahead")
	case opts.yes && !opts.repair:
		return exitcode.Usagef("--yes confirms --repair, which was not given")
	case opts.repair && opts.secondary:
		return exitcode.Usagef("--repair opens the store read-write, exclusively; it cannot be --secondary")
	case opts.checkpoint != "" && !opts.repair:
		return exitcode.Usagef("--backup is for --repair")
	}
	if err := checkMetricsFile(opts.metrics); err != nil {
		return err
	}
	env.setWrites(opts.repair)
	start := time.Now()
	var v verifyOutcome
	err := runCountersVerifyStore(ctx, env, opts, start, &v)
	if opts.metrics != "" && exitcode.Of(err) != exitcode.Usage {
		// After the report is printed: a file that cannot be written loses neither it nor
		// the exit status.
		writeRunMetrics(env, opts.metrics, verifyMetrics(opts.store, v.rep, v.agg, err, time.Since(start), env.Now()))
	}
	return err
}

// verifyOutcome is what a verify (or a repair) got to, for the metrics file: rep is its
// verdict (after the repair), nil when it reached none; agg the aggregate as stored.
type verifyOutcome struct {
	rep *health.Report
	agg *inspect.TenantCounters
}

func runCountersVerifyStore(ctx context.Context, env *Env, opts *countersVerifyOptions, start time.Time, v *verifyOutcome) error {
	mode := rocks.ReadOnly
	switch {
	case opts.repair:
		mode = rocks.ReadWrite
	case opts.secondary:
		mode = rocks.Secondary
	}
	if opts.secondary && isArchive(opts.store) {
		return exitcode.Usagef("--secondary follows a running node's store directory, not an archive")
	}
	formatTwo := false
	if opts.repair && !isArchive(opts.store) {
		// A read-write open writes into the store (RocksDB's info log, some 100 KB of
		// options, into LOG) before it finds a damaged table: a store that does not open
		// read-only, which writes nothing, is refused with that open's error first (and a
		// path that is no store is said so, before the checkpoint's place is weighed).
		f, err := repairOpensReadOnly(env, opts.store)
		if err != nil {
			return err
		}
		if f == format.Format2 {
			// No counters before format 3: nothing to repair, which this read-only look
			// decides. The store is not opened for writing at all (a read-write open
			// rewrites CURRENT, the MANIFEST and the WAL even when nothing is written).
			formatTwo, mode = true, rocks.ReadOnly
			env.setWrites(false)
		}
	}
	if opts.repair && !isArchive(opts.store) && !formatTwo {
		// Before the store is touched: the checkpoint's place, and room for it.
		cp, err := checkpoint.PlaceRepair(opts.store, opts.checkpoint, env.Now())
		if err != nil {
			return exitcode.Checkpoint(err)
		}
		opts.checkpoint = cp
	}
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: mode})
	if err != nil {
		return err
	}
	defer closeStore()
	if opts.tenant != "" && st.Format != format.Format3 {
		return exitcode.Usagef("--tenant: %s is format %d, which has no tenants: counters do not exist before format 3", opts.store, st.Format)
	}
	if opts.tenant != "" {
		typed, err := parseTenant("--tenant", opts.tenant)
		if err != nil {
			return err
		}
		if opts.scope, err = env.tenant(ctx, st, opts.store, typed); err != nil {
			return err
		}
		opts.tenant = opts.scope.ID
	}
	p := env.Progress("counters verify "+opts.store+": folding every key family", "keys", verifyKeyEstimate(st, opts.tenant))
	p.Approx()
	if opts.repair && formatTwo {
		return formatTwoRepair(ctx, env, opts, st, p, start, v)
	}
	if opts.repair {
		return runCountersRepair(ctx, env, opts, st, p, start, v)
	}
	rep, err := health.Verify(ctx, st, health.VerifyOptions{Tenant: opts.scope, Progress: verifyProgress(p, opts.store)})
	p.Done()
	if rep == nil {
		return verifyUsage(err)
	}
	v.rep, v.agg = rep, verifyAggregate(opts, st)
	if env.JSON() {
		if err := ui.WriteJSON(env.IO.Out, env.verifyJSON(opts, rep, start, nil)); err != nil {
			return err
		}
		return verifyVerdict(rep, err, false)
	}
	if perr := printVerify(env, opts, rep, time.Since(start)); perr != nil {
		return perr
	}
	// In the report the verdict is the last line on stdout: not repeated on stderr. Beside
	// TSV (as beside JSON) the verdict row is for the script, the error line for the person.
	return verifyVerdict(rep, err, env.verifyReport())
}

// verifyKeyEstimate is RocksDB's estimate of the keys a verify reads (for the progress
// line's total and ETA); 0, unknown, for one tenant or when RocksDB has no estimate.
func verifyKeyEstimate(st *rocks.Store, tenant string) int64 {
	if tenant != "" {
		return 0
	}
	var n int64
	for _, cf := range st.Families() {
		k, _, _ := st.IntProperty(cf, "rocksdb.estimate-num-keys")
		n += int64(k)
	}
	return n
}

// repairOpensReadOnly opens the store read-only and closes it: its format, or why it does not
// open (as the read-write open would say it: corruption, not a store, mid-migration...).
func repairOpensReadOnly(env *Env, store string) (uint32, error) {
	st, closeStore, err := env.openStore(store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return 0, err
	}
	defer closeStore()
	return st.Format, nil
}

// formatTwoRepair is --repair on a format 2 store, opened read-only: it has no counters, so
// there is nothing to repair and no checkpoint to take; the verify's one report is the
// store's, with the repair's lines saying so.
func formatTwoRepair(ctx context.Context, env *Env, opts *countersVerifyOptions, st *rocks.Store, p *progress.Progress, start time.Time, v *verifyOutcome) error {
	rep, err := health.Verify(ctx, st, health.VerifyOptions{Tenant: opts.scope, Progress: verifyProgress(p, opts.store)})
	p.Done()
	if rep == nil {
		return verifyUsage(err)
	}
	if errors.Is(err, context.Canceled) {
		return interrupted("nothing was written, the store is as it was; run the same command again")
	}
	res := &health.RepairResult{Operands: []health.RepairOperand{}, Before: rep, After: rep}
	state := repairState{field: "nothing", checkpoint: "none taken (nothing to write)", once: true,
		text: "nothing written: a format 2 store has no counters to repair (they begin at format 3); it was opened read-only"}
	v.rep, v.agg = rep, verifyAggregate(opts, st)
	if env.JSON() {
		if jerr := ui.WriteJSON(env.IO.Out, env.verifyJSON(opts, rep, start, res)); jerr != nil {
			return jerr
		}
		return verifyVerdict(rep, err, false)
	}
	if !env.verifyReport() {
		return printRepairRows(env, res, state, err, time.Since(start))
	}
	w := env.IO.Out
	fmt.Fprintln(w, "checkpoint: "+state.checkpoint)
	if perr := printVerify(env, opts, rep, time.Since(start)); perr != nil {
		return perr
	}
	fmt.Fprintln(w, env.wrap("repair: "+state.text))
	return verifyVerdict(rep, err, true)
}

func runCountersRepair(ctx context.Context, env *Env, opts *countersVerifyOptions, st *rocks.Store, p *progress.Progress, start time.Time, v *verifyOutcome) error {
	// The checkpoint is marked before the write, as migrate marks its own: a run killed
	// between the two leaves a checkpoint that says what it is, in the store's record.
	cp := checkpoint.RepairPolicy(opts.store, opts.checkpoint, env.Now)
	res, err := health.Repair(ctx, st, health.RepairOptions{Tenant: opts.scope, Checkpoint: cp, Progress: verifyProgress(p, opts.store)})
	p.Done()
	if res == nil {
		return verifyUsage(err)
	}
	if errors.Is(err, context.Canceled) {
		// Stopped in one of the two verifies (the write between them is one batch).
		if res.Synced {
			return interrupted("the repair was written (%s, checkpoint %s); the verify after it did not finish: run 'counters verify %s'",
				words.Count(int64(len(res.Operands)), "corrective operand", "corrective operands"), res.Checkpoint, opts.store)
		}
		return interrupted("nothing was written, the store is as it was; run the same command again")
	}
	// The file describes the store as the run leaves it: after the repair (before it, when
	// the store is corrupt and nothing was written); no verdict when the repair failed, for
	// then no report says what the store holds.
	state := repairStateOf(res, err, opts.store)
	switch {
	case state.failed:
		v.rep = nil
	case res.Before.Verdict == health.VerdictCorrupt:
		v.rep = res.Before
	default:
		v.rep = res.After
	}
	v.agg = verifyAggregate(opts, st)
	if state.failed {
		// The error says the store's state first, then what failed; no report stands for
		// the store as it is, so -o json gets the error document alone.
		err = &exitcode.Error{Code: exitcode.Of(err), Err: fmt.Errorf("%s: %w", state.text, err)}
	}
	if env.JSON() {
		if state.failed {
			return err
		}
		if jerr := ui.WriteJSON(env.IO.Out, env.verifyJSON(opts, res.After, start, res)); jerr != nil {
			return jerr
		}
		return verifyVerdict(res.After, err, false)
	}
	if res.Before == nil {
		// The verify before the repair had no report: there is nothing to print.
		return err
	}
	if !env.verifyReport() {
		return printRepairRows(env, res, state, err, time.Since(start))
	}
	// The checkpoint, the repair's own lines and both reports are the result, on stdout.
	w := env.IO.Out
	if res.Checkpoint != "" {
		fmt.Fprintf(w, "checkpoint: %s\n", ui.SafeLine(res.Checkpoint))
	} else {
		fmt.Fprintln(w, "checkpoint: "+state.checkpoint)
	}
	fmt.Fprintln(w, "before repair:")
	if perr := printVerify(env, opts, res.Before, time.Since(start)); perr != nil {
		return perr
	}
	fmt.Fprintln(w, env.wrap("repair: "+state.text))
	if state.failed || res.Before.Verdict == health.VerdictCorrupt {
		return verifyVerdict(res.Before, err, true)
	}
	fmt.Fprintln(w, "after repair:")
	if perr := printVerify(env, opts, res.After, time.Since(start)); perr != nil {
		return perr
	}
	return verifyVerdict(res.After, err, true)
}

// verifyUsage maps what kept verify from running: an unknown tenant is the
// caller's mistake; the rest (mid-migration, a failed read) is the store's.
func verifyUsage(err error) error {
	if errors.Is(err, format.ErrNoSuchTenant) {
		return exitcode.Usagef("--tenant: %v", err)
	}
	return err
}

// verdict is the command's result: corruption as it is (exit 3), findings
// as exit 1 with the one-line verdict.
// reported says the verdict is already on stdout, so it is not repeated on stderr.
func verifyVerdict(rep *health.Report, err error, reported bool) error {
	if err != nil {
		return err
	}
	if rep.Healthy {
		return nil
	}
	e := findingsErr("verdict: %s", rep.Summary())
	e.(*exitcode.Error).Reported = reported
	return e
}

// verifyProgress is p for the fold: its line names the families the fold reads now, and the
// keys, rate and ETA count over the whole fold (one key estimate covers every family).
func verifyProgress(p *progress.Progress, store string) reporting.Reporter {
	return p.Scoped(func(families string) string {
		if families == "" {
			families = "finishing"
		}
		return "counters verify " + store + ": reading " + families
	}, false)
}
