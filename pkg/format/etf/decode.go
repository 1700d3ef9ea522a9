package etf

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// Decode decodes a whole term_to_binary output. Bytes after the term are an
// error: a stored value is exactly one term, and slack means corruption.
func Decode(b []byte) (Term, error) {
	t, n, err := DecodePrefix(b)
	if err != nil {
		return nil, err
	}
	if n != len(b) {
		return nil, &DecodeError{Err: ErrTrailing, Off: n, Detail: strconv.Itoa(len(b)-n) + " bytes left"}
	}
	return t, nil
}

// DecodePrefix decodes the term at the start of b and reports how many bytes
// it used, for callers that read terms from a stream.
//
// The result never aliases b: binaries, atoms and opaque values are copied,
// because callers hand us iterator buffers that RocksDB reuses.
func DecodePrefix(b []byte) (Term, int, error) {
	if len(b) == 0 {
		return nil, 0, &DecodeError{Err: ErrTruncated, Off: 0, Detail: "empty input"}
	}
	if b[0] != TagVersion {
		return nil, 0, &DecodeError{Err: ErrBadVersion, Off: 0, Detail: "got " + strconv.Itoa(int(b[0]))}
	}
	if len(b) >= 2 && b[1] == TagCompressed {
		return decodeCompressed(b)
	}
	d := decoder{b: b, off: 1}
	t, err := d.term(0)
	if err != nil {
		return nil, 0, err
	}
	return t, d.off, nil
}

type decoder struct {
	b            []byte
	off          int
	inCompressed bool
}

func (d *decoder) fail(err error, off int, detail string) error {
	return &DecodeError{Err: err, Off: off, InCompressed: d.inCompressed, Detail: detail}
}

func (d *decoder) remaining() int { return len(d.b) - d.off }

// need checks n more bytes are present before anything is read or allocated,
// so a forged length fails here instead of in make().
func (d *decoder) need(n int) error {
	if n < 0 || n > d.remaining() {
		return d.fail(ErrTruncated, d.off, "need "+strconv.Itoa(n)+" bytes, have "+strconv.Itoa(d.remaining()))
	}
	return nil
}

// needCount checks that count elements, each at least min bytes long, could
// fit in what is left; counts come from 32-bit fields, so this is what stops
// a 5-byte input from asking for a 4-billion-slot slice.
func (d *decoder) needCount(count uint64, min uint64, what string) error {
	if count*min > uint64(d.remaining()) {
		return d.fail(ErrTruncated, d.off, what+" of "+strconv.FormatUint(count, 10)+" elements cannot fit in "+strconv.Itoa(d.remaining())+" bytes")
	}
	return nil
}

func (d *decoder) u8() (byte, error) {
	if err := d.need(1); err != nil {
		return 0, err
	}
	v := d.b[d.off]
	d.off++
	return v, nil
}

func (d *decoder) u16() (uint16, error) {
	if err := d.need(2); err != nil {
		return 0, err
	}
	v := binary.BigEndian.Uint16(d.b[d.off:])
	d.off += 2
	return v, nil
}

func (d *decoder) u32() (uint32, error) {
	if err := d.need(4); err != nil {
		return 0, err
	}
	v := binary.BigEndian.Uint32(d.b[d.off:])
	d.off += 4
	return v, nil
}

func (d *decoder) bytes(n int) ([]byte, error) {
	if err := d.need(n); err != nil {
		return nil, err
	}
	v := d.b[d.off : d.off+n]
	d.off += n
	return v, nil
}

// emptyList is shared so that every [] in the input does not cost a boxed
// List allocation.
var emptyList Term = List{}

func (d *decoder) term(depth int) (Term, error) {
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
	case TagSmallTuple:
		n, err := d.u8()
		if err != nil {
			return nil, err
		}
		return d.tuple(uint64(n), start, depth)
	case TagLargeTuple:
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		return d.tuple(uint64(n), start, depth)
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
	case TagList:
		d.off = start
		return d.list(depth)
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
	case TagMap:
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		return d.mapTerm(uint64(n), start, depth)
	case TagNewPid, TagPid, TagNewerReference, TagNewReference, TagReference,
		TagV4Port, TagPort, TagNewPort, TagNewFun, TagExport, TagFun:
		d.off = start
		return d.opaque(depth)
	case TagCompressed:
		return nil, d.fail(ErrBadTag, start, "compressed term (80) is only allowed at the top level")
	}
	return nil, d.fail(ErrBadTag, start, "tag "+strconv.Itoa(int(tag)))
}

