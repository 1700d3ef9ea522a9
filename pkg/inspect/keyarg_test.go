package inspect

import (
	"bytes"
	"strings"
	"testing"
)

// A key is given as hex or as an Elixir node logs it: inspect/1 of a binary that is not
// text prints decimal bytes between << and >>, wrapped over several lines when long.
func TestParseKeyHexElixirBinary(t *testing.T) {
	want := []byte{88, 0, 0, 0, 1, 0, 0, 1, 162, 43, 226, 189, 116, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2}
	for _, in := range []string{
		"58000000010000 01a22be2bd7400000000000000010002",
		"<<88, 0, 0, 0, 1, 0, 0, 1, 162, 43, 226, 189, 116, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2>>",
		"<<88,0,0,0,1,0,0,1,162,43,226,189,116,0,0,0,0,0,0,0,1,0,2>>",
		// inspect's pretty printer at 80 columns, as pasted from a log.
		"<<88, 0, 0, 0, 1, 0, 0, 1, 162, 43, 226, 189, 116, 0, 0, 0, 0, 0, 0, 0, 1,\n  0, 2>>\n",
		"  <<88, 0, 0, 0, 1, 0, 0, 1, 162, 43, 226, 189, 116, 0, 0, 0, 0, 0, 0, 0, 1, 0,\r\n\t2>>",
	} {
		got, err := ParseKeyHex(in)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ParseKeyHex(%q) = %x, %v; want %x", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"<<88, 0, 0, ...>>":     "inspect cut this binary after 3 bytes",
		"<<88, 0, 256>>":        "element 3",
		"<<88, 0, -1>>":         "element 3",
		"<<88, 0, 0x10>>":       "element 3",
		"<<88, 0":               "ends with >>",
		"<<>>":                  "no bytes",
		"<<88,, 0>>":            "element 2",
		`<<"acme">>`:            "element 1",
		"<<88, 0, 1::size(4)>>": "element 3",
		// Refused in the tool's words: the character, its place, and every form a key takes
		// (encoding/hex said "invalid byte: U+007A 'z'").
		"0x58zz":  `"z" at position 5 is not a hex digit (want hex, 44000000..., 0x-hex, 0x44000000..., or an Elixir binary as a node logs it`,
		"0x5 8 0": "3 hex digits, an odd number (a byte is two digits; want hex",
	} {
		if got, err := ParseKeyHex(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseKeyHex(%q) = %x, %v; want an error saying %q", in, got, err, why)
		}
	}
}
