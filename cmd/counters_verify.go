package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { registerSchema("ankusa-store counters verify", verifyOutput{}) }

type countersVerifyOptions struct {
	store      string
	tenant     string
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
	Repair *health.RepairResult `json:"repair,omitempty"`
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
and, when counters differ, takes a checkpoint (--checkpoint, which must not exist:
exit 2 before the store is touched; by default STORE.pre-repair-<time>, with a -2, -3...
suffix if taken), writes one corrective int_add merge operand (folded - stored) per
counter mismatch in one synced batch, never overwriting a counter, and verifies again;
both results are printed. It writes nothing, and takes no checkpoint, when no counter
differs or the store is corrupt, and fixes only counters. Before opening the store it
checks that the checkpoint's file system has room for it (exit 3 when short).

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
	f.StringVar(&opts.tenant, "tenant", "", "check only this tenant id")
	f.BoolVar(&opts.secondary, "secondary", false, "open the store as a RocksDB secondary instance (follows a running node)")
	f.BoolVar(&opts.repair, "repair", false, "write a corrective merge operand for every counter mismatch (needs --yes)")
	f.BoolVar(&opts.yes, "yes", false, "confirm --repair")
	f.StringVar(&opts.checkpoint, "checkpoint", "", "with --repair: where the checkpoint goes (must not exist; default STORE.pre-repair-<time>)")
	f.StringVar(&opts.metrics, "metrics-file", "", "also write the result as Prometheus metrics to this file, atomically (for node_exporter's textfile collector)")
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
		return usageErr("--checkpoint is for --repair")
	}
	if err := checkMetricsFile(opts.metrics); err != nil {
		return err
	}
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
		// Before the store is touched: the checkpoint's place, and room for it.
		cp, err := repairCheckpoint(env, opts)
		if err != nil {
			return err
		}
		opts.checkpoint = cp
	}
	st, closeStore, err := openStore(opts.store, rocks.Options{Mode: mode})
	if err != nil {
		return err
	}
	defer closeStore()
	if opts.tenant != "" && st.Format != format.Format3 {
		return usageErr("--tenant: %s is format %d, which has no tenants: counters do not exist before format 3", opts.store, st.Format)
	}
	p := env.NewProgress("verifying", "keys", 0)
	start := time.Now()
	if opts.repair {
		return runCountersRepair(ctx, env, opts, st, p)
	}
	rep, err := health.Verify(ctx, st, health.VerifyOptions{Tenant: opts.tenant, Progress: p.Add})
	p.Done()
	if rep == nil {
		return verifyUsage(err)
	}
	if opts.metrics != "" {
		if merr := verifyMetrics(env, opts, st, rep, time.Since(start)); merr != nil {
			return merr
		}
	}
	if perr := printVerify(env, rep, time.Since(start)); perr != nil {
		return perr
	}
	if env.JSON() {
		if err := env.render(verifyOutput{Report: *rep}, nil); err != nil {
			return err
		}
	}
	return verifyVerdict(rep, err)
}

// repairCheckpoint picks the repair's checkpoint directory and checks, before
// the store is opened, that it is free and that its file system has room: a
// given --checkpoint that exists is refused (exit 2); the default,
// STORE.pre-repair-<time>, gets a -2, -3... suffix when a repair in the same
// second took that name.
func repairCheckpoint(env *Env, opts *countersVerifyOptions) (string, error) {
	cp := opts.checkpoint
	if cp != "" {
		if _, err := os.Lstat(cp); err == nil {
			return "", usageErr("checkpoint directory %s exists; give another --checkpoint DIR (nothing was touched)", cp)
		}
	} else {
		base := filepath.Clean(opts.store) + ".pre-repair-" + env.Now().UTC().Format("20060102T150405Z")
		cp = base
		for i := 2; ; i++ {
			if _, err := os.Lstat(cp); err != nil {
				break
			}
			cp = fmt.Sprintf("%s-%d", base, i)
		}
	}
	// Table files are hard-linked on the store's file system (copied on another); the
	// WAL, MANIFEST and OPTIONS are copied; the operands are a few bytes a counter.
	same, err := diskspace.SameFS(opts.store, cp)
	if err != nil {
		return "", err
	}
	keep := func(name string) bool { return !strings.HasSuffix(name, ".sst") }
	if !same {
		keep = nil
	}
	n, err := diskspace.DirSize(opts.store, keep)
	if err != nil {
		return "", err
	}
	if err := diskspace.Check("the repair's checkpoint", filepath.Dir(cp), n+repairSlack); err != nil {
		return "", &ExitError{Code: ExitStore, Err: err}
	}
	return cp, nil
}

