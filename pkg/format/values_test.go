package format

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
	"pgregory.net/rapid"
)

func TestFixedValues(t *testing.T) {
	if b := EncodeSize(0x01020304); string(b) != "\x01\x02\x03\x04" {
		t.Fatalf("EncodeSize = %x", b)
	}
	if n, err := DecodeSize([]byte{0, 0, 1, 0}); err != nil || n != 256 {
		t.Fatalf("DecodeSize = %d, %v", n, err)
	}
	for _, v := range []DueValue{{Size: 10, Kind: KindFirstAttempt}, {Size: math.MaxUint32, Kind: KindRetry}} {
		back, err := DecodeDueValue(v.Encode())
		if err != nil || back != v {
			t.Fatalf("DueValue %v: %v, %v", v, back, err)
		}
	}
	if (DueValue{Kind: KindRetry}).Field() != FieldScheduled || (DueValue{}).Field() != FieldPending {
		t.Fatal("DueValue.Field")
	}
	if got := (DueValue{Size: 5, Kind: 1}).String(); got != "size=5 kind=retry(1)" {
		t.Fatalf("String = %q", got)
	}
	for _, v := range []ArchiveValue{{Size: 7}, {Size: 7, Ord: 3, HasOrd: true}} {
		b := v.Encode()
		if (v.HasOrd && len(b) != 8) || (!v.HasOrd && len(b) != 4) {
			t.Fatalf("ArchiveValue %v: %x", v, b)
		}
		back, err := DecodeArchiveValue(b)
		if err != nil || back != v {
			t.Fatalf("ArchiveValue %v: %v, %v", v, back, err)
		}
	}
	bad := []struct {
		name string
		err  error
	}{
		{"size 3", func() error { _, err := DecodeSize([]byte{1, 2, 3}); return err }()},
		{"due 4", func() error { _, err := DecodeDueValue([]byte{1, 2, 3, 4}); return err }()},
		{"due kind 2", func() error { _, err := DecodeDueValue([]byte{0, 0, 0, 1, 2}); return err }()},
		{"archive 5", func() error { _, err := DecodeArchiveValue(make([]byte, 5)); return err }()},
		{"dead not etf", func() error { _, err := DecodeDeadValue([]byte{1}); return err }()},
		{"dead 1-tuple", func() error { _, err := DecodeDeadValue(mustEncode(etf.Tuple{etf.Binary("a")})); return err }()},
		{"dead atom", func() error {
			_, err := DecodeDeadValue(mustEncode(etf.Tuple{etf.Atom("a"), etf.Binary("b")}))
			return err
		}()},
		{"dead ord big", func() error {
			_, err := DecodeDeadValue(mustEncode(etf.Tuple{etf.Binary("a"), etf.Binary("b"), int64(1) << 32}))
			return err
		}()},
		{"dead ord neg", func() error {
			_, err := DecodeDeadValue(mustEncode(etf.Tuple{etf.Binary("a"), etf.Binary("b"), int64(-1)}))
			return err
		}()},
	}
	for _, c := range bad {
		if !errors.Is(c.err, ErrBadValue) {
			t.Errorf("%s: err = %v, want ErrBadValue", c.name, c.err)
		}
	}
}

func TestDeadValue(t *testing.T) {
	for _, v := range []DeadValue{
		{SourceID: []byte("src"), ID: []byte("id-1")},
		{SourceID: []byte("src"), ID: []byte{}, Ord: 3, HasOrd: true},
		{SourceID: []byte{}, ID: []byte("x"), Ord: MaxOrd, HasOrd: true},
	} {
		b := v.Encode()
		back, err := DecodeDeadValue(b)
		if err != nil || string(back.SourceID) != string(v.SourceID) || string(back.ID) != string(v.ID) ||
			back.Ord != v.Ord || back.HasOrd != v.HasOrd {
			t.Fatalf("%v: %v, %v", v, back, err)
		}
		// The node's value is read in place, as the decoder reads it.
		if skimmed, ok := decodeDeadValueSkim(b); !ok || !reflect.DeepEqual(skimmed, back) {
			t.Fatalf("%v: read in place %v, %+v; decoded %+v", v, ok, skimmed, back)
		}
	}
	// Not answered in place: a 4-tuple, an ordinal past MaxOrd, a binary ordinal.
	for _, b := range [][]byte{
		mustEncode(etf.Tuple{etf.Binary("s"), etf.Binary("i"), int64(1), int64(2)}),
		mustEncode(etf.Tuple{etf.Binary("s"), etf.Binary("i"), int64(MaxOrd) + 1}),
		mustEncode(etf.Tuple{etf.Binary("s"), etf.Binary("i"), etf.Binary("1")}),
	} {
		if v, ok := decodeDeadValueSkim(b); ok {
			t.Errorf("%x: read in place as %+v", b, v)
		}
	}
	// {<<"src">>, <<"id">>, 3} exactly as term_to_binary writes it.
	want := "\x83\x68\x03\x6d\x00\x00\x00\x03src\x6d\x00\x00\x00\x02id\x61\x03"
	if got := (DeadValue{SourceID: []byte("src"), ID: []byte("id"), Ord: 3, HasOrd: true}).Encode(); string(got) != want {
		t.Fatalf("Encode = %x, want %x", got, want)
	}
}

