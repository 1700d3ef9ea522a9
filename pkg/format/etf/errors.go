package etf

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every decode error wraps exactly one of them (test with
// errors.Is) inside a *DecodeError that says where in the input it happened,
// because an operator looking at a corrupt row needs the offset, not just the
// kind.
var (
	ErrBadVersion = errors.New("etf: bad version byte (want 131)")
	ErrTruncated  = errors.New("etf: truncated input")
	ErrTrailing   = errors.New("etf: trailing bytes after term")
	ErrBadTag     = errors.New("etf: unknown or misplaced tag")
	ErrTooLarge   = errors.New("etf: size over limit")
	ErrInvalid    = errors.New("etf: invalid term")
	ErrCompressed = errors.New("etf: bad compressed term")
	// ErrUnsupported is returned by the encoder for a Go value that is not
	// one of the Term types.
	ErrUnsupported = errors.New("etf: unsupported Go type")
)

// Limits. There is no nesting limit: binary_to_term has none, and the
// decoder, the encoder, Equal and the hash walk with explicit stacks, so
// nesting costs memory in proportion to the input and no Go recursion.
const (
	// MaxInflated bounds a compressed term's declared uncompressed size, so a
	// few bytes of zlib cannot make a reader allocate gigabytes.
	MaxInflated = 64 << 20
)

// DecodeError locates a decode failure. Off is the offset of the offending
// byte in the input; InCompressed means it is an offset into the inflated
// payload of a compressed term (tag 80) instead.
type DecodeError struct {
	Err          error // one of the sentinels
	Off          int
	InCompressed bool
	Detail       string
}

func (e *DecodeError) Error() string {
	where := "offset"
	if e.InCompressed {
		where = "inflated offset"
	}
	if e.Detail == "" {
		return fmt.Sprintf("%v at %s %d", e.Err, where, e.Off)
	}
	return fmt.Sprintf("%v at %s %d: %s", e.Err, where, e.Off, e.Detail)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// EncodeError names the part of a term the encoder refused.
type EncodeError struct {
	Err    error
	Detail string
}

func (e *EncodeError) Error() string { return fmt.Sprintf("%v: %s", e.Err, e.Detail) }

func (e *EncodeError) Unwrap() error { return e.Err }
