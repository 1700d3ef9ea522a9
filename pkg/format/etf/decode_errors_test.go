package etf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestTruncatedAtEveryPrefix(t *testing.T) {
	for _, v := range loadVectors(t) {
		if len(v.Bytes) > 4096 {
			continue // the big ones add time, not coverage
		}
		for n := 0; n < len(v.Bytes); n++ {
			_, err := Decode(v.Bytes[:n])
			if err == nil {
				t.Fatalf("%s: prefix of %d/%d bytes decoded", v.Name, n, len(v.Bytes))
			}
			ok := errors.Is(err, ErrTruncated)
			if v.Form == "compressed" {
				ok = ok || errors.Is(err, ErrCompressed)
			}
			if !ok {
				t.Fatalf("%s: prefix of %d bytes: %v, want ErrTruncated", v.Name, n, err)
			}
		}
	}
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// allocBytes measures the bytes f allocates, averaged over runs.
func allocBytes(runs int, f func()) uint64 {
	f() // warm up lazily initialised state
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	for i := 0; i < runs; i++ {
		f()
	}
	runtime.ReadMemStats(&b)
	return (b.TotalAlloc - a.TotalAlloc) / uint64(runs)
}

func TestHugeLengthFailsWithoutAllocating(t *testing.T) {
	node := []byte{119, 1, 'n'}
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"binary", cat([]byte{131, 109}, u32(0xFFFFFFFF), []byte{1, 2, 3}), ErrTruncated},
		{"bit binary", cat([]byte{131, 77}, u32(0xFFFFFFFF), []byte{3, 1, 2, 3}), ErrTruncated},
		{"large tuple", cat([]byte{131, 105}, u32(0xFFFFFFFF), []byte{97, 1, 97}), ErrTruncated},
		{"small tuple", []byte{131, 104, 255, 97, 1}, ErrTruncated},
		{"list", cat([]byte{131, 108}, u32(0xFFFFFFFF), []byte{97, 1, 106}), ErrTruncated},
		{"map", cat([]byte{131, 116}, u32(0xFFFFFFFF), []byte{97, 1, 97}), ErrTruncated},
		{"large big", cat([]byte{131, 111}, u32(0xFFFFFFFF), []byte{0, 1, 2}), ErrInvalid}, // over erts's largest bignum
		{"large big, erts's largest", cat([]byte{131, 111}, u32(maxBigBytes), []byte{0, 1, 2}), ErrTruncated},
		{"string", []byte{131, 107, 0xFF, 0xFF, 1, 2, 3}, ErrTruncated},
		{"atom utf8", []byte{131, 118, 0xFF, 0xFF, 'a', 'b', 'c'}, ErrTruncated},
		{"newer reference", cat([]byte{131, 90, 0xFF, 0xFF}, node, u32(0), []byte{1, 2, 3}), ErrInvalid}, // erts keeps at most 5 words
		{"newer reference, 5 words", cat([]byte{131, 90, 0, 5}, node, u32(0), []byte{1, 2, 3}), ErrTruncated},
		{"new fun", cat([]byte{131, 112}, u32(0xFFFFFFFF), []byte{1, 2, 3}), ErrTruncated},
		{"old fun free vars", cat([]byte{131, 117}, u32(0xFFFFFFFF), []byte{88}, node, u32(1), u32(0), u32(0), []byte{119, 1, 'm', 97, 0, 97, 0, 97}), ErrBadTag}, // OTP 23 dropped FUN_EXT
		{"new fun free vars", cat([]byte{131, 112}, u32(0), make([]byte, 21), u32(0xFFFFFFFF), []byte{119, 1, 'm', 97, 0, 97, 0, 97}), ErrTruncated},
		{"compressed bomb", cat([]byte{131, 80}, u32(MaxInflated+1), []byte{0x78, 0x9c, 3, 0}), ErrTooLarge},
		{"compressed max size, no data", cat([]byte{131, 80}, u32(MaxInflated), []byte{0x78, 0x9c, 3, 0, 0, 0, 0, 1}), ErrCompressed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.in)
			if !errors.Is(err, c.want) {
				t.Fatalf("Decode = %v, want %v", err, c.want)
			}
			limit := uint64(1024)
			if c.in[1] == TagCompressed {
				limit = 256 << 10 // zlib's window and our first 64 KiB chunk
			}
			if got := allocBytes(20, func() { _, _ = Decode(c.in) }); got > limit {
				t.Fatalf("failing decode allocated %d bytes per run, limit %d", got, limit)
			}
		})
	}
}

