package etf

import (
	"encoding/hex"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestErlangDecodesOurEncoding is the reverse of the vectors: Go encodes,
// Erlang's binary_to_term reads it back, and Erlang's own term_to_binary
// (OTP 26 form) of what it read must be our bytes exactly; its io_lib:print
// must be our Format. One escript run for all terms: erl starts in ~1 s.
func TestErlangDecodesOurEncoding(t *testing.T) {
	escript := requireErlang(t)
	pidRaw := mustHex(t, "58770d6e6f6e6f6465406e6f686f73740000002a0000000000000000")
	cases := []struct {
		term     Term
		noFormat bool // ~p prints it differently on purpose (pids, non-ASCII)
	}{
		{term: int64(0)},
		{term: int64(255)},
		{term: int64(256)},
		{term: int64(-1)},
		{term: int64(math.MaxInt32)},
		{term: int64(math.MaxInt32 + 1)},
		{term: int64(math.MinInt32)},
		{term: int64(math.MinInt32 - 1)},
		{term: int64(math.MaxInt64)},
		{term: int64(math.MinInt64)},
		{term: new(big.Int).Lsh(big.NewInt(1), 64)},
		{term: new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(3), 2100))},
		{term: 1.5},
		{term: -0.25},
		{term: 1e10},
		{term: 1.2345e-4},
		{term: 123456.789},
		{term: Atom("ok")},
		{term: Atom("Elixir.Ankusa.Envelope")},
		{term: Atom("end")},
		{term: Atom("it's")},
		{term: Atom("")},
		{term: Atom("café"), noFormat: true},
		{term: Atom("日本"), noFormat: true},
		{term: Atom(strings.Repeat("日", 200)), noFormat: true}, // 600 bytes: tag 118
		{term: List{}},
		{term: List{Elems: ints('a', 'b', 'c')}},
		{term: List{Elems: ints(1, 2000)}},
		{term: List{Elems: []Term{Atom("a"), int64(1)}, Tail: Atom("b")}},
		{term: List{Elems: []Term{int64(1)}, Tail: List{Elems: ints(2, 3)}}}, // flattened to [1,2,3]
		{term: List{Elems: repeat(int64(1), 70000)}},
		{term: Tuple{}},
		{term: Tuple{Binary("src"), Binary("id"), int64(3)}},
		{term: Tuple(repeat(Atom("x"), 256))},
		{term: Binary{}},
		{term: Binary("hello \"world\"\n")},
		{term: Binary{0, 1, 2, 255}},
		{term: Binary("héllo"), noFormat: true},
		{term: BitBinary{Data: []byte{0x20}, Bits: 3}},
		{term: BitBinary{Data: []byte{1, 0xff}, Bits: 4}}, // padding bits must be cleared
		{term: BitBinary{Data: []byte{1, 2}, Bits: 8}},    // whole bytes: a binary
		{term: Map{}},
		{term: Map{{Atom("a"), int64(1)}, {Atom("b"), Binary("x")}}},
		{term: Map{
			{Atom("__struct__"), Atom("Elixir.Ankusa.Envelope")},
			{Atom("body"), Binary(`{"a":1}`)},
			{Atom("headers"), List{Elems: []Term{Tuple{Binary("content-type"), Binary("application/json")}}}},
			{Atom("id"), Binary("01HZX3K4")},
			{Atom("idempotency_key"), AtomNil},
			{Atom("received_at"), int64(1717171717171)},
			{Atom("source_id"), Binary("src-1")},
			{Atom("tenant_id"), AtomNil},
		}},
		{term: Opaque{Tag: TagNewPid, Raw: pidRaw}, noFormat: true},
		{term: Tuple{Atom("int_add"), int64(-5)}},
	}
	var in strings.Builder
	encs := make([][]byte, len(cases))
	for i, c := range cases {
		encs[i] = mustEncode(t, c.term)
		in.WriteString(hex.EncodeToString(encs[i]))
		in.WriteByte('\n')
	}
	file := filepath.Join(t.TempDir(), "terms.hex")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(escript, vectorsScript, "decode", file).Output()
	if err != nil {
		t.Fatalf("escript decode: %v\n%s", err, stderrOf(err))
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("erl printed %d lines for %d terms:\n%s", len(lines), len(cases), out)
	}
	for i, c := range cases {
		reenc, printed, _ := strings.Cut(lines[i], "\t")
		if reenc == "error" {
			t.Errorf("binary_to_term refused Encode(%.200s) = %x: %s", Format(c.term), encs[i], printed)
			continue
		}
		if got := hex.EncodeToString(encs[i]); got != reenc {
			t.Errorf("term %d %.200s: we wrote\n%.400s\nOTP 26 writes\n%.400s", i, Format(c.term), got, reenc)
		}
		if !c.noFormat && Format(c.term) != printed {
			t.Errorf("term %d: Format = %.300s\n  io_lib:print = %.300s", i, Format(c.term), printed)
		}
	}
}

func TestErlangRefusesWhatWeRefuse(t *testing.T) {
	// Inputs our decoder rejects as invalid that binary_to_term also
	// rejects, so "invalid" means what the node means.
	escript := requireErlang(t)
	bad := []string{
		"8346" + "7ff0000000000000",             // +inf
		"8374000000027701616101770161610" + "2", // #{a=>1, a=>2}
		"834d000000010000",                      // bit binary with 0 bits in a non-empty last byte
		"834d000000000300",                      // empty bit binary claiming 3 bits (and a stray byte)
	}
	var in strings.Builder
	for _, h := range bad {
		in.WriteString(h + "\n")
	}
	file := filepath.Join(t.TempDir(), "bad.hex")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(escript, vectorsScript, "decode", file).Output()
	if err != nil {
		t.Fatalf("escript decode: %v\n%s", err, stderrOf(err))
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, h := range bad {
		if _, err := Decode(mustHex(t, h)); err == nil {
			t.Errorf("we accept %s", h)
		}
		if i >= len(lines) || !strings.HasPrefix(lines[i], "error") {
			t.Errorf("Erlang accepts %s (%v) but we refuse it", h, lines)
		}
	}
}
