package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { registerSchema("ankusa-store counters verify", verifyOutput{}) }

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

// verifyOutput is counters verify's JSON: the Report (documented in package
// inspect) and, with --repair, what the repair did; the Report is then the
// verify after the repair, and repair.before the one before it.
type verifyOutput struct {
	health.Report
	// Store is the path verified, ToolVersion the ankusa-store that verified it, StartedAt
	// when (UTC) and DurationMS how long it took: what a CI log needs beside the verdict.
	Store       string               `json:"store"`
	ToolVersion string               `json:"tool_version"`
	StartedAt   time.Time            `json:"started_at"`
	DurationMS  int64                `json:"duration_ms"`
	Repair      *health.RepairResult `json:"repair,omitempty"`
}

func (env *Env) verifyJSON(opts *countersVerifyOptions, rep *health.Report, start time.Time, repair *health.RepairResult) verifyOutput {
	return verifyOutput{Report: *rep, Store: opts.store, ToolVersion: env.Build.Version,
		StartedAt: start.UTC().Truncate(time.Millisecond), DurationMS: time.Since(start).Milliseconds(), Repair: repair}
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
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			if c.Flags().Changed("tenant") && opts.tenant == "" {
				return usageErr("--tenant needs a tenant id; leave it out to check the whole store")
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
	deprecatedAlias(env, c, "checkpoint", "backup")
	f.StringVar(&opts.metrics, "metrics-file", "", "also write the result as Prometheus metrics to this file, atomically (for node_exporter's textfile collector)")
	dirFlag(c, "backup")
	storeArg(c)
	return c
}

func runCountersVerify(ctx context.Context, env *Env, opts *countersVerifyOptions) error {
	switch {
	case opts.repair && !opts.yes:
		return usageErr("--repair writes corrective merge operands into the store: add --yes to go ahead")
	case opts.yes && !opts.repair:
		return usageErr("--yes confirms --repair, which was not given")
	case opts.repair && opts.secondary:
		return usageErr("--repair opens the store read-write, exclusively; it cannot be --secondary")
	case opts.checkpoint != "" && !opts.repair:
		return usageErr("--backup is for --repair")
	}
	if err := checkMetricsFile(opts.metrics); err != nil {
		return err
	}
	env.finishWork = opts.repair
	start := time.Now()
	var v verifyOutcome
	err := runCountersVerifyStore(ctx, env, opts, start, &v)
	if opts.metrics != "" && ExitCode(err) != ExitUsage {
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
		return usageErr("--secondary follows a running node's store directory, not an archive")
	}
	if opts.repair && !isArchive(opts.store) {
		// A read-write open writes into the store (RocksDB's info log, some 100 KB of
		// options, into LOG) before it finds a damaged table: a store that does not open
		// read-only, which writes nothing, is refused with that open's error first (and a
		// path that is no store is said so, before the checkpoint's place is weighed).
		if err := repairOpensReadOnly(opts.store); err != nil {
			return err
		}
		// Before the store is touched: the checkpoint's place, and room for it.
		cp, err := checkpoint.PlaceRepair(opts.store, opts.checkpoint, env.Now())
		if err != nil {
			return checkpointErr(err)
		}
		opts.checkpoint = cp
	}
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: mode})
	if err != nil {
		return err
	}
	defer closeStore()
	if opts.tenant != "" && st.Format != format.Format3 {
		return usageErr("--tenant: %s is format %d, which has no tenants: counters do not exist before format 3", opts.store, st.Format)
	}
	if opts.tenant != "" {
		typed, err := parseTenant("--tenant", opts.tenant)
		if err != nil {
			return err
		}
		if opts.scope, err = env.tenant(ctx, st, typed); err != nil {
			return err
		}
		opts.tenant = opts.scope.ID
	}
	p := env.Progress("counters verify "+opts.store+": folding every key family", "keys", verifyKeyEstimate(st, opts.tenant))
	p.Approx()
	if opts.repair {
		return runCountersRepair(ctx, env, opts, st, p, start, v)
	}
	rep, err := health.Verify(ctx, st, health.VerifyOptions{Tenant: opts.scope, Progress: p.Add, Phase: verifyPhase(p, opts.store)})
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

