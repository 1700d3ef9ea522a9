package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, text, lines string }{
		{"acme", "acme", "acme"},
		{"café ümlaut 日本 …", "café ümlaut 日本 …", "café ümlaut 日本 …"},
		{"a\tb\nc\rd", `a\tb\nc\rd`, "a\tb\nc\\rd"},
		{"\x1b]52;c;cHduZWQ=\x07", `\x1b]52;c;cHduZWQ=\x07`, `\x1b]52;c;cHduZWQ=\x07`},
		{"\x1b[2J\x1b[31m", `\x1b[2J\x1b[31m`, `\x1b[2J\x1b[31m`},
		{"\x00\x7f", `\x00\x7f`, `\x00\x7f`},
		{"\u009b31m", `\u009b31m`, `\u009b31m`},             // C1 CSI as a code point
		{"\x9b31m", `\x9b31m`, `\x9b31m`},                   // C1 CSI as a raw byte (not UTF-8)
		{"abc\u202edcba", `abc\u202edcba`, `abc\u202edcba`}, // right-to-left override
		{"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`, `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"t\U0010ffff", `t\U0010ffff`, `t\U0010ffff`}, // noncharacter
		{"\ufdd0\ufffe\U0001ffff", `\ufdd0\ufffe\U0001ffff`, `\ufdd0\ufffe\U0001ffff`},
		{"\ue000\U000f0000", `\ue000\U000f0000`, `\ue000\U000f0000`}, // private use
		{"\u0378", `\u0378`, `\u0378`},                               // unassigned
		{"a\u200db\u00adc\ufeff", `a\u200db\u00adc\ufeff`, `a\u200db\u00adc\ufeff`},
		{"\u2028\u2029", `\u2028\u2029`, `\u2028\u2029`},
		{"\xff\xfe", `\xff\xfe`, `\xff\xfe`},
		{"\ufffd", "\ufffd", "\ufffd"}, // U+FFFD itself is a character
	} {
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := Lines(tc.in); got != tc.lines {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.lines)
		}
	}
}

// Nothing Text returns holds a control, a bidi control or a rune Unsafe names, whatever
// bytes it was given.
func FuzzText(f *testing.F) {
	for _, s := range []string{"acme", "\x1b[2J", "\u202e", "\U0010ffff", "\xc2", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Text(s), Lines(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%q: not UTF-8: %q", s, out)
			}
			for _, r := range out {
				if Unsafe(r) && r != '\n' && r != '\t' {
					t.Fatalf("%q: %U in %q", s, r, out)
				}
			}
		}
		if strings.ContainsAny(Text(s), "\n\t") {
			t.Fatalf("%q: Text kept a newline or tab", s)
		}
	})
}

func writeAll(t *testing.T, mode Mode, chunks ...string) string {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b, func() Mode { return mode })
	for _, c := range chunks {
		if n, err := w.Write([]byte(c)); err != nil || n != len(c) {
			t.Fatalf("write %q: %d, %v", c, n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriter(t *testing.T) {
	for _, tc := range []struct {
		mode   Mode
		chunks []string
		want   string
	}{
		// The tool's own colours and live line pass in prose, nothing else does.
		{Prose, []string{"\x1b[31mError:\x1b[0m x\n"}, "\x1b[31mError:\x1b[0m x\n"},
		{Prose, []string{"\r\x1b[Kmigrate  10 rows", "\r\x1b[K"}, "\r\x1b[Kmigrate  10 rows\r\x1b[K"},
		{Prose, []string{"\x1b[1;32mok\x1b[22m"}, "\x1b[1;32mok\x1b[22m"},
		{Prose, []string{"\x1b[8mhidden\x1b[30;40m"}, `\x1b[8mhidden\x1b[30;40m`},
		{Prose, []string{"\x1b]52;c;eA==\x07 \x1b[2J \x1b]0;t\x07"}, `\x1b]52;c;eA==\x07 \x1b[2J \x1b]0;t\x07`},
		{Prose, []string{"a\rb"}, `a\rb`},
		{Prose, []string{"\u202e\u2066\U0010ffff\u009b\x9b"}, `\u202e\u2066\U0010ffff\u009b\x9b`},
		// Split across writes: a rune, the tool's own sequence, a hostile one.
		{Prose, []string{"caf\xc3", "\xa9 \xe2\x80", "\xae"}, "café \u202e"[:6] + `\u202e`},
		{Prose, []string{"x\x1b[3", "1mred\r", "\x1b[K"}, "x\x1b[31mred\r\x1b[K"},
		{Prose, []string{"x\x1b[3", "8;5;1m"}, `x\x1b[38;5;1m`},
		{Prose, []string{"end\x1b"}, `end\x1b`},
		// Only ESC[K (erase to the line's end, the live line's) is the tool's own: an
		// erase with a parameter (the whole line, its start: ESC[2K, ESC[1K, ESC[<n>K)
		// is not, whole or split across writes.
		{Prose, []string{"a\x1b[2Kb"}, `a\x1b[2Kb`},
		{Prose, []string{"\x1b[1K\x1b[0K\x1b[12K"}, `\x1b[1K\x1b[0K\x1b[12K`},
		{Prose, []string{"\r\x1b[2Kline"}, `\r\x1b[2Kline`},
		{Prose, []string{"x\x1b[2", "Ky"}, `x\x1b[2Ky`},
		{Prose, []string{"x\x1b[;K"}, `x\x1b[;K`},
		{Prose, []string{"end\xe2\x80"}, `end\xe2\x80`},
		// Strict: not even the tool's own.
		{Strict, []string{"a\x1b[31mb\tc\n"}, "a\\x1b[31mb\tc\n"},
		{Strict, []string{"\r\x1b[K"}, `\r\x1b[K`},
	} {
		if got := writeAll(t, tc.mode, tc.chunks...); got != tc.want {
			t.Errorf("%d %q: %q, want %q", tc.mode, tc.chunks, got, tc.want)
		}
	}
}

// In JSON mode a document stays valid and decodes to the same strings.
func TestWriterJSON(t *testing.T) {
	in := map[string]string{"tenant": "a\x1b[2J\u202e\u009b\x7f\U0010ffff\u2066z", "plain": "acme"}
	doc, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	got := writeAll(t, JSON, s[:20], s[20:37], s[37:])
	if strings.ContainsAny(got, "\x1b\u202e\u009b\x7f\U0010ffff\u2066") {
		t.Fatalf("raw control left: %q", got)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if back["tenant"] != in["tenant"] || back["plain"] != "acme" {
		t.Fatalf("decoded %q, want %q", back, in)
	}
}
