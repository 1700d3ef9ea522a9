package etf

import "strconv"

// opaque parses a pid, reference, port or fun in full, so that its length is
// known and its embedded terms are checked, and keeps its raw bytes: the node
// tolerates them inside envelopes, but nothing in the store gives them a
// meaning we could act on.
func (d *decoder) opaque(depth int) (Term, error) {
	start := d.off
	if err := d.opaqueBody(depth); err != nil {
		return nil, err
	}
	return Opaque{Tag: d.b[start], Raw: clone(d.b[start:d.off])}, nil
}

func (d *decoder) opaqueBody(depth int) error {
	start := d.off
	tag, err := d.u8()
	if err != nil {
		return err
	}
	skip := func(n int) error {
		_, err := d.bytes(n)
		return err
	}
	switch tag {
	case TagNewPid: // Node, ID:32, Serial:32, Creation:32
		return d.then(d.skipAtom, func() error { return skip(12) })
	case TagPid: // Node, ID:32, Serial:32, Creation:8
		return d.then(d.skipAtom, func() error { return skip(9) })
	case TagNewerReference, TagNewReference: // Len:16, Node, Creation:32|8, ID:32*Len
		n, err := d.u16()
		if err != nil {
			return err
		}
		creation := 4
		if tag == TagNewReference {
			creation = 1
		}
		return d.then(d.skipAtom, func() error { return skip(creation + 4*int(n)) })
	case TagReference: // Node, ID:32, Creation:8
		return d.then(d.skipAtom, func() error { return skip(5) })
	case TagV4Port: // Node, ID:64, Creation:32
		return d.then(d.skipAtom, func() error { return skip(12) })
	case TagPort: // Node, ID:32, Creation:8
		return d.then(d.skipAtom, func() error { return skip(5) })
	case TagNewPort: // Node, ID:32, Creation:32
		return d.then(d.skipAtom, func() error { return skip(8) })
	case TagExport: // Module, Function, Arity
		return d.then(d.skipAtom, d.skipAtom, d.skipSmallInt)
	case TagNewFun:
		return d.newFun(start, depth)
	case TagFun: // NumFree:32, Pid, Module, Index, Uniq, Free vars
		nfree, err := d.u32()
		if err != nil {
			return err
		}
		if err := d.then(d.skipPid, d.skipAtom, d.skipSmallInt, d.skipSmallInt); err != nil {
			return err
		}
		return d.freeVars(uint64(nfree), start, depth)
	}
	return d.fail(ErrBadTag, start, "tag "+strconv.Itoa(int(tag)))
}

// newFun: Size:32, Arity:8, Uniq:16 bytes, Index:32, NumFree:32, Module,
// OldIndex, OldUniq, Pid, Free vars. Size counts itself and everything after.
func (d *decoder) newFun(start, depth int) error {
	size, err := d.u32()
	if err != nil {
		return err
	}
	if uint64(size) > uint64(d.remaining()+4) || size < newFunFixedPrefixSz {
		return d.fail(ErrTruncated, start+1, "fun size "+strconv.FormatUint(uint64(size), 10))
	}
	fixed, err := d.bytes(newFunFixedPrefixSz - 4)
	if err != nil {
		return err
	}
	nfree := uint64(fixed[21])<<24 | uint64(fixed[22])<<16 | uint64(fixed[23])<<8 | uint64(fixed[24])
	if err := d.then(d.skipAtom, d.skipSmallInt, d.skipSmallInt, d.skipPid); err != nil {
		return err
	}
	if err := d.freeVars(nfree, start, depth); err != nil {
		return err
	}
	if d.off-start-1 != int(size) {
		return d.fail(ErrInvalid, start, "fun size field says "+strconv.FormatUint(uint64(size), 10)+", body is "+strconv.Itoa(d.off-start-1))
	}
	return nil
}

func (d *decoder) freeVars(n uint64, start, depth int) error {
	if n == 0 {
		return nil
	}
	if err := d.enter(depth, start); err != nil {
		return err
	}
	if err := d.needCount(n, 1, "fun environment"); err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		if _, err := d.term(depth + 1); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) then(steps ...func() error) error {
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) skipAtom() error {
	_, err := d.atom()
	return err
}

// skipSmallInt reads the small integers funs carry (index, uniq, arity),
// which term_to_binary writes as 97 or 98.
func (d *decoder) skipSmallInt() error {
	start := d.off
	tag, err := d.u8()
	if err != nil {
		return err
	}
	switch tag {
	case TagSmallInteger:
		_, err = d.bytes(1)
	case TagInteger:
		_, err = d.bytes(4)
	default:
		err = d.fail(ErrBadTag, start, "want a small integer, got tag "+strconv.Itoa(int(tag)))
	}
	return err
}

func (d *decoder) skipPid() error {
	start := d.off
	if d.remaining() > 0 && (d.b[d.off] == TagNewPid || d.b[d.off] == TagPid) {
		return d.opaqueBody(MaxDepth) // a pid has no nested terms
	}
	if err := d.need(1); err != nil {
		return err
	}
	return d.fail(ErrBadTag, start, "want a pid, got tag "+strconv.Itoa(int(d.b[d.off])))
}
