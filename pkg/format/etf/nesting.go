package etf

import (
	"encoding/binary"
	"math"
	"strconv"
)

// The decoder walks containers with an explicit stack instead of recursion:
// binary_to_term has no nesting limit (erts decodes iteratively), so neither
// may we, and a Go recursion as deep as a hostile row is long would exhaust
// the goroutine stack, which is fatal rather than an error. Every level costs
// at least two input bytes (104, 1), so the stack is bounded by the input.

// A frame is one container whose children are being read.
type frame struct {
	elems []Term // children so far (tuples, lists)
	pairs Map    // a map's pairs so far; the last one's value is missing while left is odd
	start int    // offset of the container's tag
	left  uint64 // children still to read
	kind  uint8
}

const (
	frameTuple    = iota
	frameList     // the elements of a LIST_EXT
	frameListTail // its improper tail, one term
	frameMap
	frameFun // NEW_FUN_EXT's creator and free variables, kept as Opaque
)

// frameChunk frames are allocated at a time and never moved: a growing slice
// would copy the stack at every doubling and allocate several times its
// final size, and a deep term would then break the bound of O(input)
// allocation.
const frameChunk = 128

// frameStack keeps its first levels in place (an envelope nests three), so
// the node's values decode without allocating a stack, and deeper ones in
// heap chunks. The local frames are never stored in a chunk: that would move
// them, and so the whole stack, to the heap.
type frameStack struct {
	local  [4]frame
	nLocal int
	cur    []frame   // the chunk in use when deeper than local; nil otherwise
	below  [][]frame // full chunks under cur
	spare  []frame   // a chunk popped empty, kept so a depth that oscillates at a chunk edge does not allocate
}

func (s *frameStack) push(f frame) *frame {
	if s.cur == nil {
		if s.nLocal < len(s.local) {
			s.local[s.nLocal] = f
			s.nLocal++
			return &s.local[s.nLocal-1]
		}
		s.cur, s.spare = s.newChunk(), nil
	} else if len(s.cur) == cap(s.cur) {
		s.below = append(s.below, s.cur)
		s.cur, s.spare = s.newChunk(), nil
	}
	s.cur = append(s.cur, f)
	return &s.cur[len(s.cur)-1]
}

func (s *frameStack) newChunk() []frame {
	if s.spare != nil {
		return s.spare[:0]
	}
	return make([]frame, 0, frameChunk)
}

func (s *frameStack) top() *frame {
	switch {
	case len(s.cur) > 0:
		return &s.cur[len(s.cur)-1]
	case s.nLocal > 0:
		return &s.local[s.nLocal-1]
	}
	return nil
}

func (s *frameStack) pop() {
	if s.cur == nil {
		s.nLocal--
		s.local[s.nLocal] = frame{} // let the children be collected
		return
	}
	s.cur[len(s.cur)-1] = frame{}
	s.cur = s.cur[:len(s.cur)-1]
	if len(s.cur) > 0 {
		return
	}
	if s.spare == nil {
		s.spare = s.cur
	}
	s.cur = nil
	if n := len(s.below); n > 0 {
		s.cur, s.below = s.below[n-1], s.below[:n-1]
	}
}

// emptyList is shared so that every [] in the input does not cost a boxed
// List allocation.
var emptyList Term = List{}

// term decodes one term at d.off, however deeply nested.
func (d *decoder) term() (Term, error) {
	var st frameStack
	for {
		t, leaf, err := d.open(&st)
		if err != nil {
			return nil, err
		}
		for leaf {
			f := st.top()
			if f == nil {
				return t, nil
			}
			t, leaf, err = d.deliver(f, t)
			if err != nil {
				return nil, err
			}
			if leaf {
				st.pop()
			}
		}
	}
}

