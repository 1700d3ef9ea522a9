package migration

import (
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// row is one key a step read, decoded as far as its key goes.
type row struct {
	phase Phase
	key   []byte // points into the step's arena
	val   []byte
	stray bool // inside the family's sentinels but not a key of it: counted, not migrated
	at    uint64
	seq   uint64
	sink  uint16

	// Filled by fetch.
	hook    int32 // index into step.tenants
	size    int64 // the row's bytes: from its value, or its delivery row (dead)
	sizeBad uint8 // dead rows: deliveryMissing or deliveryUndecodable
	dead    format.DeadValue
}

const (
	deliveryOK uint8 = iota
	deliveryMissing
	deliveryUndecodable
)

// step is the unit of work and of commit: at most stepRows keys read after the
// cursor, and the cursor after them.
type step struct {
	num    int // 1-based, in this run
	rows   []row
	arena  []byte
	cursor format.MigrationCursor // after the step
	finish bool                   // this step's batch finishes the migration

	// Filled by fetch.
	tenants []hookTenant // one per distinct hook seq, in first-sight order
	done    chan struct{}
	err     error

	// Filled by build.
	batch *rocks.Batch
	stats stepStats
}

// hookTenant is what a hook says about its tenant.
type hookTenant struct {
	seq    uint64
	tenant string
	reason format.DefaultReason
	// name is 1 + the tenant's index among the hook table's names, which
	// holds each once (hookNames); 0 when it did not come from a table.
	// The ordinals are cached by it (ordinals.byName), not by the string.
	name uint32
}

// rowOfKey is a row of phase p decoded as far as its key goes (key is kept, not copied).
func rowOfKey(p Phase, key []byte) row {
	r := row{phase: p, key: key}
	switch p {
	case PhaseDue:
		dk, err := format.DecodeDueV2Key(key)
		r.stray, r.at, r.seq, r.sink = err != nil, dk.At, dk.Seq, dk.Sink
	case PhaseInflight:
		fk, err := format.DecodeInflightV2Key(key)
		r.stray, r.seq, r.sink = err != nil, fk.Seq, fk.Sink
	case PhaseDead:
		xk, err := format.DecodeDeadKey(key)
		r.stray, r.at, r.seq, r.sink = err != nil, xk.At, xk.Seq, xk.Sink
	case PhaseArchive:
		ak, err := format.DecodeArchiveKey(key)
		r.stray, r.seq = err != nil, ak.Seq
	default:
		panic(fmt.Sprintf("migration: no rows in phase %v", p))
	}
	return r
}

// add copies a key and value into the step and decodes the key; it returns
// the step's copy of the key.
func (stp *step) add(p Phase, k, v []byte) []byte {
	off := len(stp.arena)
	stp.arena = append(stp.arena, k...)
	stp.arena = append(stp.arena, v...)
	// The arena may have moved: earlier rows keep pointing at the old array,
	// which stays alive and unchanged, so nothing needs fixing up.
	key := stp.arena[off : off+len(k) : off+len(k)]
	r := rowOfKey(p, key)
	r.val = stp.arena[off+len(k) : off+len(k)+len(v) : off+len(k)+len(v)]
	stp.rows = append(stp.rows, r)
	return key
}
