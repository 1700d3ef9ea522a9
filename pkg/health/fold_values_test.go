package health

import (
	"math"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// The fast paths must agree with format's decoders on every input: when a
// fast path answers, format answers the same; otherwise the slow path is
// format itself.

func deadValueSeeds() [][]byte {
	var out [][]byte
	for _, v := range []format.DeadValue{
		{SourceID: []byte("src"), ID: []byte("hk_1"), Ord: 1, HasOrd: true},
		{SourceID: []byte("src"), ID: []byte("hk_1"), Ord: 300, HasOrd: true},
		{SourceID: []byte(""), ID: []byte(""), Ord: format.MaxOrd, HasOrd: true},
		{SourceID: []byte("src"), ID: []byte("hk_1")},
	} {
		out = append(out, v.Encode())
	}
	// Other encodings a node may write: a big ord, a compressed term, an
	// OTP 25 atom-free tuple with an int for the ord.
	big, _ := etf.Encode(etf.Tuple{etf.Binary("s"), etf.Binary("i"), int64(math.MaxInt32) + 5})
	out = append(out, big, append([]byte{131, 104, 3, 109, 0, 0, 0, 1, 's', 109, 0, 0, 0, 1, 'i', 98}, 0xff, 0xff, 0xff, 0xff))
	return out
}

func TestDeadValueOrd(t *testing.T) {
	for _, c := range []struct {
		v       format.DeadValue
		wantOrd uint32
	}{
		{format.DeadValue{SourceID: []byte("a"), ID: []byte("b"), Ord: 7, HasOrd: true}, 7},
		{format.DeadValue{SourceID: []byte("a"), ID: []byte("b"), Ord: 70000, HasOrd: true}, 70000},
		{format.DeadValue{SourceID: []byte("a"), ID: []byte("b"), Ord: format.MaxOrd, HasOrd: true}, format.MaxOrd},
		{format.DeadValue{SourceID: []byte("a"), ID: []byte("b")}, 0},
	} {
		ord, has, err := deadValueOrd(c.v.Encode())
		if err != nil || ord != c.wantOrd || has != c.v.HasOrd {
			t.Errorf("%v: ord %d has %v err %v", c.v, ord, has, err)
		}
	}
	if _, _, err := deadValueOrd([]byte{131, 104, 3}); err == nil {
		t.Error("a truncated value decoded")
	}
}

func FuzzDeadValueOrd(f *testing.F) {
	for _, s := range deadValueSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dv, werr := format.DecodeDeadValue(b)
		ord, has, err := deadValueOrd(b)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%x: fast err %v, format err %v", b, err, werr)
		}
		if err == nil && (ord != dv.Ord || has != dv.HasOrd) {
			t.Fatalf("%x: fast %d/%v, format %d/%v", b, ord, has, dv.Ord, dv.HasOrd)
		}
	})
}

func deliverySeeds() [][]byte {
	var out [][]byte
	for _, d := range []format.Delivery{
		{Sink: 1, Status: format.StatusDead, Attempts: 5, Size: 300, LastError: []byte("500"), LastErrorNil: false},
		{Sink: 65535, Status: format.StatusDue, Attempts: 0, Size: 0, LastErrorNil: true},
		{Sink: 2, Status: format.StatusInflight, Attempts: 1 << 40, Size: 1 << 62, LastErrorNil: true},
		{Sink: 2, Status: format.StatusInflight, Attempts: -3, Size: math.MaxUint64, LastErrorNil: true},
	} {
		out = append(out, format.EncodeDelivery(d))
	}
	// An OTP 25 row: atoms as ATOM_EXT (100); one with an unknown key.
	old, _ := etf.Encode(etf.Map{{Key: etf.Atom("size"), Value: int64(12)}, {Key: etf.Atom("extra"), Value: etf.Atom("x")}})
	out = append(out, old, []byte{131, 116, 0, 0, 0, 1, 100, 0, 4, 's', 'i', 'z', 'e', 97, 9})
	return out
}

func TestDeliverySize(t *testing.T) {
	for _, b := range deliverySeeds() {
		want, werr := format.DecodeDelivery(b)
		got, err := deliverySize(b)
		if err != nil || werr != nil || got != want.Size {
			t.Errorf("%x: size %d err %v; format %d err %v", b, got, err, want.Size, werr)
		}
	}
	// The node's row takes the fast path.
	if _, ok := fastDeliverySize(deliverySeeds()[0]); !ok {
		t.Error("the canonical row is not read by the fast path")
	}
	if _, err := deliverySize([]byte{131, 116, 0, 0, 0, 0}); err == nil {
		t.Error("a row without size decoded")
	}
}

func FuzzDeliverySize(f *testing.F) {
	for _, s := range deliverySeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, werr := format.DecodeDelivery(b)
		size, err := deliverySize(b)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%x: fast err %v, format err %v", b, err, werr)
		}
		if err == nil && size != d.Size {
			t.Fatalf("%x: fast %d, format %d", b, size, d.Size)
		}
	})
}
