package cmd

import (
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/migration"
)

func init() {
	clidoc.RegisterSchema("ankusa-store migrate", migrateResult{})
}

// migrateResult is migrate's JSON, for a run and for a dry run.
type migrateResult struct {
	// checkpointShown: its path was printed on stderr the moment it existed; a terminal
	// (stderr on it) then has it on screen, and the summary there does not repeat it.
	checkpointShown bool
	// rate is the rows a second a dry run's EstimatedDurationMS assumes (the method's).
	rate int64

	Store  string `json:"store"`
	DryRun bool   `json:"dry_run"`
	// Method is the method that ran, or in a dry run would: "bulk" (sorted table files
	// and one atomic ingest) or "steps"; absent when there was nothing to do.
	Method string `json:"method,omitempty"`
	// Format is the store's m:format when the command began.
	Format uint32 `json:"format"`
	// Plan lists the migrations that run (or would), as the dry run prints them.
	Plan []string `json:"plan"`
	// Writes is how the migration writes its tables into the store (and why): the
	// write rule of docs/format.md, from the store's node.
	Writes      string `json:"writes"`
	NothingToDo bool   `json:"nothing_to_do"`
	Resumed     bool   `json:"resumed"`
	Finished    bool   `json:"finished"`
	// Midway is set by a dry run of a store mid-migration: where it stopped.
	Midway *migrateMidway `json:"midway,omitempty"`
	// StartedAt is the migration's start time: due rows after it are retries.
	StartedAt *time.Time `json:"started_at,omitempty"`
	Backup    string     `json:"backup,omitempty"`
	// Phases: rows moved (or, in a dry run, to move) and strays, per phase.
	Phases []migratePhase `json:"phases"`
	Rows   int64          `json:"rows"`
	Strays int64          `json:"strays"`
	// TenantsAllocated by this run (or the dry run); Tenants with an ordinal after it.
	TenantsAllocated uint32 `json:"tenants_allocated"`
	Tenants          uint32 `json:"tenants"`
	TenantsMax       uint32 `json:"tenants_max"`
	OverCap          uint32 `json:"over_cap"`
	// Defaults: hooks filed under the tenant "default", by reason.
	Defaults []migrateDefault `json:"defaults"`
	// DefaultHooksApprox: the hooks of Defaults are upper bounds (a hook counted by two
	// runs of a resumed migration, or past the seqs a run remembers, counts in each); its
	// rows are exact.
	DefaultHooksApprox bool            `json:"default_hooks_approx,omitempty"`
	DeadSizeUnknown    migrateDeadSize `json:"dead_size_unknown"`
	Steps              int             `json:"steps"`
	// OpsWritten and BytesWritten are what the steps wrote (operations, and
	// their key and value bytes); 0 in a dry run, which writes nothing.
	OpsWritten   int64   `json:"ops_written"`
	BytesWritten int64   `json:"bytes_written"`
	DurationMS   int64   `json:"duration_ms"`
	RowsPerSec   float64 `json:"rows_per_sec"`
	// EstimatedDurationMS is a dry run's estimate of the migration's duration.
	EstimatedDurationMS int64 `json:"estimated_duration_ms,omitempty"`
	// Space is a dry run's estimate of the space the run needs, the checkpoint's
	// share included: the figure and verdict the run checks before its first write.
	Space *migrateSpaceEstimate `json:"space,omitempty"`
	// Verify is the counters verify run after the finish (--verify); in a
	// dry run, null (the plan says that it would follow).
	Verify *health.Report `json:"verify,omitempty"`
	// Whole is the whole migration, every run of it this one included (the
	// fields above are this run's): what to keep of a migration that was
	// interrupted and resumed. Absent in a dry run and when there was nothing to do.
	Whole *migrateWhole `json:"whole_migration,omitempty"`
}

// migrateWhole sums every run of a migration, from the record its runs keep in the
// store directory (docs/migration.md, "What a resumed run reports").
type migrateWhole struct {
	// Runs of the migration so far, this one included; 0 when the runs before the
	// first recorded one are unknown.
	Runs int `json:"runs"`
	// Complete: every earlier run is known; else Incomplete says why not.
	Complete           bool             `json:"complete"`
	Incomplete         string           `json:"incomplete,omitempty"`
	Steps              int              `json:"steps"`
	Phases             []migratePhase   `json:"phases"`
	Rows               int64            `json:"rows"`
	Strays             int64            `json:"strays"`
	TenantsAllocated   uint32           `json:"tenants_allocated"`
	Defaults           []migrateDefault `json:"defaults"`
	DefaultHooksApprox bool             `json:"default_hooks_approx,omitempty"`
	DeadSizeUnknown    migrateDeadSize  `json:"dead_size_unknown"`
	DurationMS         int64            `json:"duration_ms"`
	// RecordError: this run could not write the record, so the next run will not
	// know its findings.
	RecordError string `json:"record_error,omitempty"`
}

