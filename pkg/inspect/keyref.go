package inspect

import (
	"encoding/hex"
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// KeyRef is a key a detail view points at, decoded for people and in hex for
// tools (the same shape as the health check's key references).
type KeyRef struct {
	CF     string `json:"cf"`
	Family string `json:"family"`
	// Key is the decoded key (format's String), or why it does not decode.
	Key string `json:"key"`
	Hex string `json:"hex"`
}

func keyRef(cf string, key []byte) KeyRef {
	d := format.DecodeKey(cf, key)
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
