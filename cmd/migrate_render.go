package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
)

// migrateLine is one line of migrate's summary: a sentence for people (Text), the same
// under a field name with exact values for scripts (Key, Plain), and whether it is a finding.
type migrateLine struct {
	key, text, plain string
	finding          bool
}

// migrateLines is the summary above the phase table: the plan, the result, the tenants, the
// findings of the whole migration.
func migrateLines(res migrateResult) []migrateLine {
	var lines []migrateLine
	add := func(key, plain, format string, args ...any) {
		text := fmt.Sprintf(format, args...)
		if plain == "" {
			plain = text
		}
		lines = append(lines, migrateLine{key: key, text: text, plain: plain})
	}
	finding := func(format string, args ...any) {
		text := fmt.Sprintf(format, args...)
		lines = append(lines, migrateLine{key: "finding", text: text, plain: text, finding: true})
	}
	switch {
	case res.NothingToDo:
		add("nothing_to_do", res.Store, "%s is at format %d: nothing to do", res.Store, format.Format3)
	case res.DryRun:
		for _, p := range res.Plan {
			add("plan", "", "%s", p)
		}
		if res.Writes != "" && !res.NothingToDo {
			add("would_write", res.Writes, "would write %s", res.Writes)
		}
		if res.Method != "" {
			add("method", res.Method, "would run %s", methodWords[res.Method])
		}
		if res.Midway != nil {
			m := res.Midway
			add("mid_migration", fmt.Sprintf("mid-migration phase=%s last_key=%s", m.Phase, m.LastKey),
				"%s is mid-migration: stopped in phase %s after key %s", res.Store, m.Phase, m.LastKey)
			add("keys_left", fmt.Sprintf("started_at=%s keys_left=%d estimated_duration_ms=%d", m.StartedAt.Format(viewTimeLayout), m.RowsLeft, res.EstimatedDurationMS),
				"started at %s; %s keys left, about %s at %s rows/s", m.StartedAt.Format(time.RFC3339Nano),
				words.Group(m.RowsLeft), humanDuration(res.EstimatedDurationMS), words.Group(res.rate))
		} else {
			add("would_move", fmt.Sprintf("rows=%d tenants=%d tenants_max=%d over_cap=%d estimated_duration_ms=%d", res.Rows, res.Tenants, res.TenantsMax, res.OverCap, res.EstimatedDurationMS),
				"would move %s and allocate %s (cap %s%s), about %s at %s rows/s",
				words.Count(res.Rows, "row", "rows"), words.Count(int64(res.Tenants), "tenant", "tenants"), words.Group(int64(res.TenantsMax)), overCap(res),
				humanDuration(res.EstimatedDurationMS), words.Group(res.rate))
		}
		if sp := res.Space; sp != nil {
			short, cp := "", ""
			if !sp.Enough {
				short = ": not enough, the run would refuse (exit 3): " + sp.Short
			}
			switch {
			case sp.CheckpointBytes > 0:
				cp = fmt.Sprintf(" (%s of it the checkpoint's copied files)", words.Bytes(sp.CheckpointBytes))
			case sp.CheckpointElsewhereBytes > 0:
				cp = fmt.Sprintf(", and %s on the checkpoint's file system (%s)", words.Bytes(sp.CheckpointElsewhereBytes), sp.Checkpoint)
			}
			if sp.Staging != "" {
				// The bulk method's staging first, the checkpoint's share (if any) after it.
				bulk := fmt.Sprintf("the bulk method's sorted runs, %s, beside the store's files, and its table files, %s, in %s",
					words.Bytes(sp.Runs), words.Bytes(sp.Tables), sp.Staging)
				if sp.JoinTemp > 0 && sp.TempElsewhereBytes == 0 {
					bulk += fmt.Sprintf("; its joins' sorted runs, %s, in %s", words.Bytes(sp.JoinTemp), sp.TempDir)
				}
				if strings.HasPrefix(cp, " (") {
					cp = " (" + bulk + "; " + strings.TrimPrefix(cp, " (")
				} else {
					cp = " (" + bulk + ")" + cp
				}
			}
			temp, plain := "", fmt.Sprintf("needed_bytes=%d free_bytes=%d enough=%t", sp.Needed, sp.FreeBytes, sp.Enough)
			if sp.TempElsewhereBytes > 0 {
				// The joins' own check, which can be the one that refuses.
				temp = fmt.Sprintf("; and about %s in %s for its joins' sorted runs, %s free there", words.Bytes(sp.TempElsewhereBytes), sp.TempDir, words.Bytes(sp.TempFreeBytes))
				plain += fmt.Sprintf(" temp_needed_bytes=%d temp_free_bytes=%d", sp.TempElsewhereBytes, sp.TempFreeBytes)
			}
			add("space", plain,
				"space: needs about %s on the store's file system%s, %s free%s%s", words.Bytes(sp.Needed), cp, words.Bytes(sp.FreeBytes), temp, short)
		}
	default:
		verb := "migrated"
		if res.Resumed {
			verb = "resumed and migrated"
		}
		if !res.Finished {
			verb = "stopped migrating"
		}
		steps := words.Plural(res.Steps, "step", "steps")
		add("result", fmt.Sprintf("finished=%t resumed=%t rows=%d duration_ms=%d rows_per_sec=%d steps=%d", res.Finished, res.Resumed, res.Rows, res.DurationMS, int64(res.RowsPerSec), res.Steps),
			"%s %s to format %d: %s in %s (%s rows/s), %d %s", verb, res.Store, format.Format3,
			words.Count(res.Rows, "row", "rows"), humanDuration(res.DurationMS), words.Group(int64(res.RowsPerSec)), res.Steps, steps)
		if res.Method != "" {
			add("method", res.Method, "ran %s", methodWords[res.Method])
		}
		if w := res.Whole; w != nil && res.Resumed {
			runs := "runs"
			if w.Runs == 0 {
				runs = "an unknown number of runs"
			} else {
				runs = words.Count(int64(w.Runs), "run", "runs")
			}
			add("whole_migration", fmt.Sprintf("runs=%d rows=%d steps=%d complete=%t", w.Runs, w.Rows, w.Steps, w.Complete),
				"the whole migration: %s in %s, %s; the findings below are all of its runs'", words.Count(w.Rows, "row", "rows"), runs, words.Count(int64(w.Steps), "step", "steps"))
		}
		add("tenants", fmt.Sprintf("allocated=%d in_all=%d cap=%d over_cap=%d", res.TenantsAllocated, res.Tenants, res.TenantsMax, res.OverCap),
			"tenants: %s allocated, %s in all (cap %s%s)", words.Group(int64(res.TenantsAllocated)),
			words.Group(int64(res.Tenants)), words.Group(int64(res.TenantsMax)), overCap(res))
		if res.Backup != "" {
			add("checkpoint", res.Backup, "checkpoint of the store before migrating: %s", res.Backup)
		}
	}
	if res.Midway == nil && !res.NothingToDo {
		// A run reports the whole migration's findings (every run of it), a dry run its own.
		defaults, deadSize, strays, approx := res.Defaults, res.DeadSizeUnknown, res.Strays, res.DefaultHooksApprox
		if w := res.Whole; w != nil {
			defaults, deadSize, strays, approx = w.Defaults, w.DeadSizeUnknown, w.Strays, w.DefaultHooksApprox
			if !w.Complete {
				finding("the findings of earlier runs of this migration are not all known (%s): those below are of the runs recorded", w.Incomplete)
			}
			if w.RecordError != "" {
				finding("this run's findings could not be recorded for the next run (%s)", w.RecordError)
			}
		}
		var parts, plain []string
		// An approximate hook count is an upper bound (a hook is counted again, never
		// missed), and says so where it is read: "at most 12,251 hooks". Rows are exact.
		hooks := func(n int64) string {
			if approx {
				return "at most " + words.Count(n, "hook", "hooks")
			}
			return words.Count(n, "hook", "hooks")
		}
		for _, d := range defaults {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", d.Reason, hooks(d.Hooks), words.Count(d.Rows, "row", "rows")))
			plain = append(plain, fmt.Sprintf("%s hooks=%d rows=%d", d.Reason, d.Hooks, d.Rows))
		}
		if len(parts) > 0 {
			about := ""
			if approx {
				about = "; the hook counts are upper bounds, the row counts exact: a hook whose rows two runs of this migration moved" +
					" (or met past the seqs a run remembers) is counted in each, so each interruption can add to them; a dry run" +
					" before the first run counts each hook once"
			}
			add("filed_under_default", strings.Join(plain, ", ")+map[bool]string{true: " approx=true"}[approx], "filed under default: %s%s", strings.Join(parts, ", "), about)
		}
		for _, d := range defaults {
			if d.Finding && len(d.ExampleSeqs) > 0 {
				seqs := "e.g. seqs "
				if len(d.ExampleSeqs) == 1 {
					seqs = "seq "
				}
				finding("%s: %s filed under default, %s%s", d.Reason, hooks(d.Hooks), seqs, joinUints(d.ExampleSeqs))
			}
		}
		if ds := deadSize; ds.MissingDelivery+ds.UndecodableDelivery > 0 {
			finding("dead rows counted with size 0: %s with no delivery row, %s with one that does not decode (e.g. %s)",
				words.Group(ds.MissingDelivery), words.Group(ds.UndecodableDelivery), strings.Join(ds.Examples, ", "))
		}
		if strays > 0 {
			finding("%s not migrated (see the table; d and f strays are removed by the finish)", words.Count(strays, "stray key was", "stray keys were"))
		}
	}
	return lines
}

