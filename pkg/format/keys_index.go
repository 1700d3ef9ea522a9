package format

import "fmt"

// The index family keys. Every one of them leads with its prefix byte and is
// fixed width; `at` and `seq` are below 2^63 and an `ord` is never 0xFFFFFFFF,
// which is what keeps every valid key strictly between its family's sentinels.

// DueV2Key is a format 2 due key <<"d", at::64, seq::64, sink::16>>.
type DueV2Key struct {
	At, Seq uint64
	Sink    uint16
}

const whatDueV2 = "due_v2"

// Validate refuses what a decoder would refuse.
func (k DueV2Key) Validate() error {
	if err := checkAtSeq(whatDueV2, "at", k.At); err != nil {
		return err
	}
	return checkAtSeq(whatDueV2, "seq", k.Seq)
}

// Append appends the key's bytes to dst.
func (k DueV2Key) Append(dst []byte) []byte {
	dst = append(dst, PrefixDueV2)
	dst = be.AppendUint64(dst, k.At)
	dst = be.AppendUint64(dst, k.Seq)
	return be.AppendUint16(dst, k.Sink)
}

// Encode returns the key's bytes without validating.
func (k DueV2Key) Encode() []byte { return k.Append(make([]byte, 0, KeyLenDueV2)) }

// EncodeChecked validates, then encodes.
func (k DueV2Key) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k DueV2Key) String() string {
	return fmt.Sprintf("d at=%s seq=%d sink=%d", fmtAt(k.At), k.Seq, k.Sink)
}

// DecodeDueV2Key decodes a format 2 due key.
func DecodeDueV2Key(b []byte) (DueV2Key, error) {
	if err := checkKey(whatDueV2, b, KeyLenDueV2, PrefixDueV2); err != nil {
		return DueV2Key{}, err
	}
	k := DueV2Key{At: be.Uint64(b[1:]), Seq: be.Uint64(b[9:]), Sink: be.Uint16(b[17:])}
	return k, k.Validate()
}

// InflightV2Key is a format 2 inflight key <<"f", seq::64, sink::16>>.
type InflightV2Key struct {
	Seq  uint64
	Sink uint16
}

const whatInflightV2 = "inflight_v2"

// Validate refuses what a decoder would refuse.
func (k InflightV2Key) Validate() error { return checkAtSeq(whatInflightV2, "seq", k.Seq) }

// Append appends the key's bytes to dst.
func (k InflightV2Key) Append(dst []byte) []byte {
	dst = append(dst, PrefixInflightV2)
	dst = be.AppendUint64(dst, k.Seq)
	return be.AppendUint16(dst, k.Sink)
}

// Encode returns the key's bytes without validating.
func (k InflightV2Key) Encode() []byte { return k.Append(make([]byte, 0, KeyLenInflightV2)) }

// EncodeChecked validates, then encodes.
func (k InflightV2Key) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k InflightV2Key) String() string { return fmt.Sprintf("f seq=%d sink=%d", k.Seq, k.Sink) }

// DecodeInflightV2Key decodes a format 2 inflight key.
func DecodeInflightV2Key(b []byte) (InflightV2Key, error) {
	if err := checkKey(whatInflightV2, b, KeyLenInflightV2, PrefixInflightV2); err != nil {
		return InflightV2Key{}, err
	}
	k := InflightV2Key{Seq: be.Uint64(b[1:]), Sink: be.Uint16(b[9:])}
	return k, k.Validate()
}

// The two format 3 keys led by a tenant's ordinal and a time share one layout,
// <<prefix, ord::32, at::64, seq::64, sink::16>>: due ("D") and dead-by-tenant ("X").

func checkOrdAtSeq(what string, ord uint32, at, seq uint64) error {
	if err := checkOrd(what, ord); err != nil {
		return err
	}
	if err := checkAtSeq(what, "at", at); err != nil {
		return err
	}
	return checkAtSeq(what, "seq", seq)
}

func appendOrdAtSeqSink(dst []byte, prefix byte, ord uint32, at, seq uint64, sink uint16) []byte {
	dst = append(dst, prefix)
	dst = be.AppendUint32(dst, ord)
	dst = be.AppendUint64(dst, at)
	dst = be.AppendUint64(dst, seq)
	return be.AppendUint16(dst, sink)
}

// decodeOrdAtSeqSink reads a key whose length and prefix checkKey has checked.
func decodeOrdAtSeqSink(b []byte) (ord uint32, at, seq uint64, sink uint16) {
	return be.Uint32(b[1:]), be.Uint64(b[5:]), be.Uint64(b[13:]), be.Uint16(b[21:])
}

