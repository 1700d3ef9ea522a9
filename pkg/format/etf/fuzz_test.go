package etf

import (
	"bytes"
	"runtime"
	"testing"
)

// FuzzDecode: no input panics; whatever decodes re-encodes (every decoded
// term is encodable), decodes back to an Equal term, and from then on the
// bytes are a fixed point. Decoding n bytes allocates at most 64n + 64 KiB,
// except compressed input, whose bound is MaxInflated.
func FuzzDecode(f *testing.F) {
	for _, v := range loadVectors(f) {
		if len(v.Bytes) <= 1<<12 {
			f.Add(v.Bytes)
		}
	}
	f.Add([]byte{131, 108, 0, 0, 0, 1, 97, 1, 108, 0, 0, 0, 1, 97, 2, 107, 0, 1, 3})
	f.Add([]byte{131, 116, 0, 0, 0, 2, 115, 1, 'a', 106, 119, 1, 'b', 106})
	f.Add([]byte{131, 77, 0, 0, 0, 1, 8, 0xff})
	f.Add([]byte{131, 99, '1', '.', '5', 'e', '+', '0', '0', 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		checkSimpleReaders(t, in)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		term, err := Decode(in)
		runtime.ReadMemStats(&after)
		compressed := len(in) > 1 && in[1] == TagCompressed
		if got, limit := after.TotalAlloc-before.TotalAlloc, 64*uint64(len(in))+64<<10; !compressed && got > limit {
			t.Fatalf("decoding %d bytes allocated %d bytes (limit %d)", len(in), got, limit)
		}
		// Decode is DecodePrefix refusing bytes after the term, outside it or
		// inside a compressed payload (which DecodePrefix, as binary_to_term,
		// ignores).
		_, n, perr := DecodePrefix(in)
		_, _, inner, _ := decodePrefix(in)
		if (err == nil) != (perr == nil && n == len(in) && inner == nil) {
			t.Fatalf("Decode and DecodePrefix disagree: %v / %d, %v, inside %v", err, n, perr, inner)
		}
		if err != nil {
			return
		}
		enc, err := Encode(term)
		if err != nil {
			t.Fatalf("decoded %s but cannot encode it: %v", Format(term), err)
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(x)) = %v; enc %x", err, enc)
		}
		if !Equal(term, again) || !Equal(again, term) {
			t.Fatalf("round trip changed the term:\n%s\n%s", Format(term), Format(again))
		}
		enc2, err := Encode(again)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("Encode is not a fixed point: %x -> %x (%v)", enc, enc2, err)
		}
		if !compressed && bytes.Equal(enc, in) {
			return // canonical input
		}
	})
}

// FuzzAppendInt: every int64 round-trips and matches the general encoder.
func FuzzAppendInt(f *testing.F) {
	for _, v := range []int64{0, 255, 256, -1, 1 << 31, -1 << 31, -1<<31 - 1, 1<<63 - 1, -1 << 63} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		b := AppendInt(nil, v)
		e, err := Encode(v)
		if err != nil || !bytes.Equal(b, e) {
			t.Fatalf("AppendInt %x, Encode %x, %v", b, e, err)
		}
		got, err := Decode(b)
		if err != nil || got != Term(v) {
			t.Fatalf("Decode(%x) = %v (%T), %v", b, got, got, err)
		}
	})
}

// checkSimpleReaders: whatever ReadBinary, ReadAtom, ReadInt64 and
// ReadBinaryPairs answer for the term after in's version byte is what the
// decoder makes of the whole of it.
func checkSimpleReaders(t *testing.T, in []byte) {
	if len(in) < 2 || in[0] != TagVersion {
		return
	}
	v := in[1:]
	var got []Term
	if b, ok := ReadBinary(v); ok {
		got = append(got, Binary(b))
	}
	if a, ok := ReadAtom(v); ok {
		got = append(got, Atom(a))
	}
	if n, ok := ReadInt64(v); ok {
		got = append(got, n)
	}
	var pairs []Term
	if ReadBinaryPairs(v, func(a, b []byte) { pairs = append(pairs, Tuple{Binary(a), Binary(b)}) }) {
		got = append(got, List{Elems: pairs})
	}
	if len(got) == 0 {
		return
	}
	want, n, err := DecodePrefix(in)
	if err != nil || n != len(in) {
		t.Fatalf("%x: a simple reader answered, the decoder read %d of %d bytes: %v", in, n, len(in), err)
	}
	for _, g := range got {
		if !Equal(g, want) {
			t.Fatalf("%x: a simple reader read %s, the decoder %s", in, Format(g), Format(want))
		}
	}
}
