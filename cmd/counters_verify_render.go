package cmd

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// verifyReport: the report (mismatch tables, finding blocks, the verdict in colour) is what
// a terminal shows, or -o table anywhere; piped or redirected, or with -o tsv, the result is
// TSV rows on stdout as every command's is (verifyRows), which -q never drops.
func (env *Env) verifyReport() bool { return env.table() }

// repairState is what a repair left in the store, said as it is: what was written (nothing,
// the batch not at all, the batch written and synced) and whether the verify after it has a
// report. field is its one word for the TSV row.
type repairState struct {
	field, text, checkpoint string
	// failed: the repair stopped on an error with no report of the store as it is now.
	failed bool
	// once: nothing was written and the store was only read, so the one report is the
	// store's, printed once (a format 2 store: formatTwoRepair).
	once bool
}

func repairStateOf(res *health.RepairResult, err error, store string) repairState {
	n := int64(len(res.Operands))
	ops := words.Count(n, "corrective int_add operand", "corrective int_add operands")
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
	if state.failed || state.once || res.Before.Verdict == health.VerdictCorrupt {
		return verifyVerdict(res.Before, err, false)
	}
	fmt.Fprintln(env.IO.Out)
	if perr := env.renderRows(verifyRows(res.After, took)); perr != nil {
		return perr
	}
	return verifyVerdict(res.After, err, false)
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
		fmt.Fprintf(w, "%s:\n", words.Count(int64(len(rep.CounterMismatches)), "counter mismatch", "counter mismatches"))
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
		return fmt.Sprintf(", %s keys/s", words.Group(int64(float64(rep.Keys)/s)))
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
		fmt.Fprintln(w, ui.NoteLine(fmt.Sprintf("%s more %s not listed", words.Group(n), words.Count(n, check+" finding", check+" findings")[len(words.Group(n))+1:])))
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
		cmd, opts.store, words.Count(int64(len(rep.CounterMismatches)), "int_add merge operand", "int_add merge operands"))
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
