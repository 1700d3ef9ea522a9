package etf

import (
	"encoding/binary"
	"strconv"
)

// opaque parses a pid, reference, port or export in full, so that its length
// is known and its fields are checked as binary_to_term checks them, and
// keeps its raw bytes: the node tolerates them inside envelopes, but nothing
// in the store gives them a meaning we could act on. (NEW_FUN_EXT holds
// terms, so the nesting walk reads it: open, TagNewFun.)
//
// The limits are those OTP 25 applies to a term naming another node, checked
// against erl (erlang_test.go). A node decoding a term that names itself, with
// its own creation, checks local pids, ports and references more strictly
// (as erl does for nonode@nohost, creation 0); we cannot know the node's name.
func (d *decoder) opaque() (Term, error) {
	start := d.off
	tag, err := d.u8()
	if err != nil {
		return nil, err
	}
	switch tag {
	case TagNewPid: // Node, ID:32, Serial:32, Creation:32
		err = d.then(d.skipAtom, d.skip(12))
	case TagPid: // Node, ID:32, Serial:32, Creation:8
		err = d.then(d.skipAtom, d.skip(8), d.tinyCreation)
	case TagNewerReference, TagNewReference: // Len:16, Node, Creation:32|8, ID:32*Len
		err = d.newReference(tag)
	case TagReference: // Node, ID:32, Creation:8
		err = d.then(d.skipAtom, d.refID0, d.tinyCreation)
	case TagNewPort: // Node, ID:32, Creation:32
		err = d.then(d.skipAtom, d.skip(8))
	case TagV4Port: // Node, ID:64, Creation:32
		err = d.then(d.skipAtom, d.skip(12))
	case TagPort: // Node, ID:32, Creation:8
		err = d.then(d.skipAtom, d.skip(4), d.tinyCreation)
	case TagExport: // Module, Function, Arity: an integer term, 0 .. 2^59-1
		err = d.then(d.skipAtom, d.skipAtom, func() error { return d.smallInt(0) })
	default:
		return nil, d.fail(ErrBadTag, start, "tag "+strconv.Itoa(int(tag)))
	}
	if err != nil {
		return nil, err
	}
	return Opaque{Tag: tag, Raw: clone(d.b[start:d.off])}, nil
}

// maxRefWords is how many ID words erts keeps in a reference (ERTS_MAX_REF_NUMBERS
// in OTP 24 and later).
const maxRefWords = 5

// refID0Bits: the first ID word of REFERENCE_EXT and NEW_REFERENCE_EXT holds
// 18 bits; erts refuses a larger one (NEWER_REFERENCE_EXT lifted the limit).
const refID0Max = 1<<18 - 1

func (d *decoder) newReference(tag byte) error {
	start := d.off - 1
	n, err := d.u16()
	if err != nil {
		return err
	}
	if n > maxRefWords {
		return d.fail(ErrInvalid, start, "reference of "+strconv.Itoa(int(n))+" words, over "+strconv.Itoa(maxRefWords))
	}
	if n == 0 {
		// erts reads one ID word whatever the length says (OTP 25:
		// binary_to_term reads 4 bytes past a zero-length reference).
		n = 1
	}
	if err := d.skipAtom(); err != nil {
		return err
	}
	if tag == TagNewerReference {
		if _, err := d.bytes(4); err != nil {
			return err
		}
	} else if err := d.tinyCreation(); err != nil {
		return err
	}
	if tag == TagNewReference {
		if err := d.refID0(); err != nil {
			return err
		}
		n--
	}
	_, err = d.bytes(4 * int(n))
	return err
}

func (d *decoder) refID0() error {
	start := d.off
	id, err := d.u32()
	if err == nil && id > refID0Max {
		err = d.fail(ErrInvalid, start, "old-style reference ID word "+strconv.FormatUint(uint64(id), 10)+" over 18 bits")
	}
	return err
}

// tinyCreation is the 8-bit creation of the old formats, which erts accepts
// only in 0..3 (2 bits).
func (d *decoder) tinyCreation() error {
	start := d.off
	c, err := d.u8()
	if err == nil && c > 3 {
		err = d.fail(ErrInvalid, start, "creation "+strconv.Itoa(int(c))+" over 3 in an old-style pid, port or reference")
	}
	return err
}

// newFunHeader reads NEW_FUN_EXT up to its creator: Size:32, Arity:8,
// Uniq:16 bytes, Index:32, NumFree:32, Module, OldIndex, OldUniq. OTP 25
// ignores Size (checked: any value decodes), so we do too; the creator and
// the free variables follow as terms.
func (d *decoder) newFunHeader(start int) (nfree uint64, err error) {
	fixed, err := d.bytes(newFunFixedPrefixSz)
	if err != nil {
		return 0, err
	}
	nfree = uint64(binary.BigEndian.Uint32(fixed[newFunFixedPrefixSz-4:]))
	err = d.then(d.skipAtom, func() error { return d.smallInt(minSmall) }, func() error { return d.smallInt(minSmall) })
	return nfree, err
}

func (d *decoder) then(steps ...func() error) error {
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) skip(n int) func() error {
	return func() error {
		_, err := d.bytes(n)
		return err
	}
}

func (d *decoder) skipAtom() error {
	_, err := d.atom()
	return err
}

// The range of an Erlang small integer on a 64-bit emulator, which is what
// erts requires of a fun's OldIndex and OldUniq and an export's arity.
const (
	minSmall = -1 << 59
	maxSmall = 1<<59 - 1
)

// smallInt reads an integer term (any of 97, 98, 110, 111: erts judges the
// value) in min .. 2^59-1.
func (d *decoder) smallInt(min int64) error {
	start := d.off
	if err := d.need(1); err != nil {
		return err
	}
	switch d.b[d.off] {
	case TagSmallInteger, TagInteger, TagSmallBig, TagLargeBig:
	default:
		return d.fail(ErrBadTag, start, "want an integer, got tag "+strconv.Itoa(int(d.b[d.off])))
	}
	t, err := d.leaf()
	if err != nil {
		return err
	}
	v, ok := t.(int64) // a *big.Int is out of range
	if !ok || v < min || v > maxSmall {
		return d.fail(ErrInvalid, start, "integer "+Format(t)+" out of range")
	}
	return nil
}
