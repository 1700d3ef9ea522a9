package etf

import (
	"bytes"
	"encoding/hex"
	"flag"
	"math"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/etf/vectors.txt from the local Erlang runtime")

// expectedVectors is what each vector of vectors.txt must decode to, written
// independently of the Erlang expression so that a decoder bug cannot agree
// with itself.
func expectedVectors() map[string]Term {
	two := big.NewInt(2)
	pow := func(n int64) *big.Int { return new(big.Int).Exp(two, big.NewInt(n), nil) }
	b300 := new(big.Int).Add(pow(300*8-1), big.NewInt(12345))
	seq := func(lo, hi int64) []Term {
		var out []Term
		for i := lo; i <= hi; i++ {
			out = append(out, i)
		}
		return out
	}
	map40 := Map{}
	map40Atoms := Map{}
	for k := int64(1); k <= 40; k++ {
		map40 = append(map40, MapPair{k, 2 * k})
		map40Atoms = append(map40Atoms, MapPair{Atom("k" + itoa(k)), k})
	}
	pid := Opaque{Tag: 88}   // Raw is compared separately: it is the vector itself
	ref := Opaque{Tag: 90}   //
	funE := Opaque{Tag: 113} //
	funC := Opaque{Tag: 112} //
	env := func(id, src string, tenant, idem Term, at int64, headers Term, body Term) Map {
		return Map{
			{Atom("__struct__"), Atom("Elixir.Ankusa.Envelope")},
			{Atom("id"), Binary(id)},
			{Atom("source_id"), Binary(src)},
			{Atom("tenant_id"), tenant},
			{Atom("idempotency_key"), idem},
			{Atom("received_at"), at},
			{Atom("headers"), headers},
			{Atom("body"), body},
		}
	}
	return map[string]Term{
		"int_0":             int64(0),
		"int_255":           int64(255),
		"int_256":           int64(256),
		"int_m1":            int64(-1),
		"int_max32":         int64(math.MaxInt32),
		"int_max32_plus1":   int64(math.MaxInt32 + 1),
		"int_min32":         int64(math.MinInt32),
		"int_min32_minus1":  int64(math.MinInt32 - 1),
		"int_max64":         int64(math.MaxInt64),
		"int_max64_plus1":   bigFromString("9223372036854775808"),
		"int_min64":         int64(math.MinInt64),
		"int_min64_minus1":  bigFromString("-9223372036854775809"),
		"int_2_64":          bigFromString("18446744073709551616"),
		"int_2_200":         pow(200),
		"int_m2_200":        new(big.Int).Neg(pow(200)),
		"int_300_bytes":     b300,
		"int_ms_timestamp":  int64(1717171717171),
		"atom_a":            Atom("a"),
		"atom_nil":          AtomNil,
		"atom_true":         AtomTrue,
		"atom_empty":        Atom(""),
		"atom_latin1":       Atom("café"),
		"atom_unicode":      Atom("日本"),
		"atom_255":          Atom(strings.Repeat("x", 255)),
		"atom_unicode_long": Atom(strings.Repeat("日", 100)),
		"atom_struct":       Atom("Elixir.Ankusa.Envelope"),
		"float_zero":        0.0,
		"float_neg_zero":    math.Copysign(0, -1),
		"float_1_5":         1.5,
		"float_pi":          math.Pi,
		"float_big":         1e300,
		"float_tiny":        5e-324,
		"float_neg":         -123.456,
		"list_empty":        List{},
		"string_abc":        List{Elems: ints('a', 'b', 'c')},
		"list_1_2000":       List{Elems: ints(1, 2000)},
		"list_improper":     List{Elems: []Term{Atom("a")}, Tail: Atom("b")},
		"list_improper_int": List{Elems: ints(1, 2), Tail: int64(3)},
		"list_mixed":        List{Elems: []Term{Atom("a"), Binary("b"), Tuple{Atom("c")}, List{}, 1.0}},
		"string_65535":      List{Elems: repeat(int64('z'), 65535)},
		"list_65536_small":  List{Elems: repeat(int64(7), 65536)},
		"string_with_zero":  List{Elems: ints(0, 255, 1)},
		"tuple_empty":       Tuple{},
		"tuple_nested":      Tuple{Atom("a"), Tuple{Atom("b"), List{Elems: []Term{Atom("c"), Tuple{Atom("d"), List{}}}}}, List{Elems: ints('x')}},
		"tuple_counter_op":  Tuple{Atom("int_add"), int64(-5)},
		"tuple_key":         Tuple{Binary("src"), Binary("id"), int64(3)},
		"tuple_300":         Tuple(seq(1, 300)),
		"bin_empty":         Binary{},
		"bin_hello":         Binary("hello"),
		"bin_bytes":         Binary{0, 1, 2, 255},
		"bin_utf8":          Binary("héllo"),
		"bits_1_3":          BitBinary{Data: []byte{0x20}, Bits: 3},
		"bits_12":           BitBinary{Data: []byte{1, 0x20}, Bits: 4},
		"map_empty":         Map{},
		"map_ab":            Map{{Atom("a"), int64(1)}, {Atom("b"), int64(2)}},
		"map_ba_put":        Map{{Atom("b"), int64(2)}, {Atom("a"), int64(1)}},
		"map_mixed_keys":    Map{{Binary("b"), int64(1)}, {Atom("a"), int64(2)}, {int64(3), Atom("c")}, {Tuple{Atom("t")}, List{}}},
		"map_40":            map40,
		"map_40_atoms":      map40Atoms,
		"map_nested":        Map{{Atom("a"), Map{{Atom("b"), Map{{Atom("c"), List{}}}}}}},
		"envelope_nil_tenant": env("01HZX3K4", "src-1", AtomNil, AtomNil, 1717171717171,
			List{Elems: []Term{
				Tuple{Binary("content-type"), Binary("application/json")},
				Tuple{Binary("x-req"), Binary("42")},
			}}, Binary(`{"a":1}`)),
		"envelope_tenant": env("01HZX3K5", "src-2", Binary("acme"), Binary("k-1"), 1717171717999, List{}, Binary{}),
		"delivery": Map{
			{Atom("sink"), int64(3)}, {Atom("status"), Atom("dead")}, {Atom("attempts"), int64(7)},
			{Atom("size"), int64(1024)}, {Atom("last_error"), Binary("timeout")},
		},
		"pid":                      pid,
		"ref":                      ref,
		"fun_export":               funE,
		"fun_closure":              funC,
		"envelope_with_pid_header": nil, // checked structurally below
		"float_old_1_5":            1.5,
		"float_old_neg":            -123.456,
		"compressed_bin":           Binary(bytes.Repeat([]byte("abc"), 1000)),
		"compressed_envelope": env("01HZX3K6", "src-3", Binary("acme"), AtomNil, 1717171717171, List{},
			Binary(bytes.Repeat([]byte("payload "), 200))),
	}
}

func hasOpaque(t Term, depth int) bool {
	switch v := t.(type) {
	case Opaque:
		return true
	case Tuple:
		for _, e := range v {
			if hasOpaque(e, depth+1) {
				return true
			}
		}
	case List:
		for _, e := range v.Elems {
			if hasOpaque(e, depth+1) {
				return true
			}
		}
		return v.Tail != nil && hasOpaque(v.Tail, depth+1)
	case Map:
		for _, p := range v {
			if hasOpaque(p.Key, depth+1) || hasOpaque(p.Value, depth+1) {
				return true
			}
		}
	}
	return false
}

func itoa(v int64) string { return big.NewInt(v).String() }

func TestVectorsDecode(t *testing.T) {
	vecs := loadVectors(t)
	want := expectedVectors()
	otp26 := map[string][]byte{}
	for _, v := range vecs {
		if v.Form == "otp26" {
			otp26[v.Name] = v.Bytes
		}
	}
	seen := map[string]bool{}
	for _, v := range vecs {
		t.Run(v.Name, func(t *testing.T) {
			seen[v.Base()] = true
			got, err := Decode(v.Bytes)
			if err != nil {
				t.Fatalf("Decode(%s = %s): %v", v.Name, v.Expr, err)
			}
			exp, ok := want[v.Base()]
			if !ok {
				t.Fatalf("no expected Go value for vector %s", v.Base())
			}
			switch e := exp.(type) {
			case Opaque:
				o, ok := got.(Opaque)
				if !ok || o.Tag != e.Tag || !bytes.Equal(o.Raw, v.Bytes[1:]) {
					t.Fatalf("got %s (%T), want opaque tag %d holding the whole vector", Format(got), got, e.Tag)
				}
			case nil:
				m, ok := got.(Map)
				if !ok {
					t.Fatalf("got %T", got)
				}
				h, _ := m.Get(Atom("headers"))
				p := h.(List).Elems[0].(Tuple)[1]
				if o, ok := p.(Opaque); !ok || o.Tag != TagNewPid {
					t.Fatalf("header value %s is not an opaque pid", Format(p))
				}
				if tn, _ := m.Get(Atom("tenant_id")); !Equal(tn, Binary("t1")) {
					t.Fatalf("tenant_id = %s", Format(tn))
				}
			default:
				if !Equal(got, exp) {
					t.Fatalf("Decode(%s)\n got %.300s\nwant %.300s", v.Expr, Format(got), Format(exp))
				}
				// Equal is lenient about representation; the decoder must
				// also pick the canonical Go type.
				if _, isBig := got.(*big.Int); isBig {
					if bi := got.(*big.Int); bi.IsInt64() {
						t.Fatalf("%s decoded to *big.Int although it fits int64", v.Name)
					}
				}
			}
			// What the encoder writes for it must be what OTP 26 writes.
			enc := mustEncode(t, got)
			switch v.Form {
			case "otp26":
				if !bytes.Equal(enc, v.Bytes) {
					t.Fatalf("Encode differs from term_to_binary:\n got %x\nwant %x", enc, v.Bytes)
				}
			case "otp25":
				if _, top := got.(Opaque); top {
					// Opaque values are re-emitted as read, atoms and all.
					if !bytes.Equal(enc, v.Bytes) {
						t.Fatalf("Encode did not re-emit the opaque value as read:\n got %x\nwant %x", enc, v.Bytes)
					}
				} else if hasOpaque(got, 0) {
					if again, err := Decode(enc); err != nil || !Equal(again, got) {
						t.Fatalf("Encode did not re-emit the opaque value as read:\n got %x\nwant %x", enc, v.Bytes)
					}
				} else if !bytes.Equal(enc, otp26[v.Base()]) {
					t.Fatalf("Encode of the OTP 25 form differs from the OTP 26 form:\n got %x\nwant %x", enc, otp26[v.Base()])
				}
			case "v0":
				if enc[1] != TagNewFloat {
					t.Fatalf("old float re-encoded with tag %d", enc[1])
				}
			case "compressed":
				if v.Bytes[1] != TagCompressed {
					t.Fatalf("vector is not compressed")
				}
			default:
				t.Fatalf("unknown form %q", v.Form)
			}
			// DecodePrefix reports exactly the bytes used, with junk after.
			_, n, err := DecodePrefix(append(bytes.Clone(v.Bytes), 1, 2, 3))
			if err != nil || n != len(v.Bytes) {
				t.Fatalf("DecodePrefix = %d, %v; want %d", n, err, len(v.Bytes))
			}
		})
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("expected value %s has no vector in vectors.txt", name)
		}
	}
}