// deliver hands a finished child to its container; done means the container
// is finished too, and t is then the container's term.
func (d *decoder) deliver(f *frame, child Term) (t Term, done bool, err error) {
	if f.kind == frameListTail {
		if len(f.elems) == 0 {
			return child, true, nil // [|T] is T; erts reads a zero-length LIST_EXT so
		}
		return List{Elems: f.elems, Tail: child}, true, nil
	}
	switch {
	case f.kind == frameMap && f.left%2 == 0:
		if cap(f.pairs) == 0 {
			f.pairs = make(Map, 0, prealloc(f.left/2))
		}
		f.pairs = append(f.pairs, MapPair{Key: child})
	case f.kind == frameMap:
		f.pairs[len(f.pairs)-1].Value = child
	case f.kind != frameFun:
		if cap(f.elems) == 0 {
			f.elems = make([]Term, 0, prealloc(f.left))
		}
		f.elems = append(f.elems, child)
	}
	if f.left--; f.left > 0 {
		return nil, false, nil
	}
	return d.finish(f)
}

// finish builds a container whose children are all read.
func (d *decoder) finish(f *frame) (Term, bool, error) {
	switch f.kind {
	case frameTuple:
		return Tuple(f.elems), true, nil
	case frameMap:
		m := f.pairs
		if dupAt := duplicateKey(m); dupAt >= 0 {
			// binary_to_term refuses these; Get and Equal would be ambiguous.
			return nil, false, d.fail(ErrInvalid, f.start, "duplicate map key "+Format(m[dupAt].Key))
		}
		return m, true, nil
	case frameFun:
		return Opaque{Tag: TagNewFun, Raw: clone(d.b[f.start:d.off])}, true, nil
	}
	return d.listTail(f)
}

// listTail reads what follows a LIST_EXT's elements. A tail that is itself a
// list (106, 107, 108) is folded into this one: [1|[2|[3]]] is the same term
// as [1,2,3] in Erlang, and a chain of one-element conses costs no stack.
func (d *decoder) listTail(f *frame) (Term, bool, error) {
	for {
		if err := d.need(1); err != nil {
			return nil, false, err
		}
		switch d.b[d.off] {
		case TagList:
			d.off++
			n, err := d.u32()
			if err != nil {
				return nil, false, err
			}
			if err := d.needCount(uint64(n)+1, 1, "list"); err != nil {
				return nil, false, err
			}
			if n > 0 {
				f.left = uint64(n)
				return nil, false, nil
			}
		case TagNil:
			d.off++
			return listOf(f.elems), true, nil
		case TagString:
			d.off++
			n, err := d.u16()
			if err != nil {
				return nil, false, err
			}
			s, err := d.bytes(int(n))
			if err != nil {
				return nil, false, err
			}
			for _, c := range s {
				f.elems = append(f.elems, int64(c))
			}
			return listOf(f.elems), true, nil
		default:
			f.kind = frameListTail
			return nil, false, nil
		}
	}
}

func listOf(elems []Term) Term {
	if len(elems) == 0 {
		return emptyList
	}
	return List{Elems: elems}
}

// open reads the term at d.off: a leaf (leaf true), or the header of a
// container, pushed on st with its children still to read. A container with
// no children is a leaf.
func (d *decoder) open(st *frameStack) (t Term, leaf bool, err error) {
	start := d.off
	tag, err := d.u8()
	if err != nil {
		return nil, false, err
	}
	switch tag {
	case TagSmallTuple, TagLargeTuple:
		var n uint64
		if tag == TagSmallTuple {
			c, err := d.u8()
			if err != nil {
				return nil, false, err
			}
			n = uint64(c)
		} else {
			v, err := d.u32()
			if err != nil {
				return nil, false, err
			}
			n = uint64(v)
		}
		if err := d.needCount(n, 1, "tuple"); err != nil {
			return nil, false, err
		}
		if n == 0 {
			return Tuple{}, true, nil
		}
		st.push(frame{kind: frameTuple, start: start, left: n, elems: []Term{}})
		return nil, false, nil
	case TagList:
		n, err := d.u32()
		if err != nil {
			return nil, false, err
		}
		if err := d.needCount(uint64(n)+1, 1, "list"); err != nil {
			return nil, false, err
		}
		f := st.push(frame{kind: frameList, start: start, left: uint64(n), elems: []Term{}})
		if n > 0 {
			return nil, false, nil
		}
		t, done, err := d.listTail(f)
		if done {
			st.pop()
		}
		return t, done, err
	case TagMap:
		n, err := d.u32()
		if err != nil {
			return nil, false, err
		}
		if err := d.needCount(uint64(n), 2, "map"); err != nil {
			return nil, false, err
		}
		if n == 0 {
			return Map{}, true, nil
		}
		st.push(frame{kind: frameMap, start: start, left: 2 * uint64(n), pairs: Map{}})
		return nil, false, nil
	case TagNewFun:
		nfree, err := d.newFunHeader(start)
		if err != nil {
			return nil, false, err
		}
		// The creator (any term, which OTP 25 reads and drops) and the free
		// variables.
		if err := d.needCount(nfree+1, 1, "fun environment"); err != nil {
			return nil, false, err
		}
		st.push(frame{kind: frameFun, start: start, left: nfree + 1})
		return nil, false, nil
	}
	d.off = start
	t, err = d.leaf()
	return t, err == nil, err
}

