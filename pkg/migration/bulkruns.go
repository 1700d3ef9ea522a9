package migration

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/ankusa/ankusa-store/internal/losers"
	"github.com/ankusa/ankusa-store/internal/radix"
	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/scratch"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// bulkRunBytes is the key and value bytes a bulk run keeps in memory before it sorts them
// and spills them as a run; its 32-byte entries (writes of some 20 bytes each) take twice as
// much again, allocated once at their full size, and all that twice (the run being filled,
// the run being spilled), beside the sort's copy: 32 MiB. At 24 MiB, grown by doubling, a
// 10^6-row run peaked at 241 MiB; at 8 MiB with one room (40 MiB) a 10^7-row run merged
// some 65 runs; at 4 MiB with two it merges some 130, each read through a 64 KiB buffer
// (runReadSize), for the same speed as 8 MiB with two and 6 MiB less peak RSS.
const bulkRunBytes = 4 << 20

// runReadBuffer is the most of a spilled run the merge holds at a time; runReadTotal bounds
// all the runs' buffers together, so the merge's memory does not grow with the rows: at
// 64 KiB a run, the 665 runs of a 10^8-row store held 42 MiB (past the 256 MiB a run may
// take), where 16 MiB gives each 24 KiB, still read in a few thousand reads a second.
const (
	runReadBuffer = 64 << 10
	runReadTotal  = 16 << 20
	runReadLeast  = 4 << 10
)

// runReadSize is the buffer each of n spilled runs is read through: the joins' rule
// (runs.Limits) with the merge's own bounds.
func runReadSize(n int) int {
	return runs.Limits{ReadBuf: runReadBuffer, ReadTotal: runReadTotal, ReadLeast: runReadLeast}.ReadBufFor(n)
}

// bulkOp is one write of the steps, kept for the bulk commit. The key's first sixteen bytes,
// big-endian and zero-padded, are the two radix words: every fixed-width key of the index
// family is ordered by them but for its last bytes (D: its seq's low five and its sink),
// which the comparison of the few keys left equal settles.
type bulkOp struct {
	hi, lo    uint64
	cf        uint8
	kind      bufKind
	k, v, end int32 // key arena[k:v], value arena[v:end]
}

// bulkRuns keeps every write the steps would commit, in sorted runs: the current one in
// memory, the full ones spilled to unnamed files (nothing is left of them however the run
// ends). Writes of one key keep the order they were made in, within a run and across runs
// (runs are merged earliest first), so that the last put of a key wins as it would in the
// store.
//
// A full run is sorted and written by a goroutine of its own (runSpiller) while the next
// one fills: done in line, each spill stopped the feed for its sort and write (a third of
// its CPU at 10^7 rows), and behind it the builder, the fetch and the scanner, one core idle
// for as long. So a run's room is made twice, each half the memory one run had before.
type bulkRuns struct {
	dir   string // where runs spill
	limit int
	// maxOps, when set, is the writes a run holds at most: the room ops and tmp were made
	// with. A run of small writes (the summed counters' puts, some 10 bytes each) fills it
	// before the arena, and it spills then rather than growing them.
	maxOps int
	// ops and arena are the run being filled; the spiller holds the other room meanwhile.
	ops   []bulkOp
	arena []byte
	// tmp is the sort's copy: the spiller's while it runs, the last run's sort's after.
	tmp []bulkOp
	sp  *runSpiller
	// spills and spilled are the spiller's until settle (or free) returns.
	spills []spilledRun
	// split, when set, is where the write stage cuts the runs in two; restartBytes, when
	// set, is how far apart a spilled run's restart points are (runRestartBytes). A test's.
	split        []byte
	restartBytes int64
	// sorted: the run in memory is sorted, and nothing was added since.
	sorted bool
	// added is the key and value bytes of every write added: the sort and write stages'
	// total, which the write stage's merge counts as it goes.
	added int64
	// keys samples the index family's keys, for the write stage's split (bulksplit.go).
	keys keySample
	// counters: the counter operands, summed instead of kept (bulkcounters.go).
	counters counterSums
	// spilled: bytes written to the run files, the staging's share of the disk.
	spilled int64
	// aheadSum: write's loads ahead, summed, so that the compiler keeps them.
	aheadSum byte
	// opKey, opVal: takeDelta's operand, before add copies it.
	opKey, opVal []byte
	// writing, when set, is called by the spiller as it starts on a run (a test's).
	writing func()
}

// spilledRun is a run the spiller wrote: its unnamed file, the bytes written to it and its
// restart points (bulksplit.go).
type spilledRun struct {
	f        *os.File
	size     int64
	restarts []runRestart
}