func nested(open []byte, leaf []byte, n int) []byte {
	b := []byte{131}
	for i := 0; i < n; i++ {
		b = append(b, open...)
	}
	b = append(b, leaf...)
	return b
}

// binary_to_term has no nesting limit, so neither has the decoder (the
// Erlang cross-check decodes the same kind of input in erl): deep terms
// decode, re-encode to their bytes, compare Equal, and cost memory in
// proportion to their input, with no Go recursion to overflow.
func TestNestingAsDeepAsTheInput(t *testing.T) {
	tuple := []byte{104, 1}
	list := cat([]byte{108}, u32(2), []byte{106}) // [X, []]: a real nesting, not a tail
	mp := cat([]byte{116}, u32(1), []byte{97, 1})
	key := cat([]byte{116}, u32(1)) // #{X => 1}: nesting through keys
	cases := []struct {
		name string
		in   []byte
		tail []byte // after the leaf, closing what open needs closed
	}{
		{"512 tuples", nested(tuple, []byte{106}, 512), nil},
		{"513 tuples", nested(tuple, []byte{106}, 513), nil},
		{"1000 lists", nested(list, []byte{97, 1}, 1000), bytes.Repeat([]byte{106}, 1000)},
		{"1000 maps", nested(mp, []byte{106}, 1000), nil},
		{"3000 map keys", nested(key, []byte{106}, 3000), bytes.Repeat([]byte{97, 1}, 3000)},
		{"100000 tuples", nested(tuple, []byte{106}, 100000), nil},
		{"1000000 tuples", nested(tuple, []byte{106}, 1000000), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := append(bytes.Clone(c.in), c.tail...)
			got, err := Decode(in)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := Encode(got)
			if err != nil || !bytes.Equal(enc, in) {
				t.Fatalf("re-encode: %v (equal bytes %v)", err, bytes.Equal(enc, in))
			}
			again, _ := Decode(enc)
			if !Equal(got, again) || hashTerm(got, false) != hashTerm(again, false) {
				t.Fatal("a deep term is not Equal to its copy")
			}
			if limit := 64*uint64(len(in)) + 64<<10; len(in) < 1<<20 {
				if n := allocBytes(2, func() { _, _ = Decode(in) }); n > limit {
					t.Fatalf("decoding %d bytes allocated %d (limit %d)", len(in), n, limit)
				}
			}
		})
	}
	// Two deep keys that differ only at the bottom are two keys; equal ones
	// are a duplicate, however deep (erl refuses it too).
	deepKey := func(leaf byte) []byte { return append(nested(tuple, []byte{97, leaf}, 5000)[1:], 97, 0) }
	two := cat([]byte{131, 116}, u32(2), deepKey(1), deepKey(2))
	if _, err := Decode(two); err != nil {
		t.Fatalf("two deep keys: %v", err)
	}
	dup := cat([]byte{131, 116}, u32(2), deepKey(1), deepKey(1))
	if _, err := Decode(dup); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a duplicate deep key: %v", err)
	}
}

// A long list written as a chain of one-element conses ([1|[2|[3|...]]]) is
// a flat list in Erlang; it must not trip the nesting limit.
func TestConsChainIsNotNesting(t *testing.T) {
	b := []byte{131}
	const n = 5000
	for i := 0; i < n; i++ {
		b = append(b, 108, 0, 0, 0, 1, 97, byte(i))
	}
	b = append(b, 106)
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := got.(List)
	if !ok || len(l.Elems) != n || l.Tail != nil {
		t.Fatalf("got %T with %d elements", got, len(l.Elems))
	}
}

