package format

import (
	"errors"
	"fmt"
)

// ErrBadValue is wrapped by every value decoding error.
var ErrBadValue = errors.New("bad value")

func valueErr(what, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrBadValue, what, fmt.Sprintf(format, args...))
}

// EncodeU32 is <<v::32>>, as m:format and m:next_ord hold.
func EncodeU32(v uint32) []byte { return be.AppendUint32(make([]byte, 0, 4), v) }

// DecodeU32 decodes exactly four big-endian bytes.
func DecodeU32(b []byte) (uint32, error) {
	if len(b) != 4 {
		return 0, valueErr("u32", "want 4 bytes, got %d", len(b))
	}
	return be.Uint32(b), nil
}

// EncodeU64 is <<v::64>>, as m:migrating:3:now holds.
func EncodeU64(v uint64) []byte { return be.AppendUint64(make([]byte, 0, 8), v) }

// DecodeU64 decodes exactly eight big-endian bytes.
func DecodeU64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, valueErr("u64", "want 8 bytes, got %d", len(b))
	}
	return be.Uint64(b), nil
}

// MetaKey is a metadata key of family default, by name (m:format, ...).
type MetaKey struct {
	Name string
}

func (k MetaKey) String() string { return "meta " + k.Name }

// Encode returns the key's bytes.
func (k MetaKey) Encode() []byte { return []byte(k.Name) }

// MetaKeys lists the metadata keys a store may hold.
var MetaKeys = []string{KeyFormat, KeyNextOrd, KeyMigrating3, KeyMigrating3Now}

// MigrationCursor is the value of m:migrating:3: <<phase::8, last_old_key::binary>>.
// An empty LastKey means the phase has not moved a row yet.
type MigrationCursor struct {
	Phase   uint8
	LastKey []byte
}

// Encode returns <<phase::8, last_old_key::binary>>.
func (c MigrationCursor) Encode() []byte {
	return append(append(make([]byte, 0, 1+len(c.LastKey)), c.Phase), c.LastKey...)
}

// DecodeMigrationCursor decodes m:migrating:3; a phase outside 1..5 means the
// cursor is corrupt and resuming from it would skip or repeat rows.
func DecodeMigrationCursor(b []byte) (MigrationCursor, error) {
	if len(b) == 0 {
		return MigrationCursor{}, valueErr("migration cursor", "empty")
	}
	if b[0] < MigPhaseDue || b[0] > MigPhaseFinish {
		return MigrationCursor{}, valueErr("migration cursor", "phase %d out of range %d..%d", b[0], MigPhaseDue, MigPhaseFinish)
	}
	c := MigrationCursor{Phase: b[0]}
	if len(b) > 1 {
		c.LastKey = append([]byte(nil), b[1:]...)
	}
	return c, nil
}

func (c MigrationCursor) String() string {
	if len(c.LastKey) == 0 {
		return fmt.Sprintf("phase=%d last_key=none", c.Phase)
	}
	d := DecodeKey(CFIndex, c.LastKey)
	if d.Err == nil && d.Key != nil {
		return fmt.Sprintf("phase=%d last_key=%s", c.Phase, d.Key)
	}
	return fmt.Sprintf("phase=%d last_key=0x%x", c.Phase, c.LastKey)
}
