package ui

import (
	"time"
	"unicode/utf8"
)

// The JSON a command writes row by row, by hand, where encoding/json's reflection would
// cost as much as reading the store (tenants ls, dlq export, diff): the bytes are
// encoding/json's with HTML escaping off (ui.WriteJSON's), which each command's test
// holds its document to.

// AppendJSONTime appends t as encoding/json writes a time (RFC 3339 with
// nanoseconds, trailing zeros cut), by hand for the times a store holds (tenants ls, dlq export) (UTC,
// whole milliseconds, four-digit years): time.AppendFormat was a fifth of a
// tenants ls row's cost at 10^6 tenants. Any other time goes through AppendFormat.
func AppendJSONTime(b []byte, t time.Time) []byte {
	ns := t.Nanosecond()
	y, mo, d := t.Date()
	if t.Location() != time.UTC || ns%1e6 != 0 || y < 0 || y > 9999 {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	h, mi, s := t.Clock()
	two := func(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }
	b = two(two(b, y/100), y%100)
	b = two(append(b, '-'), int(mo))
	b = two(append(b, '-'), d)
	b = two(append(b, 'T'), h)
	b = two(append(b, ':'), mi)
	b = two(append(b, ':'), s)
	if ms := ns / 1e6; ms != 0 {
		b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
	}
	return append(b, 'Z')
}

// AppendJSONString quotes s as encoding/json does with HTML escaping off:
// invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029 are escaped.
func AppendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