func TestDecodeErrors(t *testing.T) {
	compressed := func() []byte {
		for _, v := range loadVectors(t) {
			if v.Name == "compressed_bin" {
				return v.Bytes
			}
		}
		t.Fatal("no compressed_bin vector")
		return nil
	}()
	withSize := func(delta int) []byte {
		b := bytes.Clone(compressed)
		binary.BigEndian.PutUint32(b[2:], uint32(int(binary.BigEndian.Uint32(b[2:]))+delta))
		return b
	}
	badAdler := bytes.Clone(compressed)
	badAdler[len(badAdler)-1] ^= 0xff

	cases := []struct {
		name    string
		in      []byte
		want    error
		wantOff string // substring of the message
	}{
		{"empty", nil, ErrTruncated, "offset 0"},
		{"bad version", []byte{130, 97, 1}, ErrBadVersion, "offset 0"},
		{"tag 0", []byte{131, 0}, ErrBadTag, "offset 1"},
		{"atom cache ref", []byte{131, 82, 0}, ErrBadTag, "offset 1"},
		{"tag 255", []byte{131, 255}, ErrBadTag, "offset 1"},
		{"bad tag in tuple", []byte{131, 104, 2, 97, 1, 200}, ErrBadTag, "offset 5"},
		{"nested compressed", cat([]byte{131, 104, 1, 80}, u32(1), []byte{0x78}), ErrBadTag, "offset 3"},
		{"trailing", []byte{131, 97, 1, 0}, ErrTrailing, "offset 3"},
		{"latin1 atom too long", cat([]byte{131, 100, 1, 0}, bytes.Repeat([]byte{'a'}, 256)), ErrInvalid, "offset 1"},
		{"utf8 atom too long", cat([]byte{131, 118, 1, 0}, bytes.Repeat([]byte{'a'}, 256)), ErrInvalid, ""},
		{"atom bad utf8", []byte{131, 119, 2, 0xc3, 0x28}, ErrInvalid, ""},
		{"float nan", cat([]byte{131, 70}, []byte{0x7f, 0xf8, 0, 0, 0, 0, 0, 1}), ErrInvalid, ""},
		{"float -inf", cat([]byte{131, 70}, []byte{0xff, 0xf0, 0, 0, 0, 0, 0, 0}), ErrInvalid, ""},
		{"old float garbage", cat([]byte{131, 99}, []byte("1.5xyz"), make([]byte, 25)), ErrInvalid, ""},
		{"big sign 2, truncated", []byte{131, 110, 2, 2, 5}, ErrTruncated, "offset 4"},
		{"bits 9", []byte{131, 77, 0, 0, 0, 1, 9, 0}, ErrInvalid, ""},
		{"bits 0 with data", []byte{131, 77, 0, 0, 0, 1, 0, 0}, ErrInvalid, ""},
		{"duplicate key", []byte{131, 116, 0, 0, 0, 2, 97, 1, 106, 97, 1, 106}, ErrInvalid, "duplicate"},
		{"duplicate key latin1 vs utf8", []byte{131, 116, 0, 0, 0, 2, 115, 1, 'a', 106, 119, 1, 'a', 106}, ErrInvalid, "duplicate"},
		{"pid node not atom", cat([]byte{131, 88, 97, 1}, make([]byte, 12)), ErrBadTag, "offset 2"},
		{"export arity not int", []byte{131, 113, 119, 1, 'm', 119, 1, 'f', 106}, ErrBadTag, ""},
		{"compressed size too small", withSize(-1), ErrCompressed, ""},
		{"compressed size too big", withSize(+1), ErrCompressed, ""},
		{"compressed bad checksum", badAdler, ErrCompressed, ""},
		{"compressed not zlib", cat([]byte{131, 80}, u32(2), []byte{1, 2, 3, 4}), ErrCompressed, ""},
		{"compressed bomb", cat([]byte{131, 80}, u32(1<<31), []byte{0x78, 0x9c}), ErrTooLarge, "offset 2"},
		{"compressed payload trailing", compressedOf(t, []byte{97, 1, 97, 2}), ErrTrailing, "inflated offset 2"},
		{"compressed payload bad", compressedOf(t, []byte{104, 1, 200}), ErrBadTag, "inflated offset 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Decode(c.in)
			if !errors.Is(err, c.want) {
				t.Fatalf("Decode = %v, %v; want %v", got, err, c.want)
			}
			if !strings.Contains(err.Error(), c.wantOff) {
				t.Fatalf("message %q does not say %q", err, c.wantOff)
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%T is not a *DecodeError", err)
			}
		})
	}
}

func TestLatin1AtomsBecomeUTF8(t *testing.T) {
	got, err := Decode([]byte{131, 115, 2, 'a', 0xe9}) // SMALL_ATOM_EXT 'aé' in latin1
	if err != nil {
		t.Fatal(err)
	}
	if got != Atom("aé") {
		t.Fatalf("got %q", got)
	}
}

func TestDecodeDoesNotAliasInput(t *testing.T) {
	in := []byte{131, 104, 3, 109, 0, 0, 0, 2, 'h', 'i', 119, 1, 'a', 77, 0, 0, 0, 1, 3, 0xe0}
	got, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	before := Format(got)
	for i := range in {
		in[i] = 0
	}
	if after := Format(got); after != before {
		t.Fatalf("decoded term changed with its input: %s -> %s", before, after)
	}
}