// runRoom is one run's room in memory: its writes and the bytes they point into.
type runRoom struct {
	ops   []bulkOp
	arena []byte
}

// runSpiller sorts and writes the full runs spill hands it, one at a time, in the order
// handed (the merge's order among equal keys), and hands each room back empty. It stops at
// its first error, which every spill and settle after returns.
type runSpiller struct {
	full   chan runRoom // at most one: a run to sort and write
	free   chan runRoom // the room not being filled, once written
	failed chan struct{}
	done   chan struct{}
	err    error // read after failed is closed
}

func newBulkRuns(dir string, limit int) *bulkRuns {
	r := &bulkRuns{dir: dir, limit: limit}
	var spare runRoom
	if limit >= 1<<20 {
		// The whole run's room at once: grown by doubling, each slice would carry up to as
		// much again unused, and the collector's headroom over that.
		// A run spills when either is full: grown by append, the ops and the sort's copy of
		// them doubled to 40 MiB each for the last runs of a 10^7-row migration over 10^6
		// tenants (its 6*10^6 summed counters' puts), the old 20 MiB each left to the
		// collector: the heap 116 MiB up at once, the run's peak RSS 335 MiB.
		r.maxOps = limit / 16
		r.arena = make([]byte, 0, limit+64<<10)
		r.ops = make([]bulkOp, 0, r.maxOps)
		r.tmp = make([]bulkOp, 0, r.maxOps)
		spare = runRoom{ops: make([]bulkOp, 0, r.maxOps), arena: make([]byte, 0, limit+64<<10)}
	}
	r.sp = &runSpiller{full: make(chan runRoom, 1), free: make(chan runRoom, 1), failed: make(chan struct{}), done: make(chan struct{})}
	r.sp.free <- spare
	go r.spillLoop()
	return r
}

func (r *bulkRuns) add(cf uint8, kind bufKind, key, val []byte) error {
	r.sorted = false
	r.added += int64(len(key) + len(val))
	k := int32(len(r.arena))
	r.arena = append(r.arena, key...)
	v := int32(len(r.arena))
	r.arena = append(r.arena, val...)
	var p [16]byte
	copy(p[:], key)
	r.ops = append(r.ops, bulkOp{hi: binary.BigEndian.Uint64(p[:8]), lo: binary.BigEndian.Uint64(p[8:]),
		cf: cf, kind: kind, k: k, v: v, end: int32(len(r.arena))})
	if cf == cfIndex {
		r.keys.add(key)
	}
	if len(r.arena) >= r.limit || (r.maxOps > 0 && len(r.ops) >= r.maxOps) {
		return r.spill()
	}
	return nil
}

// takeStep keeps a step's writes (the builder's, sorted or not: the runs sort them again),
// but for the deletions of the old due and inflight rows, which the finish's range
// deletions cover (finishCovers), and its counter deltas (d), which the builder made no
// operands of (builder.sumsCounters): summed, or kept as the steps' operands for an
// ordinal past the sums' limit.
func (r *bulkRuns) takeStep(o *opBuf, d *format.Deltas) error {
	for _, op := range o.ops {
		if op.cf == cfIndex && op.kind == bufDelete && finishCovers(o.key(op)) {
			continue
		}
		if err := r.add(op.cf, op.kind, o.key(op), o.val(op)); err != nil {
			return err
		}
	}
	return d.Each(r.takeDelta)
}

// takeDelta keeps one counter delta of a step: summed, or as the operand the steps merge.
func (r *bulkRuns) takeDelta(ord uint32, f format.Field, v int64) error {
	if r.counters.add(ord, f, v) {
		return nil
	}
	r.opKey = format.CounterKey{Ord: ord, Field: f, Shard: format.Unsharded}.Append(r.opKey[:0])
	r.opVal = format.AppendCounterOperand(r.opVal[:0], v)
	return r.add(cfCounters, bufMerge, r.opKey, r.opVal)
}

// addCounters keeps the summed counters as puts, once every step is taken.
func (r *bulkRuns) addCounters() error {
	err := r.counters.each(func(key, val []byte) error { return r.add(cfCounters, bufPut, key, val) })
	r.counters.free()
	return err
}

// sort orders the run being filled (the last one, kept in memory) as a spill orders its
// own, once until the next add; only once the spiller is settled, whose tmp it uses.
func (r *bulkRuns) sort() {
	if !r.sorted {
		r.tmp = sortRun(r.ops, r.tmp, r.arena)
		r.sorted = true
	}
}

