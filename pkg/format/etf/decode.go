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
//
// Inside a compressed term, bytes after the term are refused here too, though
// DecodePrefix, like binary_to_term, ignores them.
func Decode(b []byte) (Term, error) {
	t, n, inner, err := decodePrefix(b)
	if err != nil {
		return nil, err
	}
	if inner != nil {
		return nil, inner
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
	t, n, _, err := decodePrefix(b)
	return t, n, err
}

// decodePrefix is DecodePrefix that also reports, as trailing, bytes after
// the term inside a compressed payload.
func decodePrefix(b []byte) (t Term, n int, trailing, err error) {
	if len(b) == 0 {
		return nil, 0, nil, &DecodeError{Err: ErrTruncated, Off: 0, Detail: "empty input"}
	}
	if b[0] != TagVersion {
		return nil, 0, nil, &DecodeError{Err: ErrBadVersion, Off: 0, Detail: "got " + strconv.Itoa(int(b[0]))}
	}
	if len(b) >= 2 && b[1] == TagCompressed {
		return decodeCompressed(b)
	}
	d := decoder{b: b, off: 1}
	t, err = d.term()
	if err != nil {
		return nil, 0, nil, err
	}
	return t, d.off, nil, nil
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

func clone(b []byte) []byte {
	c := make([]byte, len(b))
	copy(c, b)
	return c
}

// bigInt reads a bignum's sign byte and magnitude. Any non-zero sign is
// negative: erts tests the byte for zero, and binary_to_term(<<131,110,1,2,5>>)
// is -5.
func (d *decoder) bigInt(n int) (Term, error) {
	sign, err := d.u8()
	if err != nil {
		return nil, err
	}
	neg := sign != 0
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
		if !neg && u <= math.MaxInt64 {
			return int64(u), nil
		}
		if neg && u <= 1<<63 {
			return -int64(u), nil // -(1<<63) wraps to MinInt64, which is right
		}
	}
	be := make([]byte, n)
	for i, c := range le {
		be[n-1-i] = c
	}
	v := new(big.Int).SetBytes(be)
	if neg {
		v.Neg(v)
	}
	if v.IsInt64() { // leading zero bytes: not canonical, but the same integer
		return v.Int64(), nil
	}
	return v, nil
}

// oldFloat reads FLOAT_EXT, a C "%.20e" string in a 31-byte field padded
// with NULs, as erts's sys_chars_to_double reads it: the text runs to the
// first NUL, [+-]digits[.,]digits[(e|E)[+-]digits] exactly (no spaces, no
// missing digits, a comma for the point), and must be finite; underflow is
// 0.0. erts scans for the NUL past the field's end when the field has none
// (binary_to_term(<<131,99,"1.5000...0" (33 digits)>>) is 1.5), so we do:
// the term still ends after 31 bytes.
func (d *decoder) oldFloat(start int) (Term, error) {
	if err := d.need(oldFloatLen); err != nil {
		return nil, err
	}
	s := d.b[d.off:]
	end := 0
	for end < len(s) && s[end] != 0 {
		end++
	}
	d.off += oldFloatLen
	text := s[:end]
	f, ok := parseOldFloat(text)
	if !ok {
		return nil, d.fail(ErrInvalid, start, "bad old-style float "+strconv.Quote(string(text)))
	}
	return f, nil
}

func parseOldFloat(s []byte) (float64, bool) {
	i := 0
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if !digits() || i == len(s) || (s[i] != '.' && s[i] != ',') {
		return 0, false
	}
	point := i
	i++
	if !digits() {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	text := []byte(string(s))
	text[point] = '.'
	f, err := strconv.ParseFloat(string(text), 64)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	// Underflow is 0.0 without an error here, as strtod, and so erts,
	// return it.
	return f, err == nil
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