// DueKey is a format 3 due key <<"D", ord::32, at::64, seq::64, sink::16>>.
type DueKey struct {
	Ord     uint32
	At, Seq uint64
	Sink    uint16
}

const whatDue = "due"

// Validate refuses what a decoder would refuse.
func (k DueKey) Validate() error { return checkOrdAtSeq(whatDue, k.Ord, k.At, k.Seq) }

// Append appends the key's bytes to dst.
func (k DueKey) Append(dst []byte) []byte {
	return appendOrdAtSeqSink(dst, PrefixDue, k.Ord, k.At, k.Seq, k.Sink)
}

// Encode returns the key's bytes without validating.
func (k DueKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenDue)) }

// EncodeChecked validates, then encodes.
func (k DueKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k DueKey) String() string {
	return fmt.Sprintf("D ord=%d at=%s seq=%d sink=%d", k.Ord, fmtAt(k.At), k.Seq, k.Sink)
}

// DecodeDueKey decodes a format 3 due key.
func DecodeDueKey(b []byte) (DueKey, error) {
	if err := checkKey(whatDue, b, KeyLenDue, PrefixDue); err != nil {
		return DueKey{}, err
	}
	var k DueKey
	k.Ord, k.At, k.Seq, k.Sink = decodeOrdAtSeqSink(b)
	return k, k.Validate()
}

// ActiveKey returns the active-tenant marker every due row must have.
func (k DueKey) ActiveKey() ActiveKey { return ActiveKey{Bucket: k.At / BucketMillis, Ord: k.Ord} }

// InflightKey is a format 3 inflight key <<"F", ord::32, seq::64, sink::16>>.
type InflightKey struct {
	Ord  uint32
	Seq  uint64
	Sink uint16
}

const whatInflight = "inflight"

// Validate refuses what a decoder would refuse.
func (k InflightKey) Validate() error {
	if err := checkOrd(whatInflight, k.Ord); err != nil {
		return err
	}
	return checkAtSeq(whatInflight, "seq", k.Seq)
}

// Append appends the key's bytes to dst.
func (k InflightKey) Append(dst []byte) []byte {
	dst = append(dst, PrefixInflight)
	dst = be.AppendUint32(dst, k.Ord)
	dst = be.AppendUint64(dst, k.Seq)
	return be.AppendUint16(dst, k.Sink)
}

// Encode returns the key's bytes without validating.
func (k InflightKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenInflight)) }

// EncodeChecked validates, then encodes.
func (k InflightKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k InflightKey) String() string {
	return fmt.Sprintf("F ord=%d seq=%d sink=%d", k.Ord, k.Seq, k.Sink)
}

// DecodeInflightKey decodes a format 3 inflight key.
func DecodeInflightKey(b []byte) (InflightKey, error) {
	if err := checkKey(whatInflight, b, KeyLenInflight, PrefixInflight); err != nil {
		return InflightKey{}, err
	}
	k := InflightKey{Ord: be.Uint32(b[1:]), Seq: be.Uint64(b[5:]), Sink: be.Uint16(b[13:])}
	return k, k.Validate()
}

// DeadKey is a dead key <<"x", at::64, seq::64, sink::16>>, the same in both formats.
type DeadKey struct {
	At, Seq uint64
	Sink    uint16
}

const whatDead = "dead"

// Validate refuses what a decoder would refuse.
func (k DeadKey) Validate() error {
	if err := checkAtSeq(whatDead, "at", k.At); err != nil {
		return err
	}
	return checkAtSeq(whatDead, "seq", k.Seq)
}

// Append appends the key's bytes to dst.
func (k DeadKey) Append(dst []byte) []byte {
	dst = append(dst, PrefixDead)
	dst = be.AppendUint64(dst, k.At)
	dst = be.AppendUint64(dst, k.Seq)
	return be.AppendUint16(dst, k.Sink)
}

// Encode returns the key's bytes without validating.
func (k DeadKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenDead)) }

// EncodeChecked validates, then encodes.
func (k DeadKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k DeadKey) String() string {
	return fmt.Sprintf("x at=%s seq=%d sink=%d", fmtAt(k.At), k.Seq, k.Sink)
}

// DecodeDeadKey decodes a dead key.
func DecodeDeadKey(b []byte) (DeadKey, error) {
	if err := checkKey(whatDead, b, KeyLenDead, PrefixDead); err != nil {
		return DeadKey{}, err
	}
	k := DeadKey{At: be.Uint64(b[1:]), Seq: be.Uint64(b[9:]), Sink: be.Uint16(b[17:])}
	return k, k.Validate()
}

// ByTenant returns the dead-by-tenant companion of k for ord (invariant 3).
func (k DeadKey) ByTenant(ord uint32) DeadByTenantKey {
	return DeadByTenantKey{Ord: ord, At: k.At, Seq: k.Seq, Sink: k.Sink}
}