// migratePhaseRows is the phase table: keys left (a dry run mid-migration), or the rows and
// strays of each phase; of the whole migration for a resumed run, with this run's beside.
func migratePhaseRows(res migrateResult) ui.Rows {
	if res.Midway != nil {
		rows := ui.Rows{Columns: []ui.Column{{Header: "Phase"}, {Header: "Keys left", Right: true}}}
		for _, p := range res.Phases {
			rows.Add(ui.Text(p.Phase), ui.Int(p.Rows))
		}
		return rows
	}
	if w := res.Whole; w != nil && res.Resumed {
		rows := ui.Rows{Columns: []ui.Column{{Header: "Phase"}, {Header: "Rows", Right: true}, {Header: "Strays", Right: true},
			{Header: "This run", Name: "rows_this_run", Right: true}}}
		for i, p := range w.Phases {
			this := int64(0)
			if i < len(res.Phases) {
				this = res.Phases[i].Rows
			}
			rows.Add(ui.Text(p.Phase), ui.Int(p.Rows), ui.Int(p.Strays), ui.Int(this))
		}
		return rows
	}
	rows := ui.Rows{Columns: []ui.Column{{Header: "Phase"}, {Header: "Rows", Right: true}, {Header: "Strays", Right: true}}}
	for _, p := range res.Phases {
		rows.Add(ui.Text(p.Phase), ui.Int(p.Rows), ui.Int(p.Strays))
	}
	return rows
}

