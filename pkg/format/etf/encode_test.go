package etf

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"testing"
)

func TestAppendIntMatchesEncodeAndErlang(t *testing.T) {
	want := map[int64]string{ // from vectors.txt (term_to_binary, OTP 25)
		0:                     "836100",
		255:                   "8361ff",
		256:                   "836200000100",
		-1:                    "8362ffffffff",
		math.MaxInt32:         "83627fffffff",
		math.MaxInt32 + 1:     "836e040000000080",
		math.MinInt32:         "836280000000",
		math.MinInt32 - 1:     "836e040101000080",
		math.MaxInt64:         "836e0800ffffffffffffff7f",
		math.MinInt64:         "836e08010000000000000080",
		1717171717171:         "836e0600330469cf8f01",
		-5:                    "8362fffffffb",
		1 << 32:               "836e050000000000 01",
		-(1 << 40):            "836e0601000000000001",
		math.MaxInt64 >> 8:    "836e0700ffffffffffff7f",
		-(math.MaxInt64 >> 8): "836e0701ffffffffffff7f",
	}
	for v, h := range want {
		exp := mustHex(t, h)
		if got := AppendInt(nil, v); !bytes.Equal(got, exp) {
			t.Errorf("AppendInt(%d) = %x, want %x", v, got, exp)
		}
		if got := mustEncode(t, v); !bytes.Equal(got, exp) {
			t.Errorf("Encode(int64 %d) = %x, want %x", v, got, exp)
		}
		if got := mustEncode(t, big.NewInt(v)); !bytes.Equal(got, exp) {
			t.Errorf("Encode(*big.Int %d) = %x, want %x", v, got, exp)
		}
		back, err := Decode(exp)
		if err != nil || back != Term(v) {
			t.Errorf("Decode(%x) = %v (%T), %v; want int64 %d", exp, back, back, err, v)
		}
	}
	buf := make([]byte, 0, 16)
	if n := testing.AllocsPerRun(100, func() { buf = AppendInt(buf[:0], math.MinInt64) }); n != 0 {
		t.Fatalf("AppendInt allocates %v times", n)
	}
	prefix := []byte("keep")
	if got := AppendInt(prefix, 1); !bytes.Equal(got, []byte("keep\x83\x61\x01")) {
		t.Fatalf("AppendInt did not append: %q", got)
	}
}