func TestCounterOperand(t *testing.T) {
	head := "\x83\x68\x02\x77\x07int_add"
	cases := []struct {
		delta int64
		tail  string
	}{
		{0, "\x61\x00"},
		{1, "\x61\x01"},
		{255, "\x61\xff"},
		{256, "\x62\x00\x00\x01\x00"},
		{-1, "\x62\xff\xff\xff\xff"},
		{math.MinInt32, "\x62\x80\x00\x00\x00"},
		{1 << 31, "\x6e\x04\x00\x00\x00\x00\x80"},
		{-(1 << 40), "\x6e\x06\x01\x00\x00\x00\x00\x00\x01"},
		{math.MaxInt64, "\x6e\x08\x00\xff\xff\xff\xff\xff\xff\xff\x7f"},
		{math.MinInt64, "\x6e\x08\x01\x00\x00\x00\x00\x00\x00\x00\x80"},
	}
	for _, c := range cases {
		got := EncodeCounterOperand(c.delta)
		if string(got) != head+c.tail {
			t.Errorf("EncodeCounterOperand(%d) = %x, want %x", c.delta, got, head+c.tail)
		}
		if d, err := DecodeCounterOperand(got); err != nil || d != c.delta {
			t.Errorf("DecodeCounterOperand(%x) = %d, %v", got, d, err)
		}
		// Trailing bytes are ignored, as the node's operator ignores them.
		if d, err := DecodeCounterOperand(append(got, 0xAA)); err != nil || d != c.delta {
			t.Errorf("DecodeCounterOperand with a trailing byte = %d, %v", d, err)
		}
		v := EncodeCounterValue(c.delta)
		if string(v) != "\x83"+c.tail {
			t.Errorf("EncodeCounterValue(%d) = %x", c.delta, v)
		}
		if n, err := DecodeCounterValue(v); err != nil || n != c.delta {
			t.Errorf("DecodeCounterValue(%x) = %d, %v", v, n, err)
		}
	}
	// A three-element operand is accepted; the third element is ignored.
	if d, err := DecodeCounterOperand(mustEncode(etf.Tuple{etf.Atom("int_add"), int64(5), etf.Atom("x")})); err != nil || d != 5 {
		t.Errorf("3-tuple operand = %d, %v", d, err)
	}
	for _, bad := range []etf.Term{
		etf.Tuple{etf.Atom("int_add")},
		etf.Tuple{etf.Atom("int_sub"), int64(1)},
		etf.Tuple{etf.Binary("int_add"), int64(1)},
		etf.Tuple{etf.Atom("int_add"), 1.5},
		int64(3),
	} {
		if _, err := DecodeCounterOperand(mustEncode(bad)); !errors.Is(err, ErrBadValue) {
			t.Errorf("DecodeCounterOperand(%s): err = %v", etf.Format(bad), err)
		}
	}
	if _, err := DecodeCounterValue(mustEncode(etf.Binary("1"))); !errors.Is(err, ErrBadValue) {
		t.Errorf("DecodeCounterValue of a binary: %v", err)
	}
	if _, err := DecodeCounterValue(append(EncodeCounterValue(1), 0)); !errors.Is(err, ErrBadValue) {
		t.Errorf("DecodeCounterValue with a trailing byte: %v", err)
	}
}