// sortRun orders ops by family, then key, stably: radix passes by the key's first word and
// the family; then, in each section of one family and one first byte, the second word
// where the writes of one first word are not in its order already; then a stable
// comparison of the keys whose first sixteen bytes are equal (in arena). It returns tmp, the
// radix sort's copy.
//
// The second word's passes are skipped where they would change nothing: the steps write
// most of a phase's new keys in their order already within one first word (a due row's D
// key, an inflight row's F, a dead row's X and x, an archive row's a, each tenant's rows in
// the order the phase is read), so that only the active markers (A: bucket, then ordinal,
// written in the due rows' time order) need them. Whether a section does is checked, not
// assumed: a run of any writes sorts whole (TestSortRunIsAStableSort).
func sortRun(ops, tmp []bulkOp, arena []byte) []bulkOp {
	tmp = radix.Sort(ops, tmp, func(op *bulkOp) uint64 { return op.hi })
	tmp = radix.Sort(ops, tmp, func(op *bulkOp) uint64 { return uint64(op.cf) })
	for i := 0; i < len(ops); {
		j, inOrder := i+1, true
		for j < len(ops) && ops[j].cf == ops[i].cf && ops[j].hi>>56 == ops[i].hi>>56 {
			if ops[j].hi == ops[j-1].hi && ops[j].lo < ops[j-1].lo {
				inOrder = false
			}
			j++
		}
		if !inOrder {
			// Stable: writes of one key keep the order the first passes left them in,
			// the order they were made in.
			tmp = radix.Sort(ops[i:j], tmp, func(op *bulkOp) uint64 { return op.lo })
			tmp = radix.Sort(ops[i:j], tmp, func(op *bulkOp) uint64 { return op.hi })
		}
		i = j
	}
	key := func(op bulkOp) []byte { return arena[op.k:op.v] }
	for i := 0; i < len(ops); {
		j := i + 1
		for j < len(ops) && ops[j].cf == ops[i].cf && ops[j].hi == ops[i].hi && ops[j].lo == ops[i].lo {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(ops[i:j], func(a, b bulkOp) int { return bytes.Compare(key(a), key(b)) })
		}
		i = j
	}
	return tmp
}

// spill hands the run being filled to the spiller and goes on in the other room, once the
// spiller has written the run before (the one wait a spill has: the feed fills a run in
// about the time the spiller writes one).
func (r *bulkRuns) spill() error {
	if len(r.ops) == 0 {
		return nil
	}
	var next runRoom
	select {
	case next = <-r.sp.free:
	case <-r.sp.failed:
		return r.sp.err
	}
	// full is empty: the spiller handed back the one room it had.
	r.sp.full <- runRoom{ops: r.ops, arena: r.arena}
	r.ops, r.arena = next.ops[:0], next.arena[:0]
	return nil
}

// settle waits until every run handed to the spiller is written, and returns its error:
// files, spilled and tmp are the caller's after it.
func (r *bulkRuns) settle() error {
	select {
	case room := <-r.sp.free:
		r.sp.free <- room
		return nil
	case <-r.sp.failed:
		return r.sp.err
	}
}

// spillLoop is the spiller's goroutine.
func (r *bulkRuns) spillLoop() {
	defer close(r.sp.done)
	for room := range r.sp.full {
		if err := r.write(room); err != nil {
			r.sp.err = err
			close(r.sp.failed)
			return
		}
		r.sp.free <- runRoom{ops: room.ops[:0], arena: room.arena[:0]}
	}
}

