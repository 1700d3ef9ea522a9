package migration

import (
	"context"
	"hash/maphash"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The hooks' scan is the join's largest cost (some 900 bytes a hook, read and decompressed:
// a quarter of a bulk run's CPU at 10^6 rows), and RocksDB's iterator runs on the goroutine
// that reads it. So the hooks' key range is cut into parts by seq, scanned by hookWorkers
// goroutines, each on an iterator of its own that reads its parts one after another
// (rocks.Ranges), and handed to the join in key order: the join itself (the merge beside
// the rows, the tenants' names numbered in first sight) stays on one goroutine and sees
// exactly the keys one scan would.
const (
	hookWorkers = 2
	// hookPartRows is the rows of the index a part of the hooks' range covers, about 10,000
	// hooks in a node's store (1.7 rows a hook): small enough that a part fits its channel
	// (hookPartBatches) and a worker rarely waits for the join to reach it.
	hookPartRows = 1 << 14
	// hookBatchLen hooks a batch, hookPartBatches batches a part's channel: 32,768 hooks
	// (about 1.5 MiB of keys and names), for at most hookWorkers+2 parts at once.
	hookBatchLen    = 1024
	hookPartBatches = 32
	// warmGroup hooks are warmed at a time, just before they are looked up: what a batch's
	// warm loaded was mostly evicted again before the join reached its hooks (the hooks'
	// workers' scans run on the same cores), and the lookups still missed.
	warmGroup = 32
)

// scannedHook is a hook as a worker read it: its key's end in the batch's keys, its tenant
// (format.TenantIDOf: pure, so a worker may ask it of every hook it reads) as its reason and
// its id's end in the batch's ids, and the id's hash with the names' seed (hookNames.whoHashed):
// no string a hook, and the hash made on the workers, not on the join's goroutine.
type scannedHook struct {
	end, idEnd int32
	reason     format.DefaultReason
	hash       uint64
}

type hookBatch struct {
	keys, ids []byte
	hooks     []scannedHook
}

// newBatch is an empty batch, one the join is done with if there is one: a batch is made at
// its full size once, not grown, and a scan of millions of hooks makes a few dozen.
func (s *hookScan) newBatch() *hookBatch {
	select {
	case b := <-s.free:
		b.keys, b.ids, b.hooks = b.keys[:0], b.ids[:0], b.hooks[:0]
		return b
	default:
		// The ids' buffer grows to its batch's once (a tenant id is at most 256 bytes).
		return &hookBatch{keys: make([]byte, 0, hookBatchLen*format.KeyLenHook), ids: make([]byte, 0, hookBatchLen*16), hooks: make([]scannedHook, 0, hookBatchLen)}
	}
}

// hookPart is one part of the hooks' key range, [lo, hi) (hi nil: to the family's end),
// and the batches its worker read, closed when it is done (err says why it stopped early).
type hookPart struct {
	lo, hi []byte
	out    chan *hookBatch
	err    error
}

// partReader reads parts of the hooks' range for one worker, one after another.
type partReader interface {
	scan(lo, hi []byte, fn func(k, v []byte) error) error
	close()
}

// rangesReader reads a worker's parts on one iterator: a new iterator a part seeks afresh and
// reads the index blocks of its table files again (the block cache holds them, and these
// reads do not fill it): 610 parts at 10^7 rows, 1.2 s of CPU.
type rangesReader struct{ r *rocks.Ranges }

func (r rangesReader) scan(lo, hi []byte, fn func(k, v []byte) error) error {
	return r.r.Scan(lo, hi, fn)
}
func (r rangesReader) close() { r.r.Close() }

// scanReader reads each part by a joinScan of its own (Options.joinScan, a test's reader).
type scanReader joinScan

func (s scanReader) scan(lo, hi []byte, fn func(k, v []byte) error) error {
	return s(format.CFHooks, lo, hi, fn)
}
func (scanReader) close() {}

// hookReaders opens a worker's partReader: on st's hooks, or by scan when not nil.
func hookReaders(st *rocks.Store, scan joinScan) func() (partReader, error) {
	if scan != nil {
		return func() (partReader, error) { return scanReader(scan), nil }
	}
	return func() (partReader, error) {
		r, err := st.NewRanges(format.CFHooks, bulkRead)
		if err != nil {
			return nil, err
		}
		return rangesReader{r}, nil
	}
}

// hookScan reads parts on workers and hands their hooks over in key order (next).
type hookScan struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	parts  []hookPart
	seed   maphash.Seed    // the names' (hookNames.seed): the ids' hashes
	tokens chan struct{}   // a part taken by a worker and not yet read whole holds one
	free   chan *hookBatch // batches the join is done with
	taken  atomic.Int64

	cur *hookBatch
	i   int // the part next reads
	at  int // the hook of cur next hands over

	// taking, when set, is given the hooks of a batch warmGroup at a time, as next begins to
	// hand them over (the join's hookNames.warm).
	taking func([]scannedHook)
}

// hookParts cuts the hooks' keys of seqs first..last into n parts of equal seq width
// (fewer when there are fewer seqs): part i starts at the key of seq first +
// (last-first+1)*i/n, the last ends after last's.
func hookParts(first, last uint64, n int) []hookPart {
	span := last - first // seqs - 1: last-first+1 may be 2^64
	if uint64(n)-1 > span {
		n = int(span + 1)
	}
	n = max(n, 1)
	parts := make([]hookPart, n)
	for i := range parts {
		// (span+1)*i / n in 128 bits: the quotient is below span+1, so it fits 64.
		hi, lo := bits.Mul64(span, uint64(i))
		lo, carry := bits.Add64(lo, uint64(i), 0)
		q, _ := bits.Div64(hi+carry, lo, uint64(n))
		parts[i].lo = format.HookKey{Seq: first + q}.Append(nil)
		if i > 0 {
			parts[i-1].hi = parts[i].lo
		}
	}
	if last < math.MaxUint64 {
		parts[n-1].hi = format.HookKey{Seq: last + 1}.Append(nil)
	}
	return parts
}

// startHookScan starts workers (at least one) reading parts, each with a reader open opens;
// stop ends them.
func startHookScan(ctx context.Context, open func() (partReader, error), parts []hookPart, workers int, seed maphash.Seed) (*hookScan, error) {
	readers := make([]partReader, 0, max(workers, 1))
	for range max(workers, 1) {
		r, err := open()
		if err != nil {
			for _, r := range readers {
				r.close()
			}
			return nil, err
		}
		readers = append(readers, r)
	}
	s := &hookScan{parts: parts, seed: seed, tokens: make(chan struct{}, workers+2), free: make(chan *hookBatch, 4)}
	s.ctx, s.cancel = context.WithCancel(ctx)
	for i := range s.parts {
		s.parts[i].out = make(chan *hookBatch, hookPartBatches)
	}
	for _, r := range readers {
		s.wg.Add(1)
		go s.work(r)
	}
	return s, nil
}

// work takes the parts in order, a token each: a worker never runs more than the tokens
// ahead of the join, whose part was always taken before any later one, so the join never
// waits on a part no worker holds.
func (s *hookScan) work(r partReader) {
	defer s.wg.Done()
	defer r.close()
	for {
		select {
		case s.tokens <- struct{}{}:
		case <-s.ctx.Done():
			return
		}
		i := int(s.taken.Add(1)) - 1
		if i >= len(s.parts) {
			<-s.tokens
			return
		}
		s.read(r, &s.parts[i])
	}
}

// read scans one part into batches for the join.
func (s *hookScan) read(r partReader, p *hookPart) {
	defer close(p.out)
	b := s.newBatch()
	send := func() error {
		select {
		case p.out <- b:
			b = s.newBatch()
			return nil
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
	}
	p.err = r.scan(p.lo, p.hi, func(k, v []byte) error {
		id, reason := format.TenantIDOf(v, true)
		b.keys = append(b.keys, k...)
		h := scannedHook{end: int32(len(b.keys)), reason: reason}
		if reason == format.ReasonNone {
			b.ids = append(b.ids, id...)
			h.hash = maphash.Bytes(s.seed, id)
		}
		h.idEnd = int32(len(b.ids))
		b.hooks = append(b.hooks, h)
		if len(b.hooks) == cap(b.hooks) {
			return send()
		}
		return nil
	})
	if p.err == nil && len(b.hooks) > 0 {
		p.err = send()
	}
}

// next is the next hook in key order: its key and tenant id (both valid until the next call)
// and what else the worker read of it; ok false at the end of the range or on err (a
// worker's, or the context's).
func (s *hookScan) next() (k, id []byte, h *scannedHook, ok bool, err error) {
	for s.cur == nil || s.at == len(s.cur.hooks) {
		if s.cur != nil {
			// Its last key, handed over by the call before, is no longer valid.
			select {
			case s.free <- s.cur:
			default:
			}
			s.cur = nil
		}
		if s.i == len(s.parts) {
			return nil, nil, nil, false, nil
		}
		p := &s.parts[s.i]
		var b *hookBatch
		open := false
		// A worker stops at the context's end without taking the parts it has not begun,
		// which are never closed: the join stops there too.
		select {
		case b, open = <-p.out:
		case <-s.ctx.Done():
			return nil, nil, nil, false, s.ctx.Err()
		}
		if !open {
			if p.err != nil {
				return nil, nil, nil, false, p.err
			}
			s.i++
			<-s.tokens
			continue
		}
		s.cur, s.at = b, 0
	}
	if s.at%warmGroup == 0 && s.taking != nil {
		s.taking(s.cur.hooks[s.at:min(s.at+warmGroup, len(s.cur.hooks))])
	}
	h = &s.cur.hooks[s.at]
	start, idStart := int32(0), int32(0)
	if s.at > 0 {
		start, idStart = s.cur.hooks[s.at-1].end, s.cur.hooks[s.at-1].idEnd
	}
	s.at++
	return s.cur.keys[start:h.end], s.cur.ids[idStart:h.idEnd], h, true, nil
}

// stop ends the workers, read whole or not, and waits for them.
func (s *hookScan) stop() {
	s.cancel()
	s.wg.Wait()
}
