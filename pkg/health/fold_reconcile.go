package health

import (
	"math"
	"math/bits"
)

// The one-to-one checks (a delivery row has exactly one index key, x and X
// mirror each other) join families that
// are sorted differently: deliveries by (seq, sink), due keys by (ord, at,
// ...), dead keys by (at, ...). A sort or a hash set of every row would make
// verify's memory grow with the store. Instead each check feeds both sides
// into a reconTable, an invertible Bloom lookup table over the multiset
// difference: memory is fixed, a healthy store leaves it empty, and a
// difference of up to a few thousand elements is listed exactly ("peeled")
// without reading anything twice. Only a larger difference falls back to a
// second, filtered scan (reconExact).
//
// Cells add instead of XOR-ing, and keep each 32-bit word of the element in
// its own 64-bit sum, so that a cell holding one element n times (two index
// keys for one delivery row) still peels: every sum is then n times the word.

// reconWords is the widest element: (ord, at, seq, sink) in 32-bit words.
const reconWords = 6

// reconElem is one element of a checked set, as 32-bit words.
type reconElem [reconWords]uint32

// reconK is how many cells each element is added to (one per partition).
const reconK = 3

type reconCell struct {
	count int64
	sum   [reconWords]int64
	check uint64
}

// reconTable is a multiset difference: side 0 adds, side 1 subtracts.
type reconTable struct {
	words int
	mask  uint64
	cells []reconCell
	adds  [2]int64
	// budget bounds the elements one pass of reconExact holds (sizes.reconBudget).
	budget int
}

// reconItem is one element of the difference: N > 0 means side 0 holds it N
// more times than side 1, N < 0 the other way round.
type reconItem struct {
	E reconElem
	N int64
}

// newReconTable is a table of 2^logCells cells a partition whose reconExact holds budget
// elements a pass (sizes.reconLogCells, sizes.reconBudget).
func newReconTable(words, logCells, budget int) *reconTable {
	n := 1 << logCells
	return &reconTable{words: words, mask: uint64(n - 1), cells: make([]reconCell, reconK*n), budget: budget}
}

// reconHash is a 64-bit hash of the element's first words words. Every step
// is a bijection of h for a fixed input word, so two elements that differ only
// in their last pair of words never collide.
func reconHash(e *reconElem, words int) uint64 {
	h := uint64(words) * 0x9e3779b97f4a7c15
	for i := 0; i < words; i += 2 {
		v := uint64(e[i])
		if i+1 < words {
			v |= uint64(e[i+1]) << 32
		}
		h ^= v
		h = bits.RotateLeft64(h*0x87c37b91114253d5, 31) * 0x4cf5ad432745937f
	}
	return fmix64(h)
}

func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// checkOf and the cell indices are independent functions of the hash.
func checkOf(h uint64) uint64 { return fmix64(h ^ 0x6a09e667f3bcc909) }

func (t *reconTable) cell(h uint64, p int) int { return t.cellAt(cellHash(h), p) }

// cellHash is what an element's cells are drawn from, 21 bits a partition.
func cellHash(h uint64) uint64 { return fmix64(h ^ 0xbb67ae8584caa73b) }

func (t *reconTable) cellAt(idx uint64, p int) int {
	return p*int(t.mask+1) + int((idx>>(21*uint(p)))&t.mask)
}

// add counts e once on side 0 or 1. It is apply for the k cells of one
// element, with the hashes made once: verify adds some 2.5 elements a key.
func (t *reconTable) add(side int, e *reconElem) {
	t.adds[side]++
	n := int64(1 - 2*side)
	h := reconHash(e, t.words)
	chk := uint64(n) * checkOf(h)
	idx := cellHash(h)
	if t.words == seqSinkWords {
		// Most adds are (seq, sink)s (index keys, delivery rows): three
		// words, not six sums of which three add 0.
		d0, d1, d2 := n*int64(e[0]), n*int64(e[1]), n*int64(e[2])
		for p := 0; p < reconK; p++ {
			c := &t.cells[t.cellAt(idx, p)]
			c.count += n
			c.sum[0] += d0
			c.sum[1] += d1
			c.sum[2] += d2
			c.check += chk
		}
		return
	}
	// The words past t.words add 0: every cell's sums are updated whole,
	// with no bounds to check.
	var d [reconWords]int64
	for w := range d {
		if w < t.words {
			d[w] = n * int64(e[w])
		}
	}
	for p := 0; p < reconK; p++ {
		c := &t.cells[t.cellAt(idx, p)]
		c.count += n
		for w := range d {
			c.sum[w] += d[w]
		}
		c.check += chk
	}
}

func (t *reconTable) apply(j int, e *reconElem, n int64, chk uint64) {
	c := &t.cells[j]
	c.count += n
	for w := 0; w < t.words; w++ {
		c.sum[w] += n * int64(e[w])
	}
	c.check += uint64(n) * chk
}

// merge adds o (built with the same words and size) into t, so that two
// scans running apart can each fill a table of their own.
func (t *reconTable) merge(o *reconTable) {
	for j := range t.cells {
		c, d := &t.cells[j], &o.cells[j]
		c.count += d.count
		for w := range c.sum {
			c.sum[w] += d.sum[w]
		}
		c.check += d.check
	}
	t.adds[0] += o.adds[0]
	t.adds[1] += o.adds[1]
}

