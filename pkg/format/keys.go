package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrBadKey is wrapped by every key decoding and validation error.
var ErrBadKey = errors.New("bad key")

func keyErr(what, format string, args ...any) error {
	return fmt.Errorf("%w: %s key: %s", ErrBadKey, what, fmt.Sprintf(format, args...))
}

// keyCodec is what every key type of this package is: the round-trip and fuzz tests hold each
// to its encoder, decoder and validator.
type keyCodec interface {
	Validate() error
	Encode() []byte
}

// encodeChecked is every key type's EncodeChecked: validate, then encode.
func encodeChecked[K keyCodec](k K) ([]byte, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return k.Encode(), nil
}

// checkKey checks exact length and prefix byte; every fixed-width decoder starts here.
func checkKey(what string, b []byte, n int, prefix byte) error {
	if len(b) != n {
		return keyErr(what, "want %d bytes, got %d", n, len(b))
	}
	if b[0] != prefix {
		return keyErr(what, "want prefix %q, got 0x%02x", prefix, b[0])
	}
	return nil
}

func checkAtSeq(what, name string, v uint64) error {
	if v > MaxAtSeq {
		return keyErr(what, "%s %d is not below 2^63", name, v)
	}
	return nil
}

// checkOrd refuses the hi-sentinel ordinal: a key carrying it would sort past its family's hi.
func checkOrd(what string, ord uint32) error {
	if ord == SentinelOrd {
		return keyErr(what, "ord 0x%08x is the hi sentinel, never a tenant", ord)
	}
	return nil
}

var be = binary.BigEndian

// fmtAt renders milliseconds both as a UTC time and raw, so that a reader of a
// dump can paste either one into a query.
func fmtAt(at uint64) string {
	if at > MaxAtSeq {
		return strconv.FormatUint(at, 10)
	}
	t := time.UnixMilli(int64(at)).UTC()
	return t.Format("2006-01-02T15:04:05.000Z") + "(" + strconv.FormatUint(at, 10) + ")"
}

func fmtBucket(bucket uint64) string {
	if bucket > MaxAtSeq/BucketMillis {
		return strconv.FormatUint(bucket, 10)
	}
	t := time.Unix(int64(bucket), 0).UTC()
	return t.Format("2006-01-02T15:04:05Z") + "(" + strconv.FormatUint(bucket, 10) + ")"
}

// String gives the field's name and number, e.g. "bytes(5)".
func (f Field) String() string {
	if f.Valid() {
		return FieldNames[f] + "(" + strconv.Itoa(int(f)) + ")"
	}
	return "field?(" + strconv.Itoa(int(f)) + ")"
}

// Valid reports whether f is one of the six counter fields.
func (f Field) Valid() bool { return f >= FieldPending && f <= FieldArchivePending }

// FieldByName finds a field by its name ("pending", ...).
func FieldByName(name string) (Field, bool) {
	for _, f := range Fields {
		if FieldNames[f] == name {
			return f, true
		}
	}
	return 0, false
}