func TestDelivery(t *testing.T) {
	cases := []Delivery{
		{Sink: 1, Status: StatusDue, Attempts: 0, Size: 120, LastErrorNil: true},
		{Sink: 65535, Status: StatusDead, Attempts: 12, Size: 1 << 40, LastError: []byte("HTTP 500")},
		{Sink: 0, Status: StatusInflight, Attempts: 1, Size: 0, LastError: []byte{}},
		{Sink: 2, Status: StatusDead, Size: math.MaxUint64, LastErrorNil: true},
	}
	for _, d := range cases {
		b := EncodeDelivery(d)
		back, err := DecodeDelivery(b)
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		if back.String() != d.String() {
			t.Fatalf("round trip: %v, want %v", back, d)
		}
		if again := EncodeDelivery(back); string(again) != string(b) {
			t.Fatalf("re-encode differs: %x vs %x", again, b)
		}
		// A node's row is read in place unless its size needs more than 56
		// bits (then the decoder reads it), as the decoder reads it.
		skimmed, ok := decodeDeliverySkim(b)
		if ok != (d.Size < 1<<56) || (ok && !reflect.DeepEqual(skimmed, back)) {
			t.Fatalf("%v: read in place %v, %+v; decoded %+v", d, ok, skimmed, back)
		}
	}
	row := func(pairs ...any) []byte {
		var m etf.Map
		for i := 0; i < len(pairs); i += 2 {
			m = append(m, etf.MapPair{Key: etf.Atom(pairs[i].(string)), Value: pairs[i+1]})
		}
		return mustEncode(m)
	}
	// Only size is required, and unknown keys are ignored.
	d, err := DecodeDelivery(row("size", int64(9), "extra", etf.Atom("x")))
	if err != nil || d.Size != 9 || !d.LastErrorNil {
		t.Fatalf("minimal row: %v, %v", d, err)
	}
	bad := map[string][]byte{
		"no size":        row("sink", int64(1)),
		"negative size":  row("size", int64(-1)),
		"binary size":    row("size", etf.Binary("1")),
		"sink too big":   row("size", int64(1), "sink", int64(70000)),
		"status binary":  row("size", int64(1), "status", etf.Binary("due")),
		"attempts float": row("size", int64(1), "attempts", 1.0),
		"last_error int": row("size", int64(1), "last_error", int64(3)),
		"last_error atm": row("size", int64(1), "last_error", etf.Atom("oops")),
		"not a map":      mustEncode(etf.Tuple{}),
		"not etf":        []byte("size"),
	}
	for name, b := range bad {
		if _, err := DecodeDelivery(b); !errors.Is(err, ErrBadValue) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := DecodeDelivery(row("size", int64(1), "sink", int64(70000))); err == nil || !strings.Contains(err.Error(), "sink") {
		t.Errorf("error does not name the key: %v", err)
	}
}

// BenchmarkDecodeDelivery: a node's dead row read in place against the whole
// decode (go test -bench DecodeDelivery ./pkg/format).
func BenchmarkDecodeDelivery(b *testing.B) {
	row := EncodeDelivery(Delivery{Sink: 3, Status: StatusDead, Attempts: 12, Size: 2178, LastError: []byte("HTTP 503 from https://hooks.example.com/in")})
	benchReaders(b, row, ValueReader.DecodeDelivery)
}

// BenchmarkDecodeDeadValue: a node's dead value (format 3, with its
// ordinal) read in place against the whole decode (go test -bench
// DecodeDeadValue ./pkg/format).
func BenchmarkDecodeDeadValue(b *testing.B) {
	v := DeadValue{SourceID: []byte("stripe-prod-eu"), ID: []byte("evt_3PmB9c2eZvKYlo2C1x8QKm7V"), Ord: 41234, HasOrd: true}.Encode()
	benchReaders(b, v, ValueReader.DecodeDeadValue)
}

// A dead value written directly (AppendEncode, what Encode and the migration's builder use)
// is byte for byte the term the encoder writes for it: ordinals across every integer
// encoding (small, 32-bit, past it), binaries empty to long, with and without the ordinal,
// appended after bytes already there.
func TestDeadValueAppendEncodeIsTheTerm(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := DeadValue{
			SourceID: rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, "source"),
			ID:       rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, "id"),
			Ord:      rapid.OneOf(rapid.Uint32Range(0, 300), rapid.Uint32Range(math.MaxInt32-2, math.MaxInt32+2), rapid.Uint32()).Draw(t, "ord"),
			HasOrd:   rapid.Bool().Draw(t, "has ord"),
		}
		want, err := etf.Encode(v.Term())
		if err != nil {
			t.Fatal(err)
		}
		before := rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "before")
		got := v.AppendEncode(slices.Clip(before))
		if string(got[:len(before)]) != string(before) || string(got[len(before):]) != string(want) {
			t.Fatalf("%+v: appended %x after %x, want %x", v, got[len(before):], before, want)
		}
		if enc := v.Encode(); string(enc) != string(want) {
			t.Fatalf("%+v: Encode %x, want %x", v, enc, want)
		}
	})
}
