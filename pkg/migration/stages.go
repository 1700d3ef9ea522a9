package migration

import "github.com/ankusa/ankusa-store/internal/reporting"

// The bulk method's stages, as RunBulk reports them at their boundaries: the pass over the
// index's keys (StageKeys, a phase: counted in keys on the line's total, the rows the space
// check counted or bounded), the join (the rows' hooks and the dead rows' deliveries, counted
// in rows answered, of the rows that pass kept), the reads (the steps' own, their rows by phase), the sort
// of the last run in memory (the others were sorted as they spilled), the merge of the runs
// into table files, and the ingest.
const (
	StageKeys   = "keys"
	StageJoin   = "join"
	StageRead   = "read"
	StageSort   = "sort"
	StageWrite  = "write"
	StageIngest = "ingest"
)

// Stager is a reporting.Reporter that can show a stage counted in a unit of its own (the
// reads count rows, the sort and the write bytes): its count starts at zero with the
// stage's total. A Reporter that is not one sees the stage as a phase.
type Stager interface {
	Stage(name, unit string, total int64)
}

// startStage starts stage name on r: unit and total where r shows them, a phase otherwise.
func startStage(r reporting.Reporter, name, unit string, total int64) {
	if s, ok := r.(Stager); ok {
		s.Stage(name, unit, total)
		return
	}
	r.Phase(name)
}

// readStage is the reads' reporter: the steps' phases, named as parts of the read stage
// ("read: phase due").
type readStage struct{ reporting.Reporter }

func (r readStage) Phase(name string) { r.Reporter.Phase(StageRead + ": phase " + name) }