func overCap(res migrateResult) string {
	if res.OverCap == 0 {
		return ""
	}
	return fmt.Sprintf(", %s over it: reported, not enforced", words.Group(int64(res.OverCap)))
}

func joinUints(v []uint64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

func humanDuration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return d.String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// renderMigrate prints migrate's result on stdout, whatever -q says, in the format every
// command uses: JSON; on a terminal (or -o table) the summary as sentences, then the phase
// table; else TSV, the summary as field and value rows, a blank line, then the phase rows
// (as status prints its two tables).
func renderMigrate(env *Env, res migrateResult) error {
	if env.JSON() {
		return ui.WriteJSON(env.IO.Out, res)
	}
	lines := migrateLines(res)
	if env.table() {
		for _, l := range lines {
			if l.key == "checkpoint" && res.checkpointShown && env.IO.ErrIsTerminal {
				continue // on the screen already, from stderr
			}
			text := strings.TrimSuffix(env.wrap(l.text), "\n")
			if l.finding {
				text = env.paint(false, ui.ColorYellow, text)
			}
			fmt.Fprintln(env.IO.Out, text)
		}
		return env.writeTable(env.IO.Out, migratePhaseRows(res))
	}
	sum := ui.Rows{Columns: []ui.Column{{Header: "Field"}, {Header: "Value"}}}
	for _, l := range lines {
		sum.Add(ui.Text(l.key), ui.Cell{Human: l.text, Plain: l.plain})
	}
	if err := ui.WriteTSV(env.IO.Out, sum, !env.NoHeaders); err != nil {
		return err
	}
	fmt.Fprintln(env.IO.Out)
	return ui.WriteTSV(env.IO.Out, migratePhaseRows(res), !env.NoHeaders)
}

// bulkStagedNote is what a bulk run says it staged: on the store's file system, and before
// that in the temporary directory tmp, or nothing there when the joins kept their runs and
// answers in memory (a store of some 500,000 rows or fewer).
func bulkStagedNote(sum migration.Summary, tmp string) string {
	s := fmt.Sprintf("bulk: staged %s on the store's file system before the commit (sorted runs %s, table files %s)",
		words.Bytes(sum.StagedRuns+sum.StagedTables), words.Bytes(sum.StagedRuns), words.Bytes(sum.StagedTables))
	if sum.StagedJoin == 0 {
		return s + "; the joins' sorted runs stayed in memory"
	}
	return s + fmt.Sprintf(", and %s in %s before that (the joins' sorted runs)", words.Bytes(sum.StagedJoin), tmp)
}