// write sorts a full run and writes it to a file of its own: per write, its family, kind,
// the bytes its key shares with the key before it in the run, the length of the rest of
// its key and of its value (uvarints), the rest of the key and the value. A run is sorted,
// so a key shares most of its head with the one before (a due row's D key its letter, its
// tenant's ordinal and the top of its time): a run's writes took a quarter fewer bytes
// than with each key whole (413.6 against 534.2 MiB at 10^7 rows), which the spiller writes
// and the merge reads through the kernel.
func (r *bulkRuns) write(room runRoom) error {
	if r.writing != nil {
		r.writing()
	}
	r.tmp = sortRun(room.ops, r.tmp, room.arena)
	f, err := scratch.UnnamedFile(r.dir, "bulk migration run")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [2 + 3*binary.MaxVarintLen64]byte
	var prev []byte
	var restarts []runRestart
	var off, since int64
	every := int64(runRestartBytes)
	if r.restartBytes > 0 {
		every = r.restartBytes
	}
	var ahead byte
	for j, op := range room.ops {
		// The sort left the writes in key order and their bytes where they were added: each
		// key is a cache miss in an arena of tens of megabytes (two thirds of this loop's
		// samples at 10^7 rows, in perf, on the first byte sharedPrefix reads). So every
		// spillWarm writes, a loop of nothing but loads of the next ones' first bytes, whose
		// misses are in flight together, before they are written.
		if j%spillWarm == 0 {
			for _, next := range room.ops[j:min(j+spillWarm, len(room.ops))] {
				if int(next.k) < len(room.arena) {
					ahead += room.arena[next.k]
				}
			}
		}
		key := room.arena[op.k:op.v]
		shared := sharedPrefix(prev, key)
		if since >= every || len(restarts) == 0 {
			// A restart point: the key whole, where the write stage's second half may
			// begin reading the run.
			shared, since = 0, 0
			restarts = append(restarts, runRestart{off: off, cf: op.cf, key: slices.Clone(key)})
		}
		prev = key
		hdr[0], hdr[1] = op.cf, byte(op.kind)
		n := 2 + binary.PutUvarint(hdr[2:], uint64(shared))
		n += binary.PutUvarint(hdr[n:], uint64(len(key)-shared))
		n += binary.PutUvarint(hdr[n:], uint64(op.end-op.v))
		if _, err := w.Write(hdr[:n]); err != nil {
			return err
		}
		if _, err := w.Write(room.arena[int(op.k)+shared : op.end]); err != nil {
			return err
		}
		size := int64(n) + int64(int(op.end-op.k)-shared)
		off, since = off+size, since+size
	}
	r.spilled += off
	r.aheadSum += ahead
	r.spills = append(r.spills, spilledRun{f: f, size: off, restarts: restarts})
	// The merge reads the file by offset (io.SectionReader): no seek back.
	return w.Flush()
}

// spillWarm is how many writes' keys a spill loads at once before it writes them: as many
// misses in flight as the CPU keeps, their lines still in its cache when they are written.
const spillWarm = 64

// sharedPrefix is the length of the head a and b share.
func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// free stops the spiller, closes the run files (their blocks are freed with them) and drops
// the memory. A second call does nothing more.
func (r *bulkRuns) free() {
	if r.sp != nil {
		close(r.sp.full)
		<-r.sp.done
		r.sp = nil
	}
	for _, sr := range r.spills {
		sr.f.Close()
	}
	r.counters.free()
	r.spills, r.ops, r.tmp, r.arena = nil, nil, nil, nil
}

// runRec is the current write of a run being merged.
type runRec struct {
	cf       uint8
	kind     bufKind
	key, val []byte
}

// runSource is one sorted run: a spilled file or the run left in memory.
type runSource struct {
	order int // earlier runs first among equal keys
	cur   runRec
	// A file's reader; held is the bytes of its buffer cur's value points into, read past
	// at the next write; key is cur's key, its head the key before's (bulkRuns.write); buf
	// is a value too big for the buffer, copied out.
	rd   *bufio.Reader
	held int
	key  []byte
	buf  []byte
	// pos is where cur begins in the file's section, next where the write after it does.
	pos, after int64
	// The run in memory: its writes at to end.
	mem     *bulkRuns
	at, end int
}

// runHeader is the longest a write's header can be: its family, kind and three uvarints.
const runHeader = 2 + 3*binary.MaxVarintLen64