// verifyReport: the report (mismatch tables, finding blocks, the verdict in colour) is what
// a terminal shows, or -o table anywhere; piped or redirected, or with -o tsv, the result is
// TSV rows on stdout as every command's is (verifyRows), which -q never drops.
func (env *Env) verifyReport() bool { return env.table() }

// repairOpensReadOnly opens the store read-only and closes it: nil, or why it does not open
// (as the read-write open would say it: corruption, not a store, mid-migration...).
func repairOpensReadOnly(store string) error {
	_, closeStore, err := openStore(store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	closeStore()
	return nil
}

func runCountersRepair(ctx context.Context, env *Env, opts *countersVerifyOptions, st *rocks.Store, p *progress.Progress, start time.Time, v *verifyOutcome) error {
	cp := opts.checkpoint
	// The checkpoint is marked before the write, as migrate marks its own: a run killed
	// between the two leaves a checkpoint that says what it is, in the store's record.
	mark := func(dir string) error { return checkpoint.MarkRepair(dir, opts.store, env.Now()) }
	res, err := health.Repair(ctx, st, health.RepairOptions{Tenant: opts.scope, Checkpoint: cp, AfterCheckpoint: mark, Progress: p.Add, Phase: verifyPhase(p, opts.store)})
	p.Done()
	if res == nil {
		return verifyUsage(err)
	}
	if errors.Is(err, context.Canceled) {
		// Stopped in one of the two verifies (the write between them is one batch).
		if res.Synced {
			return interrupted("the repair was written (%s, checkpoint %s); the verify after it did not finish: run 'counters verify %s'",
				plural(int64(len(res.Operands)), "corrective operand", "corrective operands"), res.Checkpoint, opts.store)
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
		err = &ExitError{Code: ExitCode(err), Err: fmt.Errorf("%s: %w", state.text, err)}
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

// repairState is what a repair left in the store, said as it is: what was written (nothing,
// the batch not at all, the batch written and synced) and whether the verify after it has a
// report. field is its one word for the TSV row.
type repairState struct {
	field, text, checkpoint string
	// failed: the repair stopped on an error with no report of the store as it is now.
	failed bool
}

func repairStateOf(res *health.RepairResult, err error, store string) repairState {
	n := int64(len(res.Operands))
	ops := plural(n, "corrective int_add operand", "corrective int_add operands")
	switch {
	case res.Before == nil:
		return repairState{field: "nothing", failed: true, checkpoint: "none taken",
			text: "nothing written and no checkpoint taken: the verify before the repair did not finish; the store is as it was"}
	case res.Before.Verdict == health.VerdictCorrupt:
		return repairState{field: "nothing", checkpoint: "none taken (nothing to write)",
			text: "nothing written: the store is corrupt, and a merge that fails on a bad operand fails whatever is added to it"}
	case err != nil && res.Checkpoint == "" && len(res.Before.CounterMismatches) > 0:
		return repairState{field: "nothing", failed: true, checkpoint: "none taken (it failed)",
			text: "nothing written: the checkpoint before the write failed, so no operand was written; the store is as it was"}
	case len(res.Before.CounterMismatches) == 0:
		return repairState{field: "nothing", checkpoint: "none taken (nothing to write)",
			text: "nothing written: no counter differs from its fold"}
	case err != nil && res.Checkpoint != "" && len(res.Operands) == 0:
		return repairState{field: "nothing", failed: true,
			text: fmt.Sprintf("nothing written: the checkpoint %s was taken but could not be marked as this repair's, so no operand was written; the store is as it was", res.Checkpoint)}
	case err != nil && !res.Synced:
		return repairState{field: "not_written", failed: true,
			text: fmt.Sprintf("the batch of %s was not written: the store reads as before the repair (a batch is applied whole or not at all; had its log record reached the disk, the next open would apply it whole): run 'counters verify %s' to see which; the checkpoint %s holds the store as it was",
				ops, store, res.Checkpoint)}
	case res.After == nil || err != nil && !errors.Is(err, rocks.ErrCorrupt):
		return repairState{field: "written_unverified", failed: true,
			text: fmt.Sprintf("wrote %s (folded - stored) in one synced batch; the verify after it did not finish, so nothing says what the store holds now: run 'counters verify %s'", ops, store)}
	}
	return repairState{field: "written", text: fmt.Sprintf("wrote %s (folded - stored) in one synced batch", ops)}
}

// printRepairRows is the repair piped or with -o tsv: the report before the repair as
// verifyRows has it, then its checkpoint row (field taken or none, detail the path) and its
// repair row (field written, nothing, not_written or written_unverified; detail what the
// store holds, in words); a blank line; and the report after the repair, the one that
// decides the exit status, with its own header (none when the repair failed).
func printRepairRows(env *Env, res *health.RepairResult, state repairState, err error, took time.Duration) error {
	rows := verifyRows(res.Before, took)
	none := ui.Text("")
	row := func(check, field, detail string) {
		rows.Add(ui.Text(check), none, none, ui.Text(field), none, none, none, none, ui.Text(detail))
	}
	if res.Checkpoint != "" {
		row("checkpoint", "taken", res.Checkpoint)
	} else {
		row("checkpoint", "none", state.checkpoint)
	}
	row("repair", state.field, state.text)
	if perr := env.renderRows(rows); perr != nil {
		return perr
	}
	if state.failed || res.Before.Verdict == health.VerdictCorrupt {
		return verifyVerdict(res.Before, err, false)
	}
	fmt.Fprintln(env.IO.Out)
	if perr := env.renderRows(verifyRows(res.After, took)); perr != nil {
		return perr
	}
	return verifyVerdict(res.After, err, false)
}

// verifyUsage maps what kept verify from running: an unknown tenant is the
// caller's mistake; the rest (mid-migration, a failed read) is the store's.
func verifyUsage(err error) error {
	if errors.Is(err, format.ErrNoSuchTenant) {
		return usageErr("--tenant: %v", err)
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
	e.(*ExitError).Reported = reported
	return e
}

// printVerify prints a verify's result on stdout. As a report (a terminal, or -o table):
// counter mismatches as a table, every other finding as a block of fields with its keys
// decoded and in hex and a next: line, then what was counted, what was not checked and the
// verdict. Piped or with -o tsv: verifyRows, the same facts as rows.
func printVerify(env *Env, opts *countersVerifyOptions, rep *health.Report, took time.Duration) error {
	if !env.verifyReport() {
		return env.renderRows(verifyRows(rep, took))
	}
	w := env.IO.Out
	if len(rep.CounterMismatches) > 0 {
		fmt.Fprintf(w, "%s:\n", plural(int64(len(rep.CounterMismatches)), "counter mismatch", "counter mismatches"))
		if err := env.writeTable(w, mismatchRows(rep)); err != nil {
			return err
		}
		next := nextRepair(opts, rep)
		if opts.repair && opts.yes {
			// This run is the repair: telling it to run itself would send the operator round.
			next = "this run's repair writes the corrective operands (folded - stored) for these counters: see repair: below"
		}
		fmt.Fprintln(w, env.wrapNext(next))
		fmt.Fprintln(w)
	}
	for _, f := range rep.Findings {
		printFinding(env, w, f)
	}
	for _, c := range rep.Corruption {
		printCorruption(env, w, c)
	}
	verifyTail(env, w, rep)
	verdict := "verdict: " + verdictText(rep, took)
	color := ui.ColorGreen
	switch rep.Verdict {
	case health.VerdictFindings:
		color = ui.ColorYellow
	case health.VerdictCorrupt:
		color = ui.ColorRed
	}
	_, err := fmt.Fprint(w, env.paint(false, color, strings.TrimSuffix(env.wrap(verdict), "\n"))+"\n")
	return err
}

// verdictText is the verdict sentence: the summary, and for a healthy store how long the
// check took and how fast it read.
func verdictText(rep *health.Report, took time.Duration) string {
	if rep.Healthy {
		return rep.Summary() + " in " + took.Round(time.Millisecond).String() + verifyRate(rep, took)
	}
	return rep.Summary()
}

func verifyRate(rep *health.Report, took time.Duration) string {
	if s := took.Seconds(); s > 0 {
		return fmt.Sprintf(", %s keys/s", groupDigits(int64(float64(rep.Keys)/s)))
	}
	return ""
}

// verifyTail is what the contract allows (counted), what was not checked and the findings
// beyond the listed ones: the report's lines; verifyRows has them as rows.
func verifyTail(env *Env, w io.Writer, rep *health.Report) {
	line := func(s string) { fmt.Fprint(w, env.wrap(s)) }
	if c := verifyCounts(rep.Counts); c != "" {
		line("counted (the contract allows them): " + c)
	}
	for _, n := range rep.NotChecked {
		line("not checked: " + n.Check + ": " + n.Reason)
	}
	checks := make([]string, 0, len(rep.FindingsOmitted))
	for check := range rep.FindingsOmitted {
		checks = append(checks, check)
	}
	sort.Strings(checks)
	for _, check := range checks {
		n := rep.FindingsOmitted[check]
		fmt.Fprintf(w, "note: %s more %s not listed\n", groupDigits(n), plural(n, check+" finding", check+" findings")[len(groupDigits(n))+1:])
	}
}

func mismatchRows(rep *health.Report) ui.Rows {
	rows := ui.Rows{Columns: []ui.Column{
		{Header: "Ord", Right: true}, {Header: "Tenant"}, {Header: "Field"},
		{Header: "Stored", Right: true}, {Header: "Folded", Right: true}, {Header: "Delta", Right: true},
		{Header: "Key", Drop: 2}, {Header: "Key hex", Drop: 1},
	}}
	for _, m := range rep.CounterMismatches {
		delta := ui.Int(m.Delta)
		if m.Delta > 0 {
			delta.Human = "+" + delta.Human
		}
		delta.Color = ui.ColorYellow
		rows.Add(ui.ID(m.Tenant.Ord), ui.Text(m.Tenant.Name()), ui.Text(m.Field), ui.Int(m.Stored), ui.Int(m.Folded), delta, ui.Text(m.Key.Key), ui.Text(m.Key.Hex))
	}
	return rows
}

// nextRepair says what the repair will write.
func nextRepair(opts *countersVerifyOptions, rep *health.Report) string {
	cmd := "ankusa-store counters verify --repair --yes "
	if opts.tenant != "" {
		cmd += "--tenant " + opts.tenant + " "
	}
	return fmt.Sprintf("%s%s (with the node stopped): takes a checkpoint, then writes %s, delta = folded - stored, into these counters in one synced batch; it overwrites no counter and touches no row",
		cmd, opts.store, plural(int64(len(rep.CounterMismatches)), "int_add merge operand", "int_add merge operands"))
}

// nextFor is what to do about a finding of a check: the next: line of its block.
func nextFor(check string) string {
	switch check {
	case health.CheckMarkerMissing:
		return "the due rows of this second are stuck: the dispatcher reaches due rows only through their active marker (A), so nothing delivers them until a marker exists. The node writes markers as it schedules; no ankusa-store command writes one. Keep the store, and report this finding with its keys (the hex above) before the node is upgraded"
	case health.CheckDeadByTenantMissing, health.CheckDeadMissing, health.CheckDeadWithoutOrd:
		return "the dead-letter views disagree with the dead rows (dlq scan --tenant reads X, revive reads x): do not repair by hand; report this finding with its keys, and check the other views with ankusa-store dlq scan"
	case health.CheckTenantMaps, health.CheckOrdWithoutTenant, health.CheckOrdNotBelowNext, health.CheckNextOrd, health.CheckTenantOrdZero, health.CheckIndexOrdZero:
		return "the tenant maps are inconsistent, so a new tenant may reuse an ordinal: do not start the node on this store; restore the migration's checkpoint if this came from migrate, else report it with the keys above"
	case health.CheckDeliveryIndexKeys:
		return "this delivery is queued twice and may be delivered twice: report it with the keys above; the node's recovery keeps one index key"
	case health.CheckBadKey, health.CheckBadValue, health.CheckArchiveWithoutOrd, health.CheckCounterKey, health.CheckCounterValue:
		return "a key or value breaks the format: do not migrate or repair; restore the checkpoint, or copy the store (cp -a, node stopped) for a bug report with the hex above"
	}
	return "report this finding with the keys above"
}

const nextCorruption = "do not migrate or repair this store: restore the checkpoint (the migration's or repair's), or copy the store (cp -a, node stopped) for a bug report"

// printFinding prints one finding as a block: the check, its tenant, each key decoded
// and in hex (what scan --from and keys decode take), the detail and what to do next.
func printFinding(env *Env, w io.Writer, f health.Finding) {
	head := f.Check
	if f.Invariant > 0 {
		head += fmt.Sprintf(" (invariant %d)", f.Invariant)
	}
	fmt.Fprintln(w, env.paint(false, ui.ColorYellow, head))
	lines := [][2]string{}
	if f.Tenant != nil {
		lines = append(lines, [2]string{"tenant", f.Tenant.String()})
	}
	lines = append(lines, [2]string{"key", f.Key.Key}, [2]string{"hex", f.Key.Hex}, [2]string{"detail", f.Detail})
	for _, k := range f.Related {
		lines = append(lines, [2]string{"related", k.Key + " (hex " + k.Hex + ")"})
	}
	lines = append(lines, [2]string{"next", nextFor(f.Check)})
	printFields(env, w, lines)
	fmt.Fprintln(w)
}

func printCorruption(env *Env, w io.Writer, c health.Corruption) {
	fmt.Fprintln(w, env.paint(false, ui.ColorRed, "corruption"))
	lines := [][2]string{{"family", c.Family + " (" + c.CF + ")"}}
	if c.Key != nil {
		lines = append(lines, [2]string{"key", c.Key.Key}, [2]string{"hex", c.Key.Hex})
	}
	lines = append(lines, [2]string{"detail", c.Detail}, [2]string{"next", nextCorruption})
	printFields(env, w, lines)
	fmt.Fprintln(w)
}

// printFields prints "  name: value" lines, values wrapped to the terminal.
func printFields(env *Env, w io.Writer, lines [][2]string) {
	width := env.width()
	if width > 0 {
		width = max(width-2, 1)
	}
	for _, l := range lines {
		text := ui.RecordLine(l[0]+":", ui.SafeLine(l[1]), 8, width)
		for _, line := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
			io.WriteString(w, "  "+strings.TrimSuffix(line, "\n")+"\n")
		}
	}
}

// wrapNext is a next: line wrapped to the terminal.
func (env *Env) wrapNext(s string) string {
	return strings.TrimSuffix(ui.RecordLine("next:", ui.SafeLines(s), 5, env.width()), "\n")
}

func verifyCounts(c health.Counts) string {
	var parts []string
	add := func(p *int64, one, many string) {
		if p == nil {
			return
		}
		parts = append(parts, words.Group(*p)+" "+words.Plural(*p, one, many))
	}
	for _, k := range countKinds(c) {
		if k.n != nil && (k.name != "undecodable_delivery_rows" || *k.n > 0) {
			add(k.n, k.one, k.many)
		}
	}
	if c.UndecodableDeliveryRows != nil && *c.UndecodableDeliveryRows > 0 {
		keys := make([]string, 0, 3)
		for i, k := range c.UndecodableDeliveryKeys {
			if i == 3 {
				keys = append(keys, "...")
				break
			}
			keys = append(keys, k.Key)
		}
		parts[len(parts)-1] += " (" + strings.Join(keys, ", ") + ")"
	}
	return strings.Join(parts, ", ")
}

// countKind is one count of what the contract allows: its JSON (and TSV) name and its words.
type countKind struct {
	name, one, many string
	n               *int64
}

// countKinds lists the counts a report can hold, in the report's order; n is nil for one
// the run did not count.
func countKinds(c health.Counts) []countKind {
	return []countKind{
		{"stale_active_markers", "stale active marker", "stale active markers", c.StaleActiveMarkers},
		{"leaked_delivery_rows", "leaked delivery row", "leaked delivery rows", c.LeakedDeliveryRows},
		{"index_rows_without_delivery", "index row without its delivery row", "index rows without their delivery row", c.IndexRowsWithoutDelivery},
		{"index_rows_without_hook", "index row without its hook", "index rows without their hook", c.IndexRowsWithoutHook},
		{"delivery_rows_without_hook", "delivery row without its hook", "delivery rows without their hook", c.DeliveryRowsWithoutHook},
		{"undecodable_delivery_rows", "undecodable delivery row (size 0)", "undecodable delivery rows (size 0)", c.UndecodableDeliveryRows},
	}
}

// verifyRows is the one row builder: counter mismatches, findings and corruption, then
// what was counted (counted, field = the count's JSON name, detail = the count), what was
// not checked (not_checked, field = the check, detail = why), the findings counted beyond
// the listed ones (not_listed, field = the check, detail = how many) and last the verdict
// (verdict, field = healthy, findings or corrupt, detail = the verdict sentence): one
// table, so that a script reads one stream, and the whole result, as the report has it.
func verifyRows(rep *health.Report, took time.Duration) ui.Rows {
	rows := ui.Rows{Columns: []ui.Column{
		{Header: "Check"}, {Header: "Ord", Right: true}, {Header: "Tenant"}, {Header: "Field"},
		{Header: "Stored", Right: true}, {Header: "Folded", Right: true}, {Header: "Delta", Right: true},
		{Header: "Key"}, {Header: "Detail"},
	}}
	none := ui.Text("")
	for _, m := range rep.CounterMismatches {
		delta := ui.Int(m.Delta)
		if m.Delta > 0 {
			delta.Human = "+" + delta.Human
		}
		rows.Add(ui.Text("counter_mismatch"), ui.Int(int64(m.Tenant.Ord)), ui.Text(m.Tenant.Name()), ui.Text(m.Field),
			ui.Int(m.Stored), ui.Int(m.Folded), delta, ui.Text(m.Key.Key), none)
	}
	for _, f := range rep.Findings {
		ord, tenant := none, none
		if f.Tenant != nil {
			ord, tenant = ui.Int(int64(f.Tenant.Ord)), ui.Text(f.Tenant.Name())
		}
		detail := f.Detail
		if len(f.Related) > 0 {
			rel := make([]string, len(f.Related))
			for i, r := range f.Related {
				rel[i] = r.Key
			}
			detail += "; related: " + strings.Join(rel, ", ")
		}
		rows.Add(ui.Text(f.Check), ord, tenant, none, none, none, none, ui.Text(f.Key.Key), ui.Text(detail))
	}
	for _, c := range rep.Corruption {
		key := none
		if c.Key != nil {
			key = ui.Text(c.Key.Key)
		}
		rows.Add(ui.Text("corruption"), none, none, none, none, none, none, key, ui.Text(fmt.Sprintf("family %s (%s): %s", c.Family, c.CF, c.Detail)))
	}
	note := func(check, field string, key, detail ui.Cell) {
		rows.Add(ui.Text(check), none, none, ui.Text(field), none, none, none, key, detail)
	}
	for _, k := range countKinds(rep.Counts) {
		if k.n == nil {
			continue
		}
		key := none
		if k.name == "undecodable_delivery_rows" && len(rep.Counts.UndecodableDeliveryKeys) > 0 {
			key = ui.Text(rep.Counts.UndecodableDeliveryKeys[0].Key)
		}
		note("counted", k.name, key, ui.Int(*k.n))
	}
	for _, n := range rep.NotChecked {
		note("not_checked", n.Check, none, ui.Text(n.Reason))
	}
	checks := make([]string, 0, len(rep.FindingsOmitted))
	for check := range rep.FindingsOmitted {
		checks = append(checks, check)
	}
	sort.Strings(checks)
	for _, check := range checks {
		note("not_listed", check, none, ui.Int(rep.FindingsOmitted[check]))
	}
	note("verdict", rep.Verdict, none, ui.Text(verdictText(rep, took)))
	return rows
}

// verifyPhase names on the progress line the families the fold reads now; the keys, rate and
// ETA count over the whole fold (one key estimate covers every family).
func verifyPhase(p *progress.Progress, store string) func(string) {
	return func(families string) {
		if families == "" {
			families = "finishing"
		}
		p.SetLabel("counters verify " + store + ": reading " + families)
	}
}
