package format

import (
	"fmt"
	"math"
	"math/big"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// Delivery is a delivery row (family deliveries): its Size is what the dead
// row's bytes counter adds.
type Delivery struct {
	Sink         uint16
	Status       string // StatusDue, StatusInflight or StatusDead
	Attempts     int64
	Size         uint64
	LastError    []byte
	LastErrorNil bool // last_error is nil (LastError is then ignored)
}

// Term builds the row map, keys in Erlang term order as term_to_binary writes them.
func (d Delivery) Term() etf.Map {
	var lastErr etf.Term = etf.Binary(orEmpty(d.LastError))
	if d.LastErrorNil {
		lastErr = etf.AtomNil
	}
	var size etf.Term = int64(d.Size)
	if d.Size > math.MaxInt64 {
		size = new(big.Int).SetUint64(d.Size)
	}
	return etf.Map{
		{Key: etf.Atom(DeliveryKeyAttempts), Value: d.Attempts},
		{Key: etf.Atom(DeliveryKeyLastError), Value: lastErr},
		{Key: etf.Atom(DeliveryKeySink), Value: int64(d.Sink)},
		{Key: etf.Atom(DeliveryKeySize), Value: size},
		{Key: etf.Atom(DeliveryKeyStatus), Value: etf.Atom(d.Status)},
	}
}

// EncodeDelivery writes the row as term_to_binary would.
func EncodeDelivery(d Delivery) []byte { return mustEncode(d.Term()) }

func (d Delivery) String() string {
	le := fmt.Sprintf("%q", d.LastError)
	if d.LastErrorNil {
		le = "nil"
	}
	return fmt.Sprintf("sink=%d status=%s attempts=%d size=%d last_error=%s", d.Sink, d.Status, d.Attempts, d.Size, le)
}

// DecodeDelivery decodes a delivery row. size is required (a row without it
// cannot be counted); the other keys are type-checked when present, and
// unknown keys are ignored, as the node's pattern matches do.
func DecodeDelivery(b []byte) (Delivery, error) {
	if d, ok := decodeDeliverySkim(b); ok {
		return d, nil
	}
	return decodeDeliveryTerm(b)
}

// deliveryFields are the keys decodeDeliverySkim reads, in its order.
var deliveryFields = []string{DeliveryKeySize, DeliveryKeySink, DeliveryKeyStatus, DeliveryKeyAttempts, DeliveryKeyLastError}

// decodeDeliverySkim is DecodeDelivery of a row whose fields are each of
// the shape a node writes, read in place as decodeEnvelopeSkim reads an
// envelope (a migration and an export decode a row for every delivery);
// any other row is not answered (false).
func decodeDeliverySkim(b []byte) (Delivery, bool) {
	var v [5][]byte
	if isMap, ok := etf.MapAtoms(b, deliveryFields, v[:]); !ok || !isMap || v[0] == nil {
		return Delivery{}, false
	}
	d := Delivery{LastErrorNil: true}
	size, ok := etf.ReadInt64(v[0])
	if !ok || size < 0 {
		return Delivery{}, false
	}
	d.Size = uint64(size)
	if v[1] != nil {
		n, ok := etf.ReadInt64(v[1])
		if !ok || n < 0 || n > math.MaxUint16 {
			return Delivery{}, false
		}
		d.Sink = uint16(n)
	}
	if v[2] != nil {
		a, ok := etf.ReadAtom(v[2])
		if !ok {
			return Delivery{}, false
		}
		switch string(a) { // the node's three, without a string each
		case StatusDead:
			d.Status = StatusDead
		case StatusDue:
			d.Status = StatusDue
		case StatusInflight:
			d.Status = StatusInflight
		default:
			d.Status = string(a)
		}
	}
	if v[3] != nil {
		if d.Attempts, ok = etf.ReadInt64(v[3]); !ok {
			return Delivery{}, false
		}
	}
	if v[4] != nil {
		if e, ok := etf.ReadBinary(v[4]); ok {
			d.LastError, d.LastErrorNil = append([]byte{}, e...), false
		} else if a, ok := etf.ReadAtom(v[4]); !ok || string(a) != string(etf.AtomNil) {
			return Delivery{}, false
		}
	}
	return d, true
}

// decodeDeliveryTerm is DecodeDelivery by the decoder.
func decodeDeliveryTerm(b []byte) (Delivery, error) {
	t, err := decodeNodeTerm(b)
	if err != nil {
		return Delivery{}, valueErr("delivery row", "%v", err)
	}
	m, ok := t.(etf.Map)
	if !ok {
		return Delivery{}, valueErr("delivery row", "not a map: %s", etf.Format(t))
	}
	d := Delivery{LastErrorNil: true}
	bad := func(key, want string, v etf.Term) error {
		return valueErr("delivery row", "%s: want %s, got %s", key, want, etf.Format(v))
	}
	v, ok := m.Get(etf.Atom(DeliveryKeySize))
	if !ok {
		return Delivery{}, valueErr("delivery row", "no size")
	}
	switch n := v.(type) {
	case int64:
		if n < 0 {
			return Delivery{}, bad(DeliveryKeySize, "an integer >= 0", v)
		}
		d.Size = uint64(n)
	case *big.Int:
		if n.Sign() < 0 || !n.IsUint64() {
			return Delivery{}, bad(DeliveryKeySize, "an integer in 0..2^64-1", v)
		}
		d.Size = n.Uint64()
	default:
		return Delivery{}, bad(DeliveryKeySize, "an integer >= 0", v)
	}
	if v, ok := m.Get(etf.Atom(DeliveryKeySink)); ok {
		n, ok := v.(int64)
		if !ok || n < 0 || n > math.MaxUint16 {
			return Delivery{}, bad(DeliveryKeySink, "an integer in 0..65535", v)
		}
		d.Sink = uint16(n)
	}
	if v, ok := m.Get(etf.Atom(DeliveryKeyStatus)); ok {
		a, ok := v.(etf.Atom)
		if !ok {
			return Delivery{}, bad(DeliveryKeyStatus, "an atom", v)
		}
		d.Status = string(a)
	}
	if v, ok := m.Get(etf.Atom(DeliveryKeyAttempts)); ok {
		n, ok := v.(int64)
		if !ok {
			return Delivery{}, bad(DeliveryKeyAttempts, "a 64-bit integer", v)
		}
		d.Attempts = n
	}
	if v, ok := m.Get(etf.Atom(DeliveryKeyLastError)); ok {
		switch e := v.(type) {
		case etf.Binary:
			d.LastError, d.LastErrorNil = append([]byte{}, e...), false
		case etf.Atom:
			if e != etf.AtomNil {
				return Delivery{}, bad(DeliveryKeyLastError, "a binary or nil", v)
			}
		default:
			return Delivery{}, bad(DeliveryKeyLastError, "a binary or nil", v)
		}
	}
	return d, nil
}
