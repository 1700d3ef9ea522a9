package migration

import (
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// maxExamples bounds the keys and seqs a summary lists per finding: enough to
// find the rows, bounded whatever the store holds.
const maxExamples = 10

// numReasons sizes arrays indexed by format.DefaultReason.
const numReasons = int(format.ReasonBadTenant) + 1

// PhaseStats is what one phase did (or, in a dry run, would do).
type PhaseStats struct {
	Phase Phase
	// Rows moved (re-keyed or rewritten).
	Rows int64
	// Strays: keys inside the family's sentinels that are not keys of it;
	// counted and left alone (the finish's range delete removes those of d
	// and f).
	Strays       int64
	StrayExample [][]byte
}

// DefaultStats counts the hooks filed under "default" for one reason.
type DefaultStats struct {
	Reason format.DefaultReason
	// Hooks is the number of distinct hooks (by seq); Rows the index rows
	// filed because of them (a hook with several sinks has several).
	Hooks, Rows int64
	// Examples are the seqs of the first hooks, for a finding reason.
	Examples []uint64
}

// Summary reports a run (or a dry run) of the 2 -> 3 migration.
type Summary struct {
	Migration Migration
	// NothingToDo: the store was already at format 3.
	NothingToDo bool
	// Resumed: the store was mid-migration when the run began.
	Resumed bool
	// Finished: the run reached the finish (m:format is 3).
	Finished bool
	// StartedAt is the migration's persisted start time, the one due rows are
	// classified against.
	StartedAt time.Time
	// Backup is the checkpoint taken before the first write, if any.
	Backup string

	Phases [numRowPhases]PhaseStats
	// TenantsAllocated by this run; Tenants with an ordinal in total after it.
	TenantsAllocated uint32
	Tenants          uint32
	// TenantsMax is the cap the overage is measured against; OverCap is how
	// many tenants are past it (reported, never enforced: the cap refuses new
	// tenants at ingest, it never strands existing rows).
	TenantsMax uint32
	OverCap    uint32
	// Defaults is indexed by format.DefaultReason (ReasonNone unused).
	Defaults [numReasons]DefaultStats
	// DefaultHooksApprox: more distinct hooks were filed under default than the
	// run remembers seqs for; Hooks then counts a hook once per step.
	DefaultHooksApprox bool
	// Dead rows whose delivery row is missing or does not decode: size 0.
	DeliveryMissing, DeliveryUndecodable int64
	DeliveryExamples                     [][]byte // delivery keys
	Steps                                int
	// Ops and Bytes are what the run wrote: operations (puts, deletes,
	// merges, range deletes) and their key and value bytes; the benchmark
	// compares the run with RocksDB writing as many.
	Ops, Bytes int64
	Duration   time.Duration
	// StagedRuns and StagedTables are what a bulk run put on the store's file system before
	// its commit: its sorted runs' bytes, and its table files' (together, the staging's peak).
	StagedRuns, StagedTables int64 `json:"-"`
	// StagedJoin is what a bulk run's joins put in the temporary directory ($TMPDIR) at
	// their peak: their sorted runs' bytes, gone before the runs above are merged.
	StagedJoin int64 `json:"-"`

	// Whole is the summary of the whole migration, every run of it this one included,
	// from the record its runs keep in the store directory (RecordFile); Runs counts
	// them. Nil in a dry run and when there was nothing to do.
	Whole *Summary `json:"-"`
	Runs  int      `json:"-"`
	// EarlierUnknown says why runs before this one are missing from Whole ("" when
	// none is).
	EarlierUnknown string `json:"-"`
	// RecordErr is why the record could not be written: the next run will not know
	// this one's findings.
	RecordErr error `json:"-"`
}

// Rows is the number of rows moved over all phases.
func (s *Summary) Rows() int64 {
	var n int64
	for _, p := range s.Phases {
		n += p.Rows
	}
	return n
}

// Strays is the number of stray keys over all phases.
func (s *Summary) Strays() int64 {
	var n int64
	for _, p := range s.Phases {
		n += p.Strays
	}
	return n
}

// RowsPerSec is the run's throughput (rows moved per second of Duration).
func (s *Summary) RowsPerSec() float64 {
	if s.Duration <= 0 {
		return 0
	}
	return float64(s.Rows()) / s.Duration.Seconds()
}

// stepStats is what one step did; it joins the summary when the step commits.
type stepStats struct {
	rows, strays [numRowPhases]int64
	strayEx      [numRowPhases][][]byte
	defRows      [numReasons]int64
	defHooks     [numReasons]int64
	defEx        [numReasons][]uint64
	delivMissing int64
	delivBad     int64
	delivEx      [][]byte
	newTenants   uint32
	nextOrd      uint32
	ops, bytes   int64 // written: operations and key and value bytes
}

// newSummary starts the summary of a run or a dry run.
func newSummary(tenantsMax uint32) Summary {
	if tenantsMax == 0 {
		tenantsMax = format.DefaultTenantsMax
	}
	s := Summary{Migration: TenantKeys, TenantsMax: tenantsMax}
	for i := range s.Phases {
		s.Phases[i].Phase = RowPhases[i]
	}
	for r := range s.Defaults {
		s.Defaults[r].Reason = format.DefaultReason(r)
	}
	return s
}

func (s *Summary) add(st *stepStats) {
	for i := range s.Phases {
		p := &s.Phases[i]
		p.Rows += st.rows[i]
		p.Strays += st.strays[i]
		p.StrayExample = appendExamples(p.StrayExample, st.strayEx[i])
	}
	for r := range s.Defaults {
		d := &s.Defaults[r]
		d.Rows += st.defRows[r]
		d.Hooks += st.defHooks[r]
		d.Examples = appendExamples(d.Examples, st.defEx[r])
	}
	s.DeliveryMissing += st.delivMissing
	s.DeliveryUndecodable += st.delivBad
	s.DeliveryExamples = appendExamples(s.DeliveryExamples, st.delivEx)
	s.TenantsAllocated += st.newTenants
	s.Tenants = st.nextOrd - format.FirstOrd
	s.Ops += st.ops
	s.Bytes += st.bytes
	s.Steps++
}

func appendExamples[T any](dst, src []T) []T {
	for _, v := range src {
		if len(dst) >= maxExamples {
			break
		}
		dst = append(dst, v)
	}
	return dst
}

func (s *Summary) setOverCap() {
	s.OverCap = 0
	if s.Tenants > s.TenantsMax {
		s.OverCap = s.Tenants - s.TenantsMax
	}
}
