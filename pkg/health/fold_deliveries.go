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
// It runs on a goroutine of its own (the hooks lane), a chunk behind the
// deliveries scan: the hooks' blocks are most of a store's bytes, and read
// after each chunk they kept the rows lane, the longer one, twice as long.

// hookLane joins the chunks handed to it, in order. At most three chunks
// exist: one filling, one waiting, one being joined.
type hookLane struct {
	work chan []uint64
	free chan []uint64
	done chan error
	made int // chunks made so far
}

func (e *foldEngine) startHookLane() *hookLane {
	l := &hookLane{work: make(chan []uint64, 1), free: make(chan []uint64, 2), done: make(chan error, 1), made: 1}
	l.free <- nil
	go func() {
		var err error
		for seqs := range l.work {
			if err == nil {
				// After a failure the chunks are only handed back.
				err = e.joinHooks(seqs)
			}
			l.free <- seqs[:0]
		}
		l.done <- err
	}()
	return l
}

// hand passes a chunk to the lane and returns an empty one; it runs while
// the deliveries scan is paused, so no read of the store waits on the lane.
func (l *hookLane) hand(seqs []uint64) []uint64 {
	if len(seqs) == 0 {
		return seqs
	}
	l.work <- seqs
	if l.made == 3 {
		return <-l.free
	}
	select {
	case b := <-l.free:
		return b
	default:
		l.made++
		return nil // a new chunk, grown by appending
	}
}

// finish joins the last chunk and returns the lane's error.
func (l *hookLane) finish(seqs []uint64) error {
	l.hand(seqs)
	close(l.work)
	return <-l.done
}

func (e *foldEngine) foldDeliveries() error {
	hooks := e.startHookLane()
	seqs := <-hooks.free
	dead := e.deadJoin()
	err := e.read(famRead{fam: format.FamDeliveries, lane: laneRows, pause: func() error { seqs = hooks.hand(seqs); return nil }, row: func(k, v []byte) bool {
		dk, err := format.DecodeDeliveryKey(k)
		if err != nil {
			e.badKeyErr(format.FamDeliveries, k, err)
			return false
		}
		dead.row(e, dk, k, v)
		el := seqSinkElem(dk.Seq, dk.Sink)
		e.r5rows.add(1, &el)
		seqs = appendDoubling(seqs, dk.Seq)
		return len(seqs) >= e.sz.deliveryChunk
	}})
	if ferr := dead.finish(e); err == nil {
		err = ferr
	}
	if err != nil {
		hooks.finish(nil)
		return err
	}
	e.dead.runs.Reset()
	return hooks.finish(seqs)
}

// joinHooks counts the chunk's delivery rows whose hook is gone.
func (e *foldEngine) joinHooks(seqs []uint64) error {
	if len(seqs) == 0 {
		return nil
	}
	fk := e.famCounter(format.FamHooks.Name, format.FamHooks.CF)
	lo := format.HookKey{Seq: seqs[0]}.Encode()
	hi := format.HookKey{Seq: seqs[len(seqs)-1] + 1}.Encode()
	i := 0
	var missing, keys int64
	defer func() { fk.Keys += keys }()
	err := e.st.ScanKeys(format.CFHooks, lo, hi, e.ro, func(k []byte) error {
		keys++
		hk, err := format.DecodeHookKey(k)
		if err != nil {
			e.badKeyErr(format.FamHooks, k, err)
			return e.tick(laneHooks)
		}
		for i < len(seqs) && seqs[i] < hk.Seq {
			missing++
			i++
		}
		for i < len(seqs) && seqs[i] == hk.Seq {
			i++
		}
		return e.tick(laneHooks)
	})
	if err != nil {
		if !isCorrupt(err) {
			return fmt.Errorf("reading hooks: %w", err)
		}
		e.corrupt(format.FamHooks, nil, corruptDetail(err))
		e.setBroken(format.FamHooks.Name)
		return nil
	}
	missing += int64(len(seqs) - i)
	e.deliveryRowsWithoutHook += missing
	return nil
}
