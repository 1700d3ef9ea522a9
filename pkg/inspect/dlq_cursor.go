package inspect

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// DLQCursor is where a dead-letter page ended: the next page starts strictly
// below (older than) this (at, seq, sink). The token also remembers whether
// the page was scoped to a tenant, and which, so that a cursor is not carried
// by mistake from one listing into another.
type DLQCursor struct {
	At, Seq uint64
	Sink    uint16
	// Scoped is set for a --tenant listing; TenantHash is then the CRC-32 of
	// the tenant id (the id itself may be long and is not the cursor's
	// business to carry).
	Scoped     bool
	TenantHash uint32
}

// The token: base64url (no padding) of
//
//	version::8, scope::8, tenant_hash::32, at::64, seq::64, sink::16, crc32::32
//
// The checksum makes a mistyped or truncated token a clear error instead of a
// silent jump to some other place in the queue.
const (
	dlqCursorVersion = 1
	dlqCursorLen     = 1 + 1 + 4 + 8 + 8 + 2 + 4
)

// ErrBadCursor is wrapped by every ParseDLQCursor error.
var ErrBadCursor = errors.New("bad cursor")

// dlqCursorFor is the cursor after key for a listing of tenant ("" unscoped).
func dlqCursorFor(k format.DeadKey, tenant string) DLQCursor {
	c := DLQCursor{At: k.At, Seq: k.Seq, Sink: k.Sink}
	if tenant != "" {
		c.Scoped, c.TenantHash = true, crc32.ChecksumIEEE([]byte(tenant))
	}
	return c
}

// String is the cursor's token, as --after takes it.
func (c DLQCursor) String() string {
	b := make([]byte, 0, dlqCursorLen)
	b = append(b, dlqCursorVersion, 0)
	if c.Scoped {
		b[1] = 1
	}
	b = binary.BigEndian.AppendUint32(b, c.TenantHash)
	b = binary.BigEndian.AppendUint64(b, c.At)
	b = binary.BigEndian.AppendUint64(b, c.Seq)
	b = binary.BigEndian.AppendUint16(b, c.Sink)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseDLQCursor reads a token that String wrote.
func ParseDLQCursor(s string) (DLQCursor, error) {
	// Strict, and no line breaks (which the decoder would skip): one token
	// has exactly one spelling.
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if i := strings.IndexAny(s, "\r\n"); err == nil && i >= 0 {
		err = base64.CorruptInputError(i)
	}
	if err != nil {
		// Said in the operator's terms, not encoding/base64's ("illegal base64 data at
		// input byte 3").
		why := "cut short or mistyped"
		var at base64.CorruptInputError
		if errors.As(err, &at) && int(at) < len(s) {
			why = fmt.Sprintf("%q at position %d is not one of its characters (A-Z a-z 0-9 - _)", string(s[at]), int(at)+1)
		}
		return DLQCursor{}, fmt.Errorf("%w %q: not a cursor printed by dlq scan: %s", ErrBadCursor, s, why)
	}
	if len(b) != dlqCursorLen {
		return DLQCursor{}, fmt.Errorf("%w %q: %d bytes, a cursor has %d (truncated?)", ErrBadCursor, s, len(b), dlqCursorLen)
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return DLQCursor{}, fmt.Errorf("%w %q: checksum mismatch (mistyped?)", ErrBadCursor, s)
	}
	if body[0] != dlqCursorVersion {
		return DLQCursor{}, fmt.Errorf("%w %q: version %d, this tool writes %d", ErrBadCursor, s, body[0], dlqCursorVersion)
	}
	if body[1] > 1 {
		return DLQCursor{}, fmt.Errorf("%w %q: unknown scope %d", ErrBadCursor, s, body[1])
	}
	c := DLQCursor{
		Scoped:     body[1] == 1,
		TenantHash: binary.BigEndian.Uint32(body[2:]),
		At:         binary.BigEndian.Uint64(body[6:]),
		Seq:        binary.BigEndian.Uint64(body[14:]),
		Sink:       binary.BigEndian.Uint16(body[22:]),
	}
	if err := (format.DeadKey{At: c.At, Seq: c.Seq, Sink: c.Sink}).Validate(); err != nil {
		return DLQCursor{}, fmt.Errorf("%w %q: %v", ErrBadCursor, s, err)
	}
	return c, nil
}

// checkScope refuses a cursor made by a listing of another scope.
func (c DLQCursor) checkScope(tenant string) error {
	switch {
	case tenant == "" && c.Scoped:
		return fmt.Errorf("%w: the cursor continues a --tenant listing; give the same --tenant", ErrBadCursor)
	case tenant != "" && !c.Scoped:
		return fmt.Errorf("%w: the cursor continues a listing of all tenants; drop --tenant or start without --after", ErrBadCursor)
	case tenant != "" && c.TenantHash != crc32.ChecksumIEEE([]byte(tenant)):
		return fmt.Errorf("%w: the cursor continues a listing of another tenant than %q", ErrBadCursor, tenant)
	}
	return nil
}

// deadKey is the position the cursor stands for.
func (c DLQCursor) deadKey() format.DeadKey {
	return format.DeadKey{At: c.At, Seq: c.Seq, Sink: c.Sink}
}
