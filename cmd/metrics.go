package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/internal/access"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/metrics"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// What --metrics-file writes (status and counters verify): the numbers of
// the run, as gauges for node_exporter's textfile collector.

// checkMetricsFile refuses, before the store is opened, a path the
// textfile collector would never read or that cannot be written.
func checkMetricsFile(path string) error {
	if path == "" {
		return nil
	}
	if !strings.HasSuffix(path, ".prom") {
		return exitcode.Usagef("--metrics-file %s: node_exporter's textfile collector reads only *.prom files", path)
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrPermission) {
		// There, but not to this user: the write at the end says so, in its own words,
		// after the result.
		return nil
	} else if err != nil || !fi.IsDir() {
		return exitcode.Usagef("--metrics-file %s: directory %s does not exist", path, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return exitcode.Usagef("--metrics-file %s is a directory", path)
	}
	return nil
}

// aggregateMetrics writes the node aggregate under prefix (the status file
// and the verify file use their own names, so that one textfile directory
// can hold both without a metric collected twice).
func aggregateMetrics(s *metrics.Set, prefix string, a *inspect.TenantCounters) {
	if a == nil {
		return
	}
	// A counter that could not be read gets no value (a zero would read as "nothing
	// pending"): its error gauge says it is missing, and why a panel shows a gap.
	help := "Rows of the node aggregate (ordinal 0's counters, shards summed), by field; absent when unreadable."
	for _, f := range format.Fields {
		field := metrics.Label{Name: "field", Value: format.FieldNames[f]}
		s.Bool(prefix+"aggregate_unreadable", "1 when a counter of the node aggregate could not be read (it then has no value).", a.Unreadable(f), field)
		switch {
		case a.Unreadable(f):
		case f == format.FieldBytes:
			s.Gauge(prefix+"aggregate_bytes", "Bytes of the node aggregate (counter field bytes); absent when unreadable.", float64(a.Bytes))
		default:
			s.Gauge(prefix+"aggregate_rows", help, float64(a.Get(f)), field)
		}
	}
}

// runMetrics are the gauges every metrics file gets, whatever the run did: whether it
// succeeded, its exit code, its error class and when it ran. A file that described an
// earlier run after a later one failed would tell monitoring all is well (issue 19), so a
// run that was given --metrics-file always writes it, with its own outcome; only a usage
// error (exit 2, nothing written, by the exit code's promise) leaves it as it was.
//
// Success is "the run did its work and has its result" (exit 0, or 1: a check that found
// problems worked); the health of the store is in the other gauges, which are written only
// when the run got that far.
func runMetrics(s *metrics.Set, prefix string, runErr error, took time.Duration, now time.Time) {
	code := exitcode.Of(runErr)
	s.Bool(prefix+"success", "1 when the last run did its work and has its result (exit status 0, or 1 for findings).", code <= exitcode.Findings)
	s.Gauge(prefix+"exit_code", "The exit status of the last run (docs/commands.md, Exit status).", float64(code))
	if code > exitcode.Findings {
		s.Gauge(prefix+"error", "1, with the error class of the last run when it failed (the JSON error object's class); absent when it did not.", 1,
			metrics.Label{Name: "class", Value: exitcode.Class(runErr)})
	}
	s.Gauge(prefix+"duration_seconds", "How long the last run took.", took.Seconds())
	s.Gauge(prefix+"timestamp_seconds", "When the last run ended (Unix time): a file that stops moving is a run that stopped running.", float64(now.UnixMilli())/1000)
}

// writeRunMetrics writes the file of a run, and says on stderr when it could not: the run's
// result (its report on stdout, its exit status) stands as it is, because the store's state
// does not change with the file; the file's timestamp, which then stops moving, is what an
// alert sees (docs/commands.md, Metrics files).
func writeRunMetrics(env *Env, path string, s *metrics.Set) {
	if err := metrics.WriteFile(path, s); err != nil {
		// The directory the file is written in (the link's target's, for a symbolic link).
		where := filepath.Dir(path)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			where = filepath.Dir(pe.Path)
		}
		err = access.Check(err, where, true)
		fmt.Fprint(env.IO.Err, env.wrapErr(env.paint(true, ui.ColorRed, "error:")+ui.SafeLines(fmt.Sprintf(" --metrics-file %s not written (the result above stands): %v", path, err))))
	}
}

// statusMetrics is the status file of a run: o is nil when the run failed before it had a
// status to report.
func statusMetrics(store string, o *statusOutput, runErr error, took time.Duration, now time.Time) *metrics.Set {
	s := &metrics.Set{Common: []metrics.Label{{Name: "store", Value: store}}}
	runMetrics(s, "ankusa_store_status_", runErr, took, now)
	if o != nil {
		addStatusMetrics(s, o)
	}
	return s
}

