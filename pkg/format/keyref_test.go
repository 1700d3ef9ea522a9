package format

import "testing"

func TestRefTo(t *testing.T) {
	cases := []struct {
		name, cf string
		key      []byte
		family   string
		want     string
	}{
		{"a row", CFIndex, DueKey{Ord: 1, At: 2, Seq: 3, Sink: 4}.Encode(), "due", DueKey{Ord: 1, At: 2, Seq: 3, Sink: 4}.String()},
		{"a sentinel", CFIndex, FamDue.Hi, "due", "due hi sentinel"},
		{"a stray", CFIndex, []byte("D\x00"), "due", "undecodable: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := RefTo(c.cf, c.key)
			if r.CF != c.cf || r.Family != c.family || len(r.Key) < len(c.want) || r.Key[:len(c.want)] != c.want || r.String() != r.Key {
				t.Errorf("RefTo = %+v, want family %s, key starting %q", r, c.family, c.want)
			}
			if r.Hex != encodeHex(c.key) {
				t.Errorf("hex %s, want %x", r.Hex, c.key)
			}
		})
	}
}

func encodeHex(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