func clone(b []byte) []byte {
	c := make([]byte, len(b))
	copy(c, b)
	return c
}

func (d *decoder) bigInt(n int) (Term, error) {
	sign, err := d.u8()
	if err != nil {
		return nil, err
	}
	if sign > 1 {
		return nil, d.fail(ErrInvalid, d.off-1, "bignum sign byte "+strconv.Itoa(int(sign)))
	}
	le, err := d.bytes(n)
	if err != nil {
		return nil, err
	}
	// Most "bignums" in practice are 64-bit values (ms timestamps, ids);
	// take the fast path when the magnitude fits.
	if n <= 8 {
		var u uint64
		for i := n - 1; i >= 0; i-- {
			u = u<<8 | uint64(le[i])
		}
		if sign == 0 && u <= math.MaxInt64 {
			return int64(u), nil
		}
		if sign == 1 && u <= 1<<63 {
			return -int64(u), nil // -(1<<63) wraps to MinInt64, which is right
		}
	}
	be := make([]byte, n)
	for i, c := range le {
		be[n-1-i] = c
	}
	v := new(big.Int).SetBytes(be)
	if sign == 1 {
		v.Neg(v)
	}
	if v.IsInt64() { // leading zero bytes: not canonical, but the same integer
		return v.Int64(), nil
	}
	return v, nil
}

func (d *decoder) oldFloat(start int) (Term, error) {
	s, err := d.bytes(oldFloatLen)
	if err != nil {
		return nil, err
	}
	// The old format is a C "%.20e" string padded with NULs.
	end := 0
	for end < len(s) && s[end] != 0 {
		end++
	}
	str := string(s[:end])
	for len(str) > 0 && str[0] == ' ' {
		str = str[1:]
	}
	f, perr := strconv.ParseFloat(str, 64)
	if perr != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, d.fail(ErrInvalid, start, "bad old-style float "+strconv.Quote(str))
	}
	return f, nil
}

// atom reads one atom term. Latin-1 atoms (100, 115) are converted to UTF-8 so
// that an atom compares equal whichever node version wrote it.
func (d *decoder) atom() (Atom, error) {
	start := d.off
	tag, err := d.u8()
	if err != nil {
		return "", err
	}
	var n int
	switch tag {
	case TagAtom, TagAtomUTF8:
		v, err := d.u16()
		if err != nil {
			return "", err
		}
		n = int(v)
	case TagSmallAtom, TagSmallAtomUTF8:
		v, err := d.u8()
		if err != nil {
			return "", err
		}
		n = int(v)
	default:
		return "", d.fail(ErrBadTag, start, "want an atom, got tag "+strconv.Itoa(int(tag)))
	}
	s, err := d.bytes(n)
	if err != nil {
		return "", err
	}
	if tag == TagAtom || tag == TagSmallAtom {
		if n > maxAtomChars {
			return "", d.fail(ErrInvalid, start, "atom longer than 255 characters")
		}
		return latin1Atom(s), nil
	}
	if !utf8.Valid(s) {
		return "", d.fail(ErrInvalid, start, "atom is not valid UTF-8")
	}
	if n > maxAtomChars && utf8.RuneCount(s) > maxAtomChars {
		return "", d.fail(ErrInvalid, start, "atom longer than 255 characters")
	}
	return Atom(s), nil
}

func latin1Atom(s []byte) Atom {
	ascii := true
	for _, c := range s {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return Atom(s)
	}
	u := make([]byte, 0, 2*len(s))
	for _, c := range s {
		u = utf8.AppendRune(u, rune(c))
	}
	return Atom(u)
}

func (d *decoder) enter(depth, start int) error {
	if depth >= MaxDepth {
		return d.fail(ErrTooDeep, start, "more than "+strconv.Itoa(MaxDepth)+" nested containers")
	}
	return nil
}

func (d *decoder) tuple(n uint64, start, depth int) (Term, error) {
	if err := d.enter(depth, start); err != nil {
		return nil, err
	}
	if err := d.needCount(n, 1, "tuple"); err != nil {
		return nil, err
	}
	t := make(Tuple, n)
	for i := range t {
		v, err := d.term(depth + 1)
		if err != nil {
			return nil, err
		}
		t[i] = v
	}
	return t, nil
}

