package safetext

import (
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r is shown escaped: a control (C0, DEL, C1), a
// noncharacter, or anything that is not a graphic character of an assigned
// category (letters, marks, numbers, punctuation, symbols, spaces): format
// characters (bidi overrides and isolates, zero-width joiners, soft hyphen,
// BOM), private use, surrogates, unassigned code points, U+2028 and U+2029.
// Those are what terminals act on, or draw with widths they disagree on.
func Unsafe(r rune) bool {
	if r < 0x7f {
		return r < 0x20
	}
	if r < 0xa0 {
		return true // DEL and C1
	}
	if (r >= 0xfdd0 && r <= 0xfdef) || r&0xfffe == 0xfffe {
		return true // noncharacters, U+10FFFF included
	}
	return !unicode.IsGraphic(r)
}

const hexDigits = "0123456789abcdef"

// appendEscape appends the visible form of r (or of the invalid byte b when
// invalid is set).
func appendEscape(out []byte, r rune, invalid bool, b byte) []byte {
	switch {
	case invalid:
		return append(out, '\\', 'x', hexDigits[b>>4], hexDigits[b&0xf])
	case r == '\t':
		return append(out, '\\', 't')
	case r == '\n':
		return append(out, '\\', 'n')
	case r == '\r':
		return append(out, '\\', 'r')
	case r < 0x80:
		return append(out, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xf])
	case r <= 0xffff:
		return append(out, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
	}
	out = append(out, '\\', 'U')
	for shift := 28; shift >= 0; shift -= 4 {
		out = append(out, hexDigits[r>>uint(shift)&0xf])
	}
	return out
}

// appendJSONEscape appends r as a JSON string escape: \u00XX, \uXXXX, or a
// surrogate pair above U+FFFF; an invalid byte is U+FFFD, as encoding/json
// writes it.
func appendJSONEscape(out []byte, r rune, invalid bool) []byte {
	if invalid {
		r = utf8.RuneError
	}
	u := func(out []byte, r rune) []byte {
		return append(out, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
	}
	if r <= 0xffff {
		return u(out, r)
	}
	r -= 0x10000
	return u(u(out, 0xd800+(r>>10)), 0xdc00+(r&0x3ff))
}

// Text is s with every unsafe rune, tabs and newlines included, and every
// byte that is not UTF-8 escaped: one line, safe on any terminal.
func Text(s string) string { return escape(s, false) }

// Lines is Text that keeps newlines and tabs: prose, and text shown verbatim.
func Lines(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || keepLines && (c == '\n' || c == '\t') {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || Unsafe(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	out := make([]byte, 0, len(s)+16)
	out = append(out, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c < 0x7f || keepLines && (c == '\n' || c == '\t') {
				out = append(out, c)
			} else {
				out = appendEscape(out, rune(c), false, 0)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = appendEscape(out, 0, true, c)
		case Unsafe(r):
			out = appendEscape(out, r, false, 0)
		default:
			out = append(out, s[i:i+n]...)
		}
		i += n
	}
	return string(out)
}