// repairSlack covers the corrective batch, its WAL record and RocksDB's own files.
const repairSlack = 4 << 20

func runCountersRepair(ctx context.Context, env *Env, opts *countersVerifyOptions, st *rocks.Store, p *Progress) error {
	cp := opts.checkpoint
	start := time.Now()
	res, err := health.Repair(ctx, st, health.RepairOptions{Tenant: opts.tenant, Checkpoint: cp, Progress: p.Add})
	p.Done()
	if res == nil {
		return verifyUsage(err)
	}
	if env.JSON() {
		if jerr := env.render(verifyOutput{Report: *res.After, Repair: res}, nil); jerr != nil {
			return jerr
		}
		return verifyVerdict(res.After, err)
	}
	if res.Checkpoint != "" {
		fmt.Fprintf(env.IO.Err, "checkpoint: %s\n", res.Checkpoint)
	} else {
		fmt.Fprintln(env.IO.Err, "checkpoint: none taken (nothing to write)")
	}
	fmt.Fprintln(env.IO.Err, "before repair:")
	if perr := printVerify(env, res.Before, time.Since(start)); perr != nil {
		return perr
	}
	if res.Before.Verdict == health.VerdictCorrupt {
		fmt.Fprintln(env.IO.Err, "repair: nothing written: the store is corrupt, and a merge that fails on a bad operand fails whatever is added to it")
		return verifyVerdict(res.Before, err)
	}
	if len(res.Operands) == 0 {
		fmt.Fprintln(env.IO.Err, "repair: nothing written: no counter differs from its fold")
	} else {
		fmt.Fprintf(env.IO.Err, "repair: wrote %d corrective int_add operand%s (folded - stored) in one synced batch\n",
			len(res.Operands), verifyPlural(len(res.Operands)))
	}
	fmt.Fprintln(env.IO.Err, "after repair:")
	if perr := printVerify(env, res.After, time.Since(start)); perr != nil {
		return perr
	}
	return verifyVerdict(res.After, err)
}

func verifyPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// verifyUsage maps what kept verify from running: an unknown tenant is the
// caller's mistake; the rest (mid-migration, a failed read) is the store's.
func verifyUsage(err error) error {
	if errors.Is(err, health.ErrNoSuchTenant) {
		return usageErr("--tenant: %v", err)
	}
	return err
}

// verdict is the command's result: corruption as it is (exit 3), findings
// as exit 1 with the one-line verdict.
func verifyVerdict(rep *health.Report, err error) error {
	if err != nil {
		return err
	}
	if rep.Healthy {
		return nil
	}
	return findingsErr("verdict: %s", rep.Summary())
}