func TestEncodeChoosesTags(t *testing.T) {
	cases := []struct {
		name string
		term Term
		want string
	}{
		{"string ext for small ints", List{Elems: ints(1, 2, 255)}, "836b000301 02ff"},
		{"list ext when an int is big", List{Elems: ints(1, 256)}, "836c000000026101620000010 06a"},
		{"list ext for negatives", List{Elems: ints(-1)}, "836c0000000162ffffffff6a"},
		{"list tail folded", List{Elems: ints(1), Tail: List{Elems: ints(2)}}, "836b00020102"},
		{"empty list tail", List{Elems: ints(1), Tail: List{}}, "836b000101"},
		{"zero-element cons is its tail", List{Tail: Atom("a")}, "83770161"},
		{"big small enough for int", bigFromString("-7"), "8362fffffff9"},
		{"bits 8 is a binary", BitBinary{Data: []byte{1}, Bits: 8}, "836d0000000101"},
		{"empty bit binary", BitBinary{}, "836d00000000"},
		{"bits padding cleared", BitBinary{Data: []byte{0xff}, Bits: 1}, "834d000000010180"},
		{"long utf8 atom", Atom(bytes.Repeat([]byte("é"), 200)), "8376019" + "0" + string(bytes.Repeat([]byte("c3a9"), 200))},
		{"negative zero", math.Copysign(0, -1), "83468000000000000000"},
		{"map keeps order", Map{{Atom("b"), int64(1)}, {Atom("a"), int64(2)}}, "8374000000027701626101770161 6102"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mustEncode(t, c.term)
			if want := mustHex(t, c.want); !bytes.Equal(got, want) {
				t.Fatalf("got  %x\nwant %x", got, want)
			}
			back, err := Decode(got)
			if err != nil || !Equal(back, c.term) || !Equal(c.term, back) {
				t.Fatalf("round trip: %s, %v", Format(back), err)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	cases := []struct {
		name string
		term Term
		want error
	}{
		{"go int", 5, ErrUnsupported},
		{"go string", "x", ErrUnsupported},
		{"nil", nil, ErrUnsupported},
		{"nil in tuple", Tuple{nil}, ErrUnsupported},
		{"nil big", (*big.Int)(nil), ErrUnsupported},
		{"nan", math.NaN(), ErrInvalid},
		{"inf", math.Inf(1), ErrInvalid},
		{"atom bad utf8", Atom("\xff"), ErrInvalid},
		{"atom 256 chars", Atom(bytes.Repeat([]byte("a"), 256)), ErrInvalid},
		{"bits 9", BitBinary{Data: []byte{1}, Bits: 9}, ErrInvalid},
		{"bits 0 with data", BitBinary{Data: []byte{1}}, ErrInvalid},
		{"duplicate keys", Map{{Atom("a"), int64(1)}, {Atom("a"), int64(2)}}, ErrInvalid},
		{"duplicate keys by value", Map{{int64(1), int64(1)}, {big.NewInt(1), int64(2)}}, ErrInvalid},
		{"opaque empty", Opaque{Tag: 88}, ErrInvalid},
		{"opaque wrong tag", Opaque{Tag: 103, Raw: mustHex(t, "58770d6e6f6e6f6465406e6f686f73740000002a0000000000000000")}, ErrInvalid},
		{"opaque truncated", Opaque{Tag: 88, Raw: mustHex(t, "58770d6e6f6e6f6465406e6f686f73740000002a")}, ErrInvalid},
		{"opaque with junk", Opaque{Tag: 88, Raw: mustHex(t, "58770d6e6f6e6f6465406e6f686f73740000002a000000000000000000")}, ErrInvalid},
		{"opaque not opaque", Opaque{Tag: 97, Raw: []byte{97, 1}}, ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := []byte("x")
			out, err := AppendEncode(dst, c.term)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if string(out) != "x" {
				t.Fatalf("failed AppendEncode left %q", out)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	cases := []struct {
		a, b Term
		want bool
	}{
		{int64(1), big.NewInt(1), true},
		{bigFromString("18446744073709551616"), bigFromString("18446744073709551616"), true},
		{int64(1), 1.0, false},
		{0.0, math.Copysign(0, -1), false},
		{Atom("a"), Binary("a"), false},
		{Binary{}, Binary(nil), true},
		{Binary{1}, BitBinary{Data: []byte{1}, Bits: 8}, true},
		{BitBinary{Data: []byte{0xe0}, Bits: 3}, BitBinary{Data: []byte{0xff}, Bits: 3}, true},
		{BitBinary{Data: []byte{0xe0}, Bits: 3}, BitBinary{Data: []byte{0xe0}, Bits: 4}, false},
		{List{}, List{Elems: []Term{}}, true},
		{List{Elems: ints(1, 2)}, List{Elems: ints(1), Tail: List{Elems: ints(2)}}, true},
		{List{Elems: ints(1)}, List{Elems: ints(1), Tail: int64(2)}, false},
		{List{Tail: Atom("a")}, Atom("a"), true},
		{Atom("a"), List{Tail: Atom("a")}, true},
		{Tuple{int64(1)}, List{Elems: ints(1)}, false},
		{Map{{Atom("a"), int64(1)}, {Atom("b"), int64(2)}}, Map{{Atom("b"), int64(2)}, {Atom("a"), int64(1)}}, true},
		{Map{{Atom("a"), int64(1)}}, Map{{Atom("a"), int64(2)}}, false},
		{Map{{Atom("a"), int64(1)}}, Map{{Atom("b"), int64(1)}}, false},
		{Opaque{Tag: 88, Raw: []byte{88, 1}}, Opaque{Tag: 88, Raw: []byte{88, 1}}, true},
		{Opaque{Tag: 88, Raw: []byte{88, 1}}, Opaque{Tag: 88, Raw: []byte{88, 2}}, false},
	}
	big1, big2 := Map{}, Map{}
	for i := int64(0); i < 100; i++ {
		big1 = append(big1, MapPair{i, Tuple{i}})
		big2 = append(big2, MapPair{99 - i, Tuple{99 - i}})
	}
	cases = append(cases, struct {
		a, b Term
		want bool
	}{big1, big2, true})
	big3 := append(Map{}, big2...)
	big3[50] = MapPair{big3[50].Key, Tuple{int64(-1)}}
	cases = append(cases, struct {
		a, b Term
		want bool
	}{big1, big3, false})
	for i, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("%d: Equal(%s, %s) = %v", i, Format(c.a), Format(c.b), got)
		}
		if got := Equal(c.b, c.a); got != c.want {
			t.Errorf("%d: Equal(%s, %s) = %v (reversed)", i, Format(c.b), Format(c.a), got)
		}
		if c.want && hashTerm(c.a, false) != hashTerm(c.b, false) {
			t.Errorf("%d: equal terms hash differently: %s", i, Format(c.a))
		}
	}
	// A self-containing Go value must not hang Equal.
	self := Tuple{nil}
	self[0] = self
	if Equal(self, self) {
		t.Log("self-referencing tuple compared equal (depth-capped)")
	}
}

func TestMapGet(t *testing.T) {
	m := Map{{Atom("tenant_id"), Binary("acme")}, {int64(1), Atom("x")}}
	if v, ok := m.Get(Atom("tenant_id")); !ok || !Equal(v, Binary("acme")) {
		t.Fatalf("Get(tenant_id) = %v, %v", v, ok)
	}
	if v, ok := m.Get(big.NewInt(1)); !ok || v != Atom("x") {
		t.Fatalf("Get(big 1) = %v, %v", v, ok)
	}
	if _, ok := m.Get(Atom("nope")); ok {
		t.Fatal("Get found a missing key")
	}
}
