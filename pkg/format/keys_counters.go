package format

import "fmt"

// CounterKey is a counters key: <<ord::32, field::8>>, or for a shard of the
// node aggregate <<0::32, field::8, shard::8>>.
type CounterKey struct {
	Ord   uint32
	Field Field
	// Shard is -1 for an unsharded counter, else 0..15 (ord 0 only).
	Shard int
}

// Unsharded is the Shard value of a plain <<ord::32, field::8>> counter.
const Unsharded = -1

const whatCounter = "counter"

// Validate refuses what a decoder would refuse: unknown fields (field 0 of
// ord 0 would be the lo sentinel), the hi-sentinel ordinal, and shards that
// are out of range or not on the aggregate.
func (k CounterKey) Validate() error {
	if !k.Field.Valid() {
		return keyErr(whatCounter, "unknown field %d", uint8(k.Field))
	}
	if err := checkOrd(whatCounter, k.Ord); err != nil {
		return err
	}
	if k.Shard == Unsharded {
		return nil
	}
	if k.Shard < 0 || k.Shard >= AggregateShards {
		return keyErr(whatCounter, "shard %d out of range 0..%d", k.Shard, AggregateShards-1)
	}
	if k.Ord != AggregateOrd {
		return keyErr(whatCounter, "shard %d on ord %d: only the aggregate (ord 0) is sharded", k.Shard, k.Ord)
	}
	return nil
}

// Append appends the key's bytes to dst.
func (k CounterKey) Append(dst []byte) []byte {
	dst = append(be.AppendUint32(dst, k.Ord), byte(k.Field))
	if k.Shard != Unsharded {
		dst = append(dst, byte(k.Shard))
	}
	return dst
}

// Encode returns the key's bytes without validating.
func (k CounterKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenCounterShard)) }

// EncodeChecked validates, then encodes.
func (k CounterKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k CounterKey) String() string {
	if k.Shard != Unsharded {
		return fmt.Sprintf("counter ord=%d field=%s shard=%d", k.Ord, k.Field, k.Shard)
	}
	return fmt.Sprintf("counter ord=%d field=%s", k.Ord, k.Field)
}

// DecodeCounterKey decodes a counters key, sharded or not.
func DecodeCounterKey(b []byte) (CounterKey, error) {
	var k CounterKey
	switch len(b) {
	case KeyLenCounter:
		k = CounterKey{Ord: be.Uint32(b), Field: Field(b[4]), Shard: Unsharded}
	case KeyLenCounterShard:
		k = CounterKey{Ord: be.Uint32(b), Field: Field(b[4]), Shard: int(b[5])}
	default:
		return CounterKey{}, keyErr(whatCounter, "want %d or %d bytes, got %d", KeyLenCounter, KeyLenCounterShard, len(b))
	}
	return k, k.Validate()
}

// CounterKeyBytes is the unsharded key of (ord, field), for callers that build
// many keys and do not want the CounterKey detour.
func CounterKeyBytes(ord uint32, f Field) []byte {
	return CounterKey{Ord: ord, Field: f, Shard: Unsharded}.Encode()
}