func (c *reconCell) zero() bool {
	if c.count != 0 || c.check != 0 {
		return false
	}
	for _, s := range c.sum {
		if s != 0 {
			return false
		}
	}
	return true
}

// pure reports whether cell j holds exactly one distinct element, and which,
// how many times.
func (t *reconTable) pure(j int) (reconElem, int64, bool) {
	var e reconElem
	c := &t.cells[j]
	n := c.count
	if n == 0 {
		return e, 0, false
	}
	for w := 0; w < t.words; w++ {
		s := c.sum[w]
		if s%n != 0 {
			return e, 0, false
		}
		q := s / n
		if q < 0 || q > math.MaxUint32 {
			return e, 0, false
		}
		e[w] = uint32(q)
	}
	for w := t.words; w < reconWords; w++ {
		if c.sum[w] != 0 {
			return e, 0, false
		}
	}
	h := reconHash(&e, t.words)
	if c.check != uint64(n)*checkOf(h) || t.cell(h, j/int(t.mask+1)) != j {
		return e, 0, false
	}
	return e, n, true
}

// peel lists the difference. It consumes the table: afterwards the cells
// that are not zero are the ones peeling could not resolve. ok is false when
// such cells remain.
func (t *reconTable) peel() (items []reconItem, ok bool) {
	var stack []int
	for j := range t.cells {
		if t.cells[j].count != 0 {
			stack = append(stack, j)
		}
	}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e, n, ok := t.pure(j)
		if !ok {
			continue
		}
		items = append(items, reconItem{E: e, N: n})
		h := reconHash(&e, t.words)
		chk := checkOf(h)
		for p := 0; p < reconK; p++ {
			jj := t.cell(h, p)
			t.apply(jj, &e, -n, chk)
			if t.cells[jj].count != 0 {
				stack = append(stack, jj)
			}
		}
	}
	for j := range t.cells {
		if !t.cells[j].zero() {
			return items, false
		}
	}
	return items, true
}

// stuck reports whether every cell of e is one that peeling left non-zero:
// every element of the difference that peel did not list is such an element.
func (t *reconTable) stuck(e *reconElem) bool {
	h := reconHash(e, t.words)
	for p := 0; p < reconK; p++ {
		if t.cells[t.cell(h, p)].zero() {
			return false
		}
	}
	return true
}

// stuckFraction estimates which share of all elements stuck selects.
func (t *reconTable) stuckFraction() float64 {
	per := int(t.mask + 1)
	f := 1.0
	for p := 0; p < reconK; p++ {
		n := 0
		for _, c := range t.cells[p*per : (p+1)*per] {
			if !c.zero() {
				n++
			}
		}
		f *= float64(n) / float64(per)
	}
	return f
}

// reconExact finishes a difference that peel could not: it rescans both
// sides (rescan calls emit for every element, as the first pass added them),
// keeping only elements whose cells are all stuck, in as many passes as the
// budget needs, and diffs them exactly. peeled is what peel listed; the
// result replaces any of it the rescan saw again.
func (t *reconTable) reconExact(peeled []reconItem, rescan func(emit func(side int, e *reconElem)) error) ([]reconItem, error) {
	var out []reconItem
	for _, it := range peeled {
		if !t.stuck(&it.E) {
			out = append(out, it)
		}
	}
	est := float64(t.adds[0]+t.adds[1]) * t.stuckFraction()
	passes := int(math.Ceil(est / float64(t.budget)))
	if passes < 1 {
		passes = 1
	}
	for pass := 0; pass < passes; pass++ {
		m := map[reconElem]int64{}
		err := rescan(func(side int, e *reconElem) {
			if passes > 1 && int(reconHash(e, t.words)%uint64(passes)) != pass {
				return
			}
			if !t.stuck(e) {
				return
			}
			m[*e] += int64(1 - 2*side)
		})
		if err != nil {
			return nil, err
		}
		for e, n := range m {
			if n != 0 {
				out = append(out, reconItem{E: e, N: n})
			}
		}
	}
	return out, nil
}

// Elements of the checks.

func seqSinkElem(seq uint64, sink uint16) reconElem {
	return reconElem{uint32(seq >> 32), uint32(seq), uint32(sink)}
}

func (e reconElem) seqSink() (uint64, uint16) {
	return uint64(e[0])<<32 | uint64(e[1]), uint16(e[2])
}

func deadElem(ord uint32, at, seq uint64, sink uint16) reconElem {
	return reconElem{ord, uint32(at >> 32), uint32(at), uint32(seq >> 32), uint32(seq), uint32(sink)}
}

func (e reconElem) dead() (ord uint32, at, seq uint64, sink uint16) {
	return e[0], uint64(e[1])<<32 | uint64(e[2]), uint64(e[3])<<32 | uint64(e[4]), uint16(e[5])
}

// Element widths in words.
const (
	seqSinkWords = 3
	deadWords    = 6
)