func addStatusMetrics(s *metrics.Set, o *statusOutput) {
	s.Gauge("ankusa_store_info", "The store's format and state, and the RocksDB versions; always 1.", 1,
		metrics.Label{Name: "format", Value: fmt.Sprint(o.Format)},
		metrics.Label{Name: "state", Value: o.State}, metrics.Label{Name: "rocksdb_tool", Value: o.RocksDB.Tool},
		metrics.Label{Name: "rocksdb_store", Value: o.RocksDB.RocksDBVersion})
	s.Bool("ankusa_store_migrating", "1 while the 2 -> 3 migration is under way.", o.Migration != nil)
	s.Bool("ankusa_store_rocksdb_newer", "1 when the store's files were written by a newer RocksDB than the tool's.", o.RocksDB.Newer)
	for _, f := range o.Families {
		cf := metrics.Label{Name: "cf", Value: f.Name}
		s.Gauge("ankusa_store_family_estimated_keys", "RocksDB's estimate of the keys of a column family (rocksdb.estimate-num-keys).", float64(f.EstimatedKeys), cf)
		s.Gauge("ankusa_store_family_sst_bytes", "Size on disk of a column family's live SST files.", float64(f.SSTBytes), cf)
		s.Gauge("ankusa_store_family_memtable_bytes", "Memtable bytes of a column family in the reading process.", float64(f.MemtableBytes), cf)
		for l, n := range f.FilesPerLevel {
			s.Gauge("ankusa_store_family_sst_files", "Live SST files of a column family per level.", float64(n), cf, metrics.Label{Name: "level", Value: fmt.Sprint(l)})
		}
	}
	s.Gauge("ankusa_store_wal_bytes", "Bytes of the write-ahead log files.", float64(o.Totals.WALBytes))
	if t := o.Tenants; t != nil {
		s.Gauge("ankusa_store_tenants", "Tenants with an ordinal (m:next_ord - 1).", float64(t.Count))
		s.Gauge("ankusa_store_tenants_max", "The tenants.max the count is held against (--tenants-max).", float64(t.Max))
	}
	aggregateMetrics(s, "ankusa_store_", o.Aggregate)
	if o.Format == 3 && o.Migration == nil {
		age := 0.0
		if d := o.OldestDue; d != nil {
			age = float64(d.AgeMS) / 1000
		}
		s.Gauge("ankusa_store_oldest_due_age_seconds", "Age of the oldest due row, from the first active marker (0: nothing due).", age)
	}
	if m := o.Migration; m != nil {
		s.Gauge("ankusa_store_migration_keys_left", "Keys the migration has still to read.", float64(m.RowsLeft))
	}
	if u := o.Upgrade; u != nil {
		s.Gauge("ankusa_store_migration_keys_to_read", "Keys the 2 -> 3 migration would read.", float64(u.Rows))
		s.Gauge("ankusa_store_migration_need_bytes", "Free disk the migration needs (migrate's own estimate).", float64(u.NeedBytes))
		if u.FreeBytes != nil {
			s.Gauge("ankusa_store_filesystem_free_bytes", "Free bytes of the store's file system.", float64(*u.FreeBytes))
		}
	}
	s.Gauge("ankusa_store_checkpoints", "Checkpoints of the store (next to it, or where its record says).", float64(len(o.Checkpoints)))
	var cpBytes uint64
	for _, c := range o.Checkpoints {
		cpBytes += c.Bytes - c.SharedBytes
	}
	s.Gauge("ankusa_store_checkpoints_own_bytes", "Bytes of the checkpoints that are not shared with the store.", float64(cpBytes))
}

// verifyMetrics is the file of a counters verify run (--repair included: rep is the
// report after the repair). rep is nil when the run reached no verdict (the store could not
// be opened, is mid-migration, a read failed before the report): then the file has no
// health gauge at all, so that none can say healthy. agg is the node aggregate as stored
// (nil when unread: format 2, --tenant, or no verdict).
func verifyMetrics(store string, rep *health.Report, agg *inspect.TenantCounters, runErr error, took time.Duration, now time.Time) *metrics.Set {
	s := &metrics.Set{Common: []metrics.Label{{Name: "store", Value: store}}}
	runMetrics(s, "ankusa_store_verify_", runErr, took, now)
	if rep == nil {
		return s
	}
	s.Bool("ankusa_store_verify_healthy", "1 when counters verify found the store healthy.", rep.Healthy)
	s.Bool("ankusa_store_verify_corrupt", "1 when counters verify met corruption (a fold cut short, a failed merge).", rep.Verdict == health.VerdictCorrupt)
	per := map[string]int64{}
	for _, c := range health.Checks() {
		per[c] = 0
	}
	for _, f := range rep.Findings {
		per[f.Check]++
	}
	for c, n := range rep.FindingsOmitted {
		per[c] += n
	}
	for _, c := range health.Checks() {
		s.Gauge("ankusa_store_verify_findings", "Findings of the last verify, per check.", float64(per[c]), metrics.Label{Name: "check", Value: c})
	}
	s.Gauge("ankusa_store_verify_counter_mismatches", "Counters that differ from the fold of their rows.", float64(len(rep.CounterMismatches)))
	s.Gauge("ankusa_store_verify_corruptions", "Reads that failed with corruption.", float64(len(rep.Corruption)))
	s.Gauge("ankusa_store_verify_keys_read", "Keys the last verify read.", float64(rep.Keys))
	if t := rep.Counts.Tenants; t != nil {
		s.Gauge("ankusa_store_verify_tenants", "Tenants (t rows) the last verify read.", float64(*t))
	}
	aggregateMetrics(s, "ankusa_store_verify_", agg)
	return s
}

// verifyAggregate reads the aggregate as stored for the verify file (after the verify: six
// point reads and their shards); nil when there is none to read or no file to write.
func verifyAggregate(opts *countersVerifyOptions, st *rocks.Store) *inspect.TenantCounters {
	if opts.metrics == "" || st.Format != format.Format3 || st.Migrating || opts.tenant != "" {
		return nil
	}
	if a, _, err := inspect.ReadAggregate(st.DB); err == nil {
		return a
	}
	return nil
}
