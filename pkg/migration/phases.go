package migration

import (
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// Phase is a phase of the 2 -> 3 migration, the first byte of its cursor.
type Phase uint8

// The phases, in the order they run.
const (
	PhaseDue      = Phase(format.MigPhaseDue)
	PhaseInflight = Phase(format.MigPhaseInflight)
	PhaseDead     = Phase(format.MigPhaseDead)
	PhaseArchive  = Phase(format.MigPhaseArchive)
	PhaseFinish   = Phase(format.MigPhaseFinish)
)

// RowPhases are the phases that move rows (every one but the finish).
var RowPhases = []Phase{PhaseDue, PhaseInflight, PhaseDead, PhaseArchive}

// numRowPhases sizes the per-phase arrays, indexed by Phase-1.
const numRowPhases = 4

var phaseNames = [...]string{
	PhaseDue:      "due",
	PhaseInflight: "inflight",
	PhaseDead:     "dead",
	PhaseArchive:  "archive",
	PhaseFinish:   "finish",
}

// String is the phase's name as reports and JSON show it.
func (p Phase) String() string {
	if p >= PhaseDue && p <= PhaseFinish {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase?(%d)", uint8(p))
}

// family is the format 2 key family the phase reads.
func (p Phase) family() format.Family {
	switch p {
	case PhaseDue:
		return format.FamDueV2
	case PhaseInflight:
		return format.FamInflightV2
	case PhaseDead:
		return format.FamDead
	case PhaseArchive:
		return format.FamArchive
	}
	panic(fmt.Sprintf("migration: phase %d reads no family", uint8(p)))
}

// prefixRange is every key with the family's prefix byte: what the finish
// deletes of the old d and f families, so that neither a sentinel nor a stray
// key (inside the sentinels or beyond hi) survives.
func prefixRange(f format.Family) (lo, hi []byte) {
	p := f.Prefix[0]
	return []byte{p}, []byte{p + 1}
}