// DeadByTenantKey is a format 3 key <<"X", ord::32, at::64, seq::64, sink::16>>.
type DeadByTenantKey struct {
	Ord     uint32
	At, Seq uint64
	Sink    uint16
}

const whatDeadByTenant = "dead_by_tenant"

// Validate refuses what a decoder would refuse.
func (k DeadByTenantKey) Validate() error { return checkOrdAtSeq(whatDeadByTenant, k.Ord, k.At, k.Seq) }

// Append appends the key's bytes to dst.
func (k DeadByTenantKey) Append(dst []byte) []byte {
	return appendOrdAtSeqSink(dst, PrefixDeadByTenant, k.Ord, k.At, k.Seq, k.Sink)
}

// Encode returns the key's bytes without validating.
func (k DeadByTenantKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenDeadByTenant)) }

// EncodeChecked validates, then encodes.
func (k DeadByTenantKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k DeadByTenantKey) String() string {
	return fmt.Sprintf("X ord=%d at=%s seq=%d sink=%d", k.Ord, fmtAt(k.At), k.Seq, k.Sink)
}

// DecodeDeadByTenantKey decodes a dead-by-tenant key.
func DecodeDeadByTenantKey(b []byte) (DeadByTenantKey, error) {
	if err := checkKey(whatDeadByTenant, b, KeyLenDeadByTenant, PrefixDeadByTenant); err != nil {
		return DeadByTenantKey{}, err
	}
	var k DeadByTenantKey
	k.Ord, k.At, k.Seq, k.Sink = decodeOrdAtSeqSink(b)
	return k, k.Validate()
}

// DeadKey returns the global dead key this by-tenant key mirrors.
func (k DeadByTenantKey) DeadKey() DeadKey { return DeadKey{At: k.At, Seq: k.Seq, Sink: k.Sink} }

// ArchiveKey is an archive obligation key <<"a", seq::64>>, the same in both formats.
type ArchiveKey struct {
	Seq uint64
}

const whatArchive = "archive"

// Validate refuses what a decoder would refuse.
func (k ArchiveKey) Validate() error { return checkAtSeq(whatArchive, "seq", k.Seq) }

// Append appends the key's bytes to dst.
func (k ArchiveKey) Append(dst []byte) []byte {
	return be.AppendUint64(append(dst, PrefixArchive), k.Seq)
}

// Encode returns the key's bytes without validating.
func (k ArchiveKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenArchive)) }

// EncodeChecked validates, then encodes.
func (k ArchiveKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k ArchiveKey) String() string { return fmt.Sprintf("a seq=%d", k.Seq) }

// DecodeArchiveKey decodes an archive obligation key.
func DecodeArchiveKey(b []byte) (ArchiveKey, error) {
	if err := checkKey(whatArchive, b, KeyLenArchive, PrefixArchive); err != nil {
		return ArchiveKey{}, err
	}
	k := ArchiveKey{Seq: be.Uint64(b[1:])}
	return k, k.Validate()
}

// ActiveKey is a format 3 active-tenant marker <<"A", bucket::64, ord::32>>,
// bucket = div(at, 1000).
type ActiveKey struct {
	Bucket uint64
	Ord    uint32
}

const whatActive = "active"

// Validate refuses what a decoder would refuse: a bucket no valid `at` maps to.
func (k ActiveKey) Validate() error {
	if k.Bucket > MaxAtSeq/BucketMillis {
		return keyErr(whatActive, "bucket %d is beyond div(2^63-1, 1000)", k.Bucket)
	}
	return checkOrd(whatActive, k.Ord)
}

// Append appends the key's bytes to dst.
func (k ActiveKey) Append(dst []byte) []byte {
	dst = append(dst, PrefixActive)
	dst = be.AppendUint64(dst, k.Bucket)
	return be.AppendUint32(dst, k.Ord)
}

// Encode returns the key's bytes without validating.
func (k ActiveKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenActive)) }

// EncodeChecked validates, then encodes.
func (k ActiveKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k ActiveKey) String() string {
	return fmt.Sprintf("A bucket=%s ord=%d", fmtBucket(k.Bucket), k.Ord)
}

// DecodeActiveKey decodes an active-tenant marker.
func DecodeActiveKey(b []byte) (ActiveKey, error) {
	if err := checkKey(whatActive, b, KeyLenActive, PrefixActive); err != nil {
		return ActiveKey{}, err
	}
	k := ActiveKey{Bucket: be.Uint64(b[1:]), Ord: be.Uint32(b[9:])}
	return k, k.Validate()
}
