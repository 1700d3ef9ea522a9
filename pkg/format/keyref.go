package format

import (
	"encoding/hex"
	"fmt"
)

// KeyRef is a key as the reports point at it (`counters verify` findings,
// the detail views): decoded for people, in hex for tools. Its JSON is part
// of those commands' stable output, so both build it here, one way.
type KeyRef struct {
	CF     string `json:"cf"`
	Family string `json:"family"`
	// Key is the decoded key (the key type's String), or why it does not decode.
	Key string `json:"key"`
	Hex string `json:"hex"`
}

// RefTo is the KeyRef of key in column family cf; it never fails: a key that
// does not decode says why in Key.
func RefTo(cf string, key []byte) KeyRef {
	d := DecodeKey(cf, key)
	r := KeyRef{CF: cf, Family: d.Family, Hex: hex.EncodeToString(key)}
	switch {
	case d.Sentinel != "":
		r.Key = d.Family + " " + d.Sentinel + " sentinel"
	case d.Err != nil:
		r.Key = "undecodable: " + d.Err.Error()
	case d.Key != nil:
		r.Key = fmt.Sprint(d.Key)
	default:
		r.Key = "0x" + r.Hex
	}
	return r
}

func (k KeyRef) String() string { return k.Key }