func (s *runSource) next() (bool, error) {
	if s.mem != nil {
		if s.at >= s.end {
			return false, nil
		}
		op := s.mem.ops[s.at]
		s.at++
		a := s.mem.arena
		s.cur = runRec{cf: op.cf, kind: op.kind, key: a[op.k:op.v:op.v], val: a[op.v:op.end:op.end]}
		return true, nil
	}
	if s.held > 0 {
		// Bytes Peek returned: in the buffer, so Discard cannot fail.
		s.rd.Discard(s.held)
		s.held = 0
	}
	s.pos = s.after
	// The value is read where it lies in the reader's buffer, not copied out (the merge's
	// largest cost was reading its runs byte by byte): it stays there until this source's
	// next write is read, and the merge is done with it by then. The key is made whole in
	// the source's own buffer, which the next write's head is taken from.
	hdr, err := s.rd.Peek(runHeader)
	if len(hdr) == 0 {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	shared, n1 := uvarintAt(hdr, 2)
	kl, n2 := uvarintAt(hdr, 2+n1)
	vl, n3 := uvarintAt(hdr, 2+n1+n2)
	if n1 <= 0 || n2 <= 0 || n3 <= 0 {
		if err != nil {
			return false, unexpected(err)
		}
		return false, fmt.Errorf("migration: a bulk run's write has a bad header %x (a bug)", hdr)
	}
	if shared > uint64(len(s.key)) || kl+vl > 1<<31 {
		return false, fmt.Errorf("migration: a bulk run's write of %d bytes sharing %d of a key of %d (a bug)", kl+vl, shared, len(s.key))
	}
	cf, kind, h := hdr[0], bufKind(hdr[1]), 2+n1+n2+n3
	total := h + int(kl+vl)
	s.after = s.pos + int64(total)
	if rec, err := s.rd.Peek(total); err == nil {
		s.key = append(s.key[:shared], rec[h:h+int(kl)]...)
		s.cur = runRec{cf: cf, kind: kind, key: s.key, val: rec[h+int(kl) : total : total]}
		s.held = total
		return true, nil
	}
	s.rd.Discard(h)
	s.buf = slices.Grow(s.buf[:0], int(kl+vl))[:kl+vl]
	if _, err := io.ReadFull(s.rd, s.buf); err != nil {
		return false, unexpected(err)
	}
	s.key = append(s.key[:shared], s.buf[:kl]...)
	s.cur = runRec{cf: cf, kind: kind, key: s.key, val: s.buf[kl:]}
	return true, nil
}

// uvarintAt is the uvarint at b[i:] and its length; 0 or less when there is none there.
func uvarintAt(b []byte, i int) (uint64, int) {
	if i <= 0 || i > len(b) {
		return 0, 0
	}
	return binary.Uvarint(b[i:])
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// runMerge is the runs' current writes under a tree of losers (internal/losers): one
// compare a level to find the next write, where a binary heap took two (at 10^8 rows the
// write stage merges some 650 runs, and the heap's sift was an eighth of its CPU). The
// tree's keys are the writes' heads (headOf): a level's compare is of two words beside the
// tree's, where a call of less compared keys in 650 buffers through bytes.Compare (at 10^8
// rows the compares, the calls and bytes.Compare were a sixth of the write stage's samples,
// cmpbody alone 8.9%).
type runMerge struct {
	srcs []*runSource
	done []bool // the sources read past
	tree losers.Keyed
	tie  func(a, b int32) bool // tieOf, bound once
}

// headOf is the two words a write's order begins with: its family's number in the first
// byte, then the first 15 bytes of its key, zeros past its end, big-endian. Two writes whose
// heads differ are in the order of their heads: a key that ends within them is the lesser
// where the other has a byte past its end that is not 0, and where that byte is 0 the heads
// are still equal there. Equal heads say nothing (a key may go on past them, or end there).
func headOf(cf uint8, key []byte) [2]uint64 {
	if len(key) >= 15 {
		// Read in place: a key copied into a buffer and read back as words stalled on the
		// copy's stores (a tenth of the merge's samples).
		return [2]uint64{uint64(cf)<<56 | binary.BigEndian.Uint64(key[:8])>>8, binary.BigEndian.Uint64(key[7:15])}
	}
	var b [16]byte
	b[0] = cf
	copy(b[1:], key)
	return [2]uint64{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// set records source i's current write in its key, or that it is read past.
func (m *runMerge) set(i int32, ok bool) {
	if !ok {
		m.done[i], m.tree.Keys[i] = true, losers.ReadPast
		return
	}
	cur := &m.srcs[i].cur
	m.tree.Keys[i] = headOf(cur.cf, cur.key)
}

// tieOf orders two sources whose writes' heads are equal: by key and the order the runs
// were made in; a source read past after every other.
func (m *runMerge) tieOf(i, j int32) bool {
	switch {
	case m.done[i]:
		return false
	case m.done[j]:
		return true
	}
	// The same family and the same first 15 bytes of their keys.
	if c := bytes.Compare(m.srcs[i].cur.key, m.srcs[j].cur.key); c != 0 {
		return c < 0
	}
	return m.srcs[i].order < m.srcs[j].order
}

// drainRuns calls fn with every write of the runs m merges, in the order of (family, key,
// the order they were made in); key and val are valid until fn returns.
func drainRuns(m *runMerge, fn func(cf uint8, kind bufKind, key, val []byte) error) error {
	for m.tree.Len() > 0 {
		w := m.tree.Winner()
		if m.done[w] {
			return nil
		}
		src := m.srcs[w]
		if err := fn(src.cur.cf, src.cur.kind, src.cur.key, src.cur.val); err != nil {
			return err
		}
		ok, err := src.next()
		if err != nil {
			return err
		}
		m.set(w, ok)
		m.tree.Replay(m.tie)
	}
	return nil
}