type migrateSpaceEstimate struct {
	migration.RunSpace
	// FreeBytes on the file system of Where, the store's directory.
	FreeBytes int64  `json:"free_bytes"`
	Where     string `json:"where"`
	// TempFreeBytes on the file system of TempDir, when the bulk method's joins need room
	// there apart from the store's (TempElsewhereBytes).
	TempFreeBytes int64 `json:"temp_free_bytes,omitempty"`
	// Staging is where the bulk method's table files go until the commit, inside the
	// store directory (its sorted runs are unnamed files beside the store's); "" for the
	// steps.
	Staging string `json:"staging,omitempty"`
	// Enough is the run's own check (needed_bytes on the store's file system, and
	// checkpoint_elsewhere_bytes on the checkpoint's): false exactly when migrate
	// would refuse; Short is then its refusal.
	Enough bool   `json:"enough"`
	Short  string `json:"short,omitempty"`
}

type migratePhase struct {
	Phase string `json:"phase"`
	// Rows moved; in a dry run of a store mid-migration, keys left to read.
	Rows          int64    `json:"rows"`
	Strays        int64    `json:"strays"`
	StrayExamples []string `json:"stray_examples,omitempty"` // hex keys
}

type migrateDefault struct {
	Reason string `json:"reason"`
	// Finding: a missing, undecodable or malformed hook, not a nil tenant.
	Finding     bool     `json:"finding"`
	Hooks       int64    `json:"hooks"`
	Rows        int64    `json:"rows"`
	ExampleSeqs []uint64 `json:"example_seqs,omitempty"`
}

// migrateDeadSize counts dead rows whose delivery row is gone or unreadable:
// their bytes count as 0.
type migrateDeadSize struct {
	MissingDelivery     int64    `json:"missing_delivery"`
	UndecodableDelivery int64    `json:"undecodable_delivery"`
	Examples            []string `json:"examples,omitempty"` // "seq=N sink=N"
}

type migrateMidway struct {
	Phase      string    `json:"phase"`
	LastKey    string    `json:"last_key"`
	LastKeyHex string    `json:"last_key_hex"`
	StartedAt  time.Time `json:"started_at"`
	RowsLeft   int64     `json:"rows_left"`
}

func planLines(ms []migration.Migration) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Plan)
	}
	return out
}

// summaryResult fills the result from a run's (or a simulated run's) summary, and the
// whole migration's when the run has one.
func summaryResult(res migrateResult, sum migration.Summary) migrateResult {
	res = summaryOnly(res, sum)
	if w := sum.Whole; w != nil {
		wr := summaryOnly(migrateResult{}, *w)
		res.Whole = &migrateWhole{Runs: sum.Runs, Complete: sum.EarlierUnknown == "", Incomplete: sum.EarlierUnknown,
			Steps: wr.Steps, Phases: wr.Phases, Rows: wr.Rows, Strays: wr.Strays, TenantsAllocated: wr.TenantsAllocated,
			Defaults: wr.Defaults, DefaultHooksApprox: wr.DefaultHooksApprox, DeadSizeUnknown: wr.DeadSizeUnknown, DurationMS: wr.DurationMS}
		if sum.RecordErr != nil {
			res.Whole.RecordError = sum.RecordErr.Error()
		}
	}
	return res
}

// summaryOnly fills the result from one summary.
func summaryOnly(res migrateResult, sum migration.Summary) migrateResult {
	res.Resumed, res.Finished, res.Backup = sum.Resumed, sum.Finished, sum.Backup
	if !sum.StartedAt.IsZero() {
		started := sum.StartedAt
		res.StartedAt = &started
	}
	res.Phases = nil
	for i, p := range sum.Phases {
		mp := migratePhase{Phase: migration.RowPhases[i].String(), Rows: p.Rows, Strays: p.Strays}
		for _, k := range p.StrayExample {
			mp.StrayExamples = append(mp.StrayExamples, fmt.Sprintf("%x", k))
		}
		res.Phases = append(res.Phases, mp)
	}
	res.Rows, res.Strays = sum.Rows(), sum.Strays()
	res.TenantsAllocated, res.Tenants, res.TenantsMax, res.OverCap = sum.TenantsAllocated, sum.Tenants, sum.TenantsMax, sum.OverCap
	res.Defaults = []migrateDefault{}
	for _, d := range sum.Defaults {
		if d.Reason == format.ReasonNone || d.Hooks == 0 && d.Rows == 0 {
			continue
		}
		res.Defaults = append(res.Defaults, migrateDefault{Reason: d.Reason.String(), Finding: d.Reason.IsFinding(), Hooks: d.Hooks, Rows: d.Rows, ExampleSeqs: d.Examples})
	}
	res.DefaultHooksApprox = sum.DefaultHooksApprox
	res.DeadSizeUnknown = migrateDeadSize{MissingDelivery: sum.DeliveryMissing, UndecodableDelivery: sum.DeliveryUndecodable}
	for _, k := range sum.DeliveryExamples {
		if dk, err := format.DecodeDeliveryKey(k); err == nil {
			res.DeadSizeUnknown.Examples = append(res.DeadSizeUnknown.Examples, fmt.Sprintf("seq=%d sink=%d", dk.Seq, dk.Sink))
		}
	}
	res.Steps = sum.Steps
	res.OpsWritten, res.BytesWritten = sum.Ops, sum.Bytes
	res.DurationMS = sum.Duration.Milliseconds()
	res.RowsPerSec = float64(int64(sum.RowsPerSec()*10)) / 10
	return res
}
