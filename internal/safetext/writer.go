package safetext

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Mode is what a Writer lets through unescaped, besides printable text, newlines and tabs.
type Mode int

const (
	// Prose lets through the control sequences this tool draws itself: SGR colours
	// of the codes it uses, and the live progress line's "\r\x1b[K".
	Prose Mode = iota
	// Strict lets no control through: TSV on a terminal.
	Strict
	// JSON lets none through and escapes as JSON does inside a string (\u001b, a
	// surrogate pair above U+FFFF): the document stays valid and means the same.
	JSON
)

// Writer escapes, on its way to w, every byte and rune that Unsafe names and every
// byte that is not UTF-8, except what its mode lets through. A rune or a sequence
// of the tool's own split across two writes (a bufio buffer boundary) is held until
// the next write or Flush. Safe for concurrent use (progress draws from its own
// goroutine).
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	mode    func() Mode
	pending []byte
	buf     []byte
}

// NewWriter returns a Writer to w; mode is asked at each write (the output format is
// known only once the flags are parsed).
func NewWriter(w io.Writer, mode func() Mode) *Writer {
	return &Writer{w: w, mode: mode}
}

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	data := p
	if len(w.pending) > 0 {
		data = append(w.pending, p...)
		w.pending = nil
	}
	if plain(data) {
		if _, err := w.w.Write(data); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	out, rest := filter(w.buf[:0], data, w.mode(), false)
	w.pending = append([]byte(nil), rest...)
	w.buf = out[:0]
	if len(out) > 0 {
		if _, err := w.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is held, escaped: a rune or sequence that never completed.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	out, _ := filter(nil, w.pending, w.mode(), true)
	w.pending = nil
	_, err := w.w.Write(out)
	return err
}

// plain: nothing in b needs a look (printable ASCII, newlines, tabs).
func plain(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// filter appends data to out escaped; rest is an incomplete tail held for the next
// write (never when final).
func filter(out, data []byte, mode Mode, final bool) (_, rest []byte) {
	esc := func(out []byte, r rune, invalid bool, b byte) []byte {
		if mode == JSON {
			return appendJSONEscape(out, r, invalid)
		}
		return appendEscape(out, r, invalid, b)
	}
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c >= 0x20 && c < 0x7f, c == '\n', c == '\t':
			out = append(out, c)
			i++
		case c == 0x1b || c == '\r':
			if mode == Prose {
				n, more := ownSequence(data[i:])
				if n > 0 {
					out = append(out, data[i:i+n]...)
					i += n
					continue
				}
				if more && !final {
					return out, data[i:]
				}
			}
			out = esc(out, rune(c), false, 0)
			i++
		case c < utf8.RuneSelf:
			out = esc(out, rune(c), false, 0)
			i++
		default:
			if !final && !utf8.FullRune(data[i:]) {
				return out, data[i:]
			}
			r, n := utf8.DecodeRune(data[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				out = esc(out, 0, true, c)
			case Unsafe(r):
				out = esc(out, r, false, 0)
			default:
				out = append(out, data[i:i+n]...)
			}
			i += n
		}
	}
	return out, nil
}

// ownSGR are the SGR parameters the tool's colours use (cmd's colour constants, and
// the bold header and resets lipgloss draws).
var ownSGR = map[string]bool{"": true, "0": true, "1": true, "2": true, "22": true, "31": true, "32": true, "33": true, "39": true}

// ownSequence: b starts with a sequence the tool draws itself, n bytes long; or
// (more) b is too short to tell.
func ownSequence(b []byte) (n int, more bool) {
	const erase = "\r\x1b[K"
	if b[0] == '\r' {
		if len(b) < len(erase) {
			return 0, string(b) == erase[:len(b)]
		}
		if string(b[:len(erase)]) == erase {
			return len(erase), false
		}
		return 0, false
	}
	// ESC [ params m, or ESC [ K.
	if len(b) < 2 {
		return 0, true
	}
	if b[1] != '[' {
		return 0, false
	}
	start := 2
	for i := start; i < len(b) && i < 24; i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9', c == ';':
			continue
		case c == 'K' && i == start:
			return i + 1, false
		case c == 'm':
			for _, p := range splitParams(b[start:i]) {
				if !ownSGR[p] {
					return 0, false
				}
			}
			return i + 1, false
		default:
			return 0, false
		}
	}
	return 0, len(b) < 24
}

func splitParams(b []byte) []string {
	var ps []string
	last := 0
	for i, c := range b {
		if c == ';' {
			ps = append(ps, string(b[last:i]))
			last = i + 1
		}
	}
	return append(ps, string(b[last:]))
}
