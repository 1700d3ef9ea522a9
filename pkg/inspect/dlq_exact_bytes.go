package inspect

import (
	"encoding/hex"
	"fmt"
	"unicode/utf8"
)

// JSON has no way to carry bytes that are not UTF-8 in a string (encoding/json writes U+FFFD
// for each, so "caf\xe9" and "caf\xef\xbf\xbd" would both be "caf\ufffd"). So a dead letter,
// as dlq show and dlq export write it, is exact: every text field that is not UTF-8 keeps its
// value for a reader that only shows it, gets a twin NAME_hex with its exact bytes, and is
// named in problems.

// hexTwin sets *hexOf to v's bytes in hex, and says so in problems, when v is not UTF-8.
func hexTwin(problems []string, name, v string, hexOf *string) []string {
	if utf8.ValidString(v) {
		return problems
	}
	*hexOf = hex.EncodeToString([]byte(v))
	return append(problems, fmt.Sprintf("%s is not UTF-8: its bytes are in %s_hex", name, name))
}

// exactBytes gives the hook's text fields that are not UTF-8 their twins; prefix names the
// hook in problems ("hook.").
func (h *HookDetail) exactBytes(problems []string, prefix string) []string {
	if h == nil {
		return problems
	}
	problems = hexTwin(problems, prefix+"id", h.ID, &h.IDHex)
	problems = hexTwin(problems, prefix+"source_id", h.SourceID, &h.SourceIDHex)
	if h.TenantID != nil {
		problems = hexTwin(problems, prefix+"tenant_id", *h.TenantID, &h.TenantIDHex)
	}
	if h.IdempotencyKey != nil {
		problems = hexTwin(problems, prefix+"idempotency_key", *h.IdempotencyKey, &h.IdempotencyKeyHex)
	}
	var bad []string
	for i, kv := range h.Headers {
		for j, part := range []string{"name", "value"} {
			if !utf8.ValidString(kv[j]) {
				bad = append(bad, fmt.Sprintf("header %d's %s", i+1, part))
			}
		}
	}
	if len(bad) > 0 {
		h.HeadersHex = make([][2]string, len(h.Headers))
		for i, kv := range h.Headers {
			h.HeadersHex[i] = [2]string{hex.EncodeToString([]byte(kv[0])), hex.EncodeToString([]byte(kv[1]))}
		}
		for _, b := range bad {
			problems = append(problems, fmt.Sprintf("hook %s is not UTF-8: every header's bytes are in %sheaders_hex", b, prefix))
		}
	}
	return problems
}

// exactBytes gives every text field of an export line that is not UTF-8 its twin.
func (e *DLQExportRow) exactBytes(problems []string) []string {
	problems = hexTwin(problems, "tenant", e.Tenant, &e.TenantHex)
	problems = hexTwin(problems, "source_id", e.SourceID, &e.SourceIDHex)
	problems = hexTwin(problems, "hook_id", e.HookID, &e.HookIDHex)
	if e.LastError != nil {
		problems = hexTwin(problems, "last_error", *e.LastError, &e.LastErrorHex)
	}
	return e.Hook.exactBytes(problems, "hook.")
}

// exactBytes gives every text field of a dead letter dlq show shows that is not UTF-8 its
// twin.
func (d *DeadLetter) exactBytes() {
	d.Problems = hexTwin(d.Problems, "tenant", d.Tenant, &d.TenantHex)
	d.Problems = hexTwin(d.Problems, "source_id", d.SourceID, &d.SourceIDHex)
	d.Problems = hexTwin(d.Problems, "hook_id", d.HookID, &d.HookIDHex)
	if d.Delivery != nil && d.Delivery.LastError != nil {
		d.Problems = hexTwin(d.Problems, "delivery.last_error", *d.Delivery.LastError, &d.Delivery.LastErrorHex)
	}
	d.Problems = d.Hook.exactBytes(d.Problems, "hook.")
}
