package cmd

import (
	"time"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/pkg/health"
)

func init() { clidoc.RegisterSchema("ankusa-store counters verify", verifyOutput{}) }

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
