package format

import "fmt"

// HookKey is a hooks key <<seq::64>>.
type HookKey struct {
	Seq uint64
}

const whatHook = "hook"

// Validate refuses what a decoder would refuse.
func (k HookKey) Validate() error { return checkAtSeq(whatHook, "seq", k.Seq) }

// Append appends the key's bytes to dst.
func (k HookKey) Append(dst []byte) []byte { return be.AppendUint64(dst, k.Seq) }

// Encode returns the key's bytes without validating.
func (k HookKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenHook)) }

// EncodeChecked validates, then encodes.
func (k HookKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k HookKey) String() string { return fmt.Sprintf("hook seq=%d", k.Seq) }

// DecodeHookKey decodes a hooks key.
func DecodeHookKey(b []byte) (HookKey, error) {
	if len(b) != KeyLenHook {
		return HookKey{}, keyErr(whatHook, "want %d bytes, got %d", KeyLenHook, len(b))
	}
	k := HookKey{Seq: be.Uint64(b)}
	return k, k.Validate()
}

// DeliveryKey is a deliveries key <<seq::64, sink::16>>.
type DeliveryKey struct {
	Seq  uint64
	Sink uint16
}

const whatDelivery = "delivery"

// Validate refuses what a decoder would refuse.
func (k DeliveryKey) Validate() error { return checkAtSeq(whatDelivery, "seq", k.Seq) }

// Append appends the key's bytes to dst.
func (k DeliveryKey) Append(dst []byte) []byte {
	return be.AppendUint16(be.AppendUint64(dst, k.Seq), k.Sink)
}

// Encode returns the key's bytes without validating.
func (k DeliveryKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenDelivery)) }

// EncodeChecked validates, then encodes.
func (k DeliveryKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k DeliveryKey) String() string { return fmt.Sprintf("delivery seq=%d sink=%d", k.Seq, k.Sink) }

// DecodeDeliveryKey decodes a deliveries key.
func DecodeDeliveryKey(b []byte) (DeliveryKey, error) {
	if len(b) != KeyLenDelivery {
		return DeliveryKey{}, keyErr(whatDelivery, "want %d bytes, got %d", KeyLenDelivery, len(b))
	}
	k := DeliveryKey{Seq: be.Uint64(b), Sink: be.Uint16(b[8:])}
	return k, k.Validate()
}

// HookKey is the hook this delivery belongs to.
func (k DeliveryKey) HookKey() HookKey { return HookKey{Seq: k.Seq} }