// list reads a LIST_EXT. A tail that is itself a list (106, 107, 108) is
// folded into this one, iteratively: [1|[2|[3]]] is the same term as [1,2,3]
// in Erlang, and a chain of one-element conses must not count as nesting.
func (d *decoder) list(depth int) (Term, error) {
	start := d.off
	if err := d.enter(depth, start); err != nil {
		return nil, err
	}
	var elems []Term
	for {
		d.off++ // the 108 tag, checked by the caller or below
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		if err := d.needCount(uint64(n)+1, 1, "list"); err != nil {
			return nil, err
		}
		if elems == nil {
			elems = make([]Term, 0, n)
		}
		for i := uint32(0); i < n; i++ {
			v, err := d.term(depth + 1)
			if err != nil {
				return nil, err
			}
			elems = append(elems, v)
		}
		if err := d.need(1); err != nil {
			return nil, err
		}
		switch d.b[d.off] {
		case TagList:
			continue
		case TagNil:
			d.off++
			return listOf(elems), nil
		case TagString:
			s, err := d.term(depth + 1)
			if err != nil {
				return nil, err
			}
			elems = append(elems, s.(List).Elems...)
			return listOf(elems), nil
		}
		tail, err := d.term(depth + 1)
		if err != nil {
			return nil, err
		}
		if len(elems) == 0 {
			// [|T] is just T; erts decodes a zero-length LIST_EXT that way.
			return tail, nil
		}
		return List{Elems: elems, Tail: tail}, nil
	}
}

func listOf(elems []Term) Term {
	if len(elems) == 0 {
		return emptyList
	}
	return List{Elems: elems}
}

func (d *decoder) bitBinary(start int) (Term, error) {
	n, err := d.u32()
	if err != nil {
		return nil, err
	}
	bits, err := d.u8()
	if err != nil {
		return nil, err
	}
	s, err := d.bytes(int(n))
	if err != nil {
		return nil, err
	}
	if (n == 0) != (bits == 0) || bits > 8 {
		return nil, d.fail(ErrInvalid, start, "bit binary of "+strconv.Itoa(int(n))+" bytes with "+strconv.Itoa(int(bits))+" bits in the last")
	}
	data := clone(s)
	if bits == 8 || n == 0 {
		return Binary(data), nil // whole bytes: a plain binary in Erlang
	}
	data[n-1] &= byte(0xff << (8 - bits))
	return BitBinary{Data: data, Bits: bits}, nil
}

func (d *decoder) mapTerm(n uint64, start, depth int) (Term, error) {
	if err := d.enter(depth, start); err != nil {
		return nil, err
	}
	if err := d.needCount(n, 2, "map"); err != nil {
		return nil, err
	}
	m := make(Map, n)
	for i := range m {
		k, err := d.term(depth + 1)
		if err != nil {
			return nil, err
		}
		v, err := d.term(depth + 1)
		if err != nil {
			return nil, err
		}
		m[i] = MapPair{Key: k, Value: v}
	}
	if dupAt := duplicateKey(m); dupAt >= 0 {
		// binary_to_term refuses these; Get and Equal would be ambiguous.
		return nil, d.fail(ErrInvalid, start, "duplicate map key "+Format(m[dupAt].Key))
	}
	return m, nil
}

// knownAtoms are the atoms of the envelope and delivery rows, boxed once:
// the keys of every stored map would otherwise cost two allocations each.
var knownAtoms = func() map[string]Term {
	m := map[string]Term{}
	for _, a := range []Atom{AtomNil, AtomTrue, AtomFalse, "__struct__", "Elixir.Ankusa.Envelope",
		"id", "source_id", "tenant_id", "idempotency_key", "received_at", "headers", "body",
		"sink", "status", "attempts", "size", "last_error", "due", "inflight", "dead", "int_add"} {
		m[string(a)] = a
	}
	return m
}()

// knownAtom consumes an ASCII atom found in knownAtoms (ASCII reads the same
// in latin1 and UTF-8); otherwise it leaves the offset alone.
func (d *decoder) knownAtom() (Term, bool) {
	b := d.b[d.off:]
	var hdr, n int
	switch {
	case len(b) >= 2 && (b[0] == TagSmallAtom || b[0] == TagSmallAtomUTF8):
		hdr, n = 2, int(b[1])
	case len(b) >= 3 && (b[0] == TagAtom || b[0] == TagAtomUTF8):
		hdr, n = 3, int(b[1])<<8|int(b[2])
	default:
		return nil, false
	}
	if len(b)-hdr < n {
		return nil, false
	}
	t, ok := knownAtoms[string(b[hdr:hdr+n])]
	if ok {
		d.off += hdr + n
	}
	return t, ok
}
