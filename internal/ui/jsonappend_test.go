package ui

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// The hand-written JSON is encoding/json's, byte for byte (HTML escaping off), for the
// strings and times a store may hold: control bytes, quotes, invalid UTF-8, the line
// separators, HTML's characters; times at whole milliseconds and not, UTC and not.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	encode := func(v any) []byte {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	for _, s := range []string{"", "acme", "a\"b\\c", "tab\there\nnl\r\b\f", "\x00\x01\x1f\x7f",
		"bad \xff\xfe utf-8", "\u2028\u2029", "<a&b>", "héllo, 世界", "\xe2\x80"} {
		if got, want := AppendJSONString(nil, s), encode(s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
	for _, tm := range []time.Time{
		time.UnixMilli(0).UTC(), time.UnixMilli(1796032800000).UTC(), time.UnixMilli(1796032800120).UTC(),
		time.UnixMilli(1796032800001).UTC(), time.Unix(1796032800, 123456789).UTC(),
		time.UnixMilli(1796032800500).In(time.FixedZone("x", 3600)), time.Date(999, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		want := encode(tm)
		if got := AppendJSONTime(nil, tm); !bytes.Equal(append(append([]byte{'"'}, got...), '"'), want) {
			t.Errorf("%v: got %s, want %s", tm, got, want)
		}
	}
}