// TestVectorsMatchErlang regenerates vectors.txt with the local Erlang
// runtime; the committed file must be exactly what Erlang prints, so nobody
// can hand-edit a vector to make the codec pass.
func TestVectorsMatchErlang(t *testing.T) {
	escript := requireErlang(t)
	out, err := exec.Command(escript, vectorsScript).Output()
	if err != nil {
		t.Fatalf("escript %s: %v\n%s", vectorsScript, err, stderrOf(err))
	}
	if *update {
		if err := os.WriteFile(vectorsPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, committed) {
		gl, cl := strings.Split(string(out), "\n"), strings.Split(string(committed), "\n")
		if len(gl) != len(cl) {
			t.Fatalf("vectors.txt has %d lines, Erlang prints %d (rerun with -update if the script changed)", len(cl), len(gl))
		}
		for i := range gl {
			if gl[i] != cl[i] && !sameHAMTVector(gl[i], cl[i]) {
				t.Fatalf("vectors.txt differs from what Erlang prints at line %d (rerun with -update if the script changed):\nerl: %.200s\nfile: %.200s", i+1, gl[i], cl[i])
			}
		}
	}
}

// sameHAMTVector accepts two lines of vectors.txt that differ only in the order of a large
// map's pairs. Erlang stores a map of more than 32 keys as a HAMT, and term_to_binary walks
// it in the order of an internal hash that differs between runs and machines, so its bytes
// are not a fixed function of the term. The committed line must still be one that Erlang
// produced for the same expression: same name, form and expression, and bytes that decode to
// the same term (pairs compared as a set).
func sameHAMTVector(erl, file string) bool {
	e, f := strings.Split(erl, "\t"), strings.Split(file, "\t")
	if len(e) != 4 || len(f) != 4 || e[0] != f[0] || e[1] != f[1] || e[3] != f[3] || len(e[2]) != len(f[2]) {
		return false
	}
	eb, err1 := hex.DecodeString(e[2])
	fb, err2 := hex.DecodeString(f[2])
	if err1 != nil || err2 != nil {
		return false
	}
	et, err1 := Decode(eb)
	ft, err2 := Decode(fb)
	return err1 == nil && err2 == nil && hasHAMT(et, 0) && Equal(et, ft)
}

// hamtMinKeys is the size from which Erlang stores a map as a HAMT (MAP_SMALL_MAP_LIMIT + 1).
const hamtMinKeys = 33

func hasHAMT(t Term, depth int) bool {
	if depth > 512 { // test vectors nest a few levels
		return false
	}
	switch v := t.(type) {
	case Map:
		if len(v) >= hamtMinKeys {
			return true
		}
		for _, p := range v {
			if hasHAMT(p.Key, depth+1) || hasHAMT(p.Value, depth+1) {
				return true
			}
		}
	case Tuple:
		for _, x := range v {
			if hasHAMT(x, depth+1) {
				return true
			}
		}
	case List:
		for _, x := range v.Elems {
			if hasHAMT(x, depth+1) {
				return true
			}
		}
		return v.Tail != nil && hasHAMT(v.Tail, depth+1)
	}
	return false
}

// requireErlang skips only when there is no Erlang runtime at all.
func requireErlang(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("escript")
	if err != nil {
		if _, erlErr := exec.LookPath("erl"); erlErr == nil {
			t.Fatal("erl is on PATH but escript is not")
		}
		t.Skip("no Erlang runtime (erl) on PATH; CI installs erlang-base")
	}
	return p
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestSameHAMTVector holds the exception to byte equality to what it is for: the pair order
// of a map of 33 or more keys, and nothing else.
func TestSameHAMTVector(t *testing.T) {
	line := func(name string, m Map) string {
		return name + "\totp26\t" + hex.EncodeToString(mustEncode(t, m)) + "\texpr"
	}
	reversed := func(m Map) Map {
		r := make(Map, len(m))
		for i, p := range m {
			r[len(m)-1-i] = p
		}
		return r
	}
	large, small := Map{}, Map{{Atom("a"), int64(1)}, {Atom("b"), int64(2)}}
	for k := int64(1); k <= 40; k++ {
		large = append(large, MapPair{k, 2 * k})
	}
	changed := reversed(large)
	changed[0] = MapPair{changed[0].Key, int64(-1)}
	for _, c := range []struct {
		name      string
		erl, file string
		want      bool
	}{
		{"large map reordered", line("m", large), line("m", reversed(large)), true},
		{"small map reordered", line("m", small), line("m", reversed(small)), false},
		{"large map with a changed value", line("m", large), line("m", changed), false},
		{"large map under another name", line("m", large), line("n", reversed(large)), false},
	} {
		if got := sameHAMTVector(c.erl, c.file); got != c.want {
			t.Errorf("%s: sameHAMTVector = %v, want %v", c.name, got, c.want)
		}
	}
}
