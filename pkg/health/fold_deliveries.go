package health

import (
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// The delivery rows are read whole, in (seq, sink) order: each is the other
// side of r5 (a delivery row has exactly one index key), and its hook is
// looked for by a merge join with the hooks family, which is in seq order
// too. The join reads the hooks of one chunk of delivery rows at a time, so
// only the chunk's seqs are held, and hooks between chunks are never read.

// deliveryChunk is the delivery rows one hooks join reads the hooks of (8
// bytes each): every chunk costs a pause of the deliveries scan and a seek
// into hooks, each tens of milliseconds on a store whose recent writes are
// in memtables, so a store of a million rows joins in one go.
var deliveryChunk = 1 << 20

type hookJoin struct {
	seqs []uint64
}

func (e *foldEngine) foldDeliveries() error {
	var j hookJoin
	dead := e.deadJoin()
	err := e.read(famRead{fam: famDeliveries, lane: laneRows, pause: func() error { return e.joinHooks(&j) }, row: func(k, v []byte) bool {
		dk, err := format.DecodeDeliveryKey(k)
		if err != nil {
			e.badKeyErr(famDeliveries, k, err)
			return false
		}
		dead.row(e, dk, k, v)
		el := seqSinkElem(dk.Seq, dk.Sink)
		e.r5rows.add(1, &el)
		j.seqs = appendDoubling(j.seqs, dk.Seq)
		return len(j.seqs) >= deliveryChunk
	}})
	if err != nil {
		return err
	}
	e.dead.runs.reset()
	return e.joinHooks(&j)
}

// joinHooks counts the chunk's delivery rows whose hook is gone.
func (e *foldEngine) joinHooks(j *hookJoin) error {
	seqs := j.seqs
	if len(seqs) == 0 {
		return nil
	}
	defer func() { j.seqs = j.seqs[:0] }()
	fk := e.famCounter(famHooks.Name, famHooks.CF)
	lo := format.HookKey{Seq: seqs[0]}.Encode()
	hi := format.HookKey{Seq: seqs[len(seqs)-1] + 1}.Encode()
	i := 0
	var missing int64
	err := e.st.ScanKeys(format.CFHooks, lo, hi, e.ro, func(k []byte) error {
		fk.Keys++
		hk, err := format.DecodeHookKey(k)
		if err != nil {
			e.badKeyErr(famHooks, k, err)
			return e.tick(laneRows)
		}
		for i < len(seqs) && seqs[i] < hk.Seq {
			missing++
			i++
		}
		for i < len(seqs) && seqs[i] == hk.Seq {
			i++
		}
		return e.tick(laneRows)
	})
	if err != nil {
		if !isCorrupt(err) {
			return fmt.Errorf("reading hooks: %w", err)
		}
		e.corrupt(famHooks, nil, err.Error())
		e.setBroken(famHooks.Name)
		return nil
	}
	missing += int64(len(seqs) - i)
	e.deliveryRowsWithoutHook += missing
	return nil
}