// leaf reads a term that holds no other term.
func (d *decoder) leaf() (Term, error) {
	start := d.off
	tag, err := d.u8()
	if err != nil {
		return nil, err
	}
	switch tag {
	case TagSmallInteger:
		v, err := d.u8()
		return int64(v), err
	case TagInteger:
		v, err := d.u32()
		return int64(int32(v)), err
	case TagSmallBig:
		n, err := d.u8()
		if err != nil {
			return nil, err
		}
		return d.bigInt(int(n))
	case TagLargeBig:
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		if n > maxBigBytes {
			return nil, d.fail(ErrInvalid, start, "bignum of "+strconv.FormatUint(uint64(n), 10)+" bytes, over "+strconv.Itoa(maxBigBytes))
		}
		if uint64(n) > uint64(d.remaining()) {
			return nil, d.fail(ErrTruncated, d.off, "bignum of "+strconv.FormatUint(uint64(n), 10)+" bytes")
		}
		return d.bigInt(int(n))
	case TagNewFloat:
		v, err := d.bytes(8)
		if err != nil {
			return nil, err
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(v))
		if math.IsInf(f, 0) || math.IsNaN(f) {
			// binary_to_term refuses them too; accepting one would give
			// us a value no node can hold.
			return nil, d.fail(ErrInvalid, start, "non-finite float")
		}
		return f, nil
	case TagFloat:
		return d.oldFloat(start)
	case TagAtom, TagSmallAtom, TagAtomUTF8, TagSmallAtomUTF8:
		d.off = start
		if t, ok := d.knownAtom(); ok {
			return t, nil
		}
		a, err := d.atom()
		if err != nil {
			return nil, err
		}
		return a, nil
	case TagNil:
		return emptyList, nil
	case TagString:
		n, err := d.u16()
		if err != nil {
			return nil, err
		}
		s, err := d.bytes(int(n))
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return emptyList, nil
		}
		elems := make([]Term, n)
		for i, c := range s {
			elems[i] = int64(c)
		}
		return List{Elems: elems}, nil
	case TagBinary:
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		s, err := d.bytes(int(n))
		if err != nil {
			return nil, err
		}
		return Binary(clone(s)), nil
	case TagBitBinary:
		return d.bitBinary(start)
	case TagNewPid, TagPid, TagNewerReference, TagNewReference, TagReference,
		TagNewPort, TagPort, TagV4Port, TagExport:
		d.off = start
		return d.opaque()
	case TagCompressed:
		return nil, d.fail(ErrBadTag, start, "compressed term (80) is only allowed at the top level")
	case TagFun:
		// OTP 23 and later refuse the pre-R8 fun format.
		return nil, d.fail(ErrBadTag, start, "old fun (117), which binary_to_term no longer reads")
	}
	return nil, d.fail(ErrBadTag, start, "tag "+strconv.Itoa(int(tag)))
}

// maxPrealloc bounds the room a container reserves for the children its header announces,
// once its first child is read: reserved at the header, tuples inside tuples that each
// announce more children than follow reserved 128 bytes a level for 2 bytes of input
// (FuzzDecode: 3,588 bytes allocating 356 KB, over its 64n + 64 KiB bound).
// needCount holds each count to the bytes left, but not their sum: nested headers that each
// announce as many children as there are bytes after them (a 317-byte input of tuples inside
// tuples, found by FuzzDecode) reserved room quadratic in the input's length. Past the bound,
// a container grows as its children are read, so what a decode allocates follows what it read.
const maxPrealloc = 8

func prealloc(n uint64) int {
	if n > maxPrealloc {
		return maxPrealloc
	}
	return int(n)
}