// printVerify prints a report for people and scripts: the findings (table
// or TSV) on stdout, then what was counted, what was not checked and the
// verdict on stderr. JSON is printed by the caller.
func printVerify(env *Env, rep *health.Report, took time.Duration) error {
	if env.JSON() {
		return nil
	}
	rows := verifyRows(rep)
	table := env.Output == "table" || (env.Output == "" && env.IO.OutIsTerminal)
	if len(rows.Rows) > 0 || !table {
		if err := env.render(rep, func() Rows { return rows }); err != nil {
			return err
		}
	}
	w := env.IO.Err
	if !env.Quiet {
		if c := verifyCounts(rep.Counts); c != "" {
			fmt.Fprintf(w, "counted (the contract allows them): %s\n", c)
		}
		for _, n := range rep.NotChecked {
			fmt.Fprintf(w, "not checked: %s: %s\n", n.Check, n.Reason)
		}
		for check, n := range rep.FindingsOmitted {
			fmt.Fprintf(w, "note: %s more %s finding%s not listed\n", groupDigits(n), check, verifyPlural(int(n)))
		}
	}
	if rep.Healthy && !env.Quiet {
		rate := ""
		if s := took.Seconds(); s > 0 {
			rate = fmt.Sprintf(", %s keys/s", groupDigits(int64(float64(rep.Keys)/s)))
		}
		fmt.Fprintf(w, "verdict: %s in %s%s\n", rep.Summary(), took.Round(time.Millisecond), rate)
	}
	return nil
}

func verifyCounts(c health.Counts) string {
	var parts []string
	add := func(p *int64, one, many string) {
		if p == nil {
			return
		}
		w := many
		if *p == 1 {
			w = one
		}
		parts = append(parts, groupDigits(*p)+" "+w)
	}
	add(c.StaleActiveMarkers, "stale active marker", "stale active markers")
	add(c.LeakedDeliveryRows, "leaked delivery row", "leaked delivery rows")
	add(c.IndexRowsWithoutDelivery, "index row without its delivery row", "index rows without their delivery row")
	add(c.IndexRowsWithoutHook, "index row without its hook", "index rows without their hook")
	add(c.DeliveryRowsWithoutHook, "delivery row without its hook", "delivery rows without their hook")
	if c.UndecodableDeliveryRows != nil && *c.UndecodableDeliveryRows > 0 {
		add(c.UndecodableDeliveryRows, "undecodable delivery row (size 0)", "undecodable delivery rows (size 0)")
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

// verifyRows is the one row builder: counter mismatches, findings and
// corruption in one table, so that a script reads one stream.
func verifyRows(rep *health.Report) Rows {
	rows := Rows{Columns: []Column{
		{Header: "Check"}, {Header: "Ord", Right: true}, {Header: "Tenant"}, {Header: "Field"},
		{Header: "Stored", Right: true}, {Header: "Folded", Right: true}, {Header: "Delta", Right: true},
		{Header: "Key"}, {Header: "Detail"},
	}}
	none := Text("")
	for _, m := range rep.CounterMismatches {
		delta := Int(m.Delta)
		if m.Delta > 0 {
			delta.Human = "+" + delta.Human
		}
		rows.Add(Text("counter_mismatch"), Int(int64(m.Tenant.Ord)), Text(m.Tenant.Name()), Text(m.Field),
			Int(m.Stored), Int(m.Folded), delta, Text(m.Key.Key), none)
	}
	for _, f := range rep.Findings {
		ord, tenant := none, none
		if f.Tenant != nil {
			ord, tenant = Int(int64(f.Tenant.Ord)), Text(f.Tenant.Name())
		}
		detail := f.Detail
		if len(f.Related) > 0 {
			rel := make([]string, len(f.Related))
			for i, r := range f.Related {
				rel[i] = r.Key
			}
			detail += "; related: " + strings.Join(rel, ", ")
		}
		rows.Add(Text(f.Check), ord, tenant, none, none, none, none, Text(f.Key.Key), Text(detail))
	}
	for _, c := range rep.Corruption {
		key := none
		if c.Key != nil {
			key = Text(c.Key.Key)
		}
		rows.Add(Text("corruption"), none, none, none, none, none, none, key, Text(fmt.Sprintf("family %s (%s): %s", c.Family, c.CF, c.Detail)))
	}
	return rows
}
