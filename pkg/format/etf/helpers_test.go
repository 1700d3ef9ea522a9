package etf

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var vectorsPath = filepath.Join("..", "..", "..", "testdata", "etf", "vectors.txt")
var vectorsScript = filepath.Join("..", "..", "..", "testdata", "etf", "vectors.erl")

type vector struct {
	Name, Form, Expr string
	Bytes            []byte
}

// Base is the name without its ".otp25" suffix: both forms are one term.
func (v vector) Base() string { return strings.TrimSuffix(v.Name, ".otp25") }

func loadVectors(t testing.TB) []vector {
	t.Helper()
	data, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var out []vector
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			t.Fatalf("bad vector line %q", line)
		}
		b, err := hex.DecodeString(f[2])
		if err != nil {
			t.Fatalf("vector %s: %v", f[0], err)
		}
		out = append(out, vector{Name: f[0], Form: f[1], Bytes: b, Expr: f[3]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("only %d vectors in %s", len(out), vectorsPath)
	}
	return out
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bigFromString(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

func ints(vs ...int64) []Term {
	out := make([]Term, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func repeat(t Term, n int) []Term {
	out := make([]Term, n)
	for i := range out {
		out[i] = t
	}
	return out
}

func mustEncode(t testing.TB, term Term) []byte {
	t.Helper()
	b, err := Encode(term)
	if err != nil {
		t.Fatalf("Encode(%s): %v", Format(term), err)
	}
	return b
}
