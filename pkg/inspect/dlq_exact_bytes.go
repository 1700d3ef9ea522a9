package inspect

import (
	"encoding/hex"
	"fmt"
	"unicode/utf8"
)

// exactBytes gives every text field of e that is not UTF-8 its hex twin and says so in
// problems: JSON has no way to carry such bytes in a string (encoding/json writes U+FFFD
// for each, so "caf\xe9" and "caf\xef\xbf\xbd" would both be "caf\ufffd"). The text
// field keeps its value for a reader that only shows it; the twin is the exact bytes.
func exactBytes(e *DLQExportRow, problems []string) []string {
	twin := func(name, v string, hexOf *string) {
		if utf8.ValidString(v) {
			return
		}
		*hexOf = hex.EncodeToString([]byte(v))
		problems = append(problems, fmt.Sprintf("%s is not UTF-8: its bytes are in %s_hex", name, name))
	}
	twin("tenant", e.Tenant, &e.TenantHex)
	twin("source_id", e.SourceID, &e.SourceIDHex)
	twin("hook_id", e.HookID, &e.HookIDHex)
	if e.LastError != nil {
		twin("last_error", *e.LastError, &e.LastErrorHex)
	}
	h := e.Hook
	if h == nil {
		return problems
	}
	twin("hook.id", h.ID, &h.IDHex)
	twin("hook.source_id", h.SourceID, &h.SourceIDHex)
	if h.TenantID != nil {
		twin("hook.tenant_id", *h.TenantID, &h.TenantIDHex)
	}
	if h.IdempotencyKey != nil {
		twin("hook.idempotency_key", *h.IdempotencyKey, &h.IdempotencyKeyHex)
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
			problems = append(problems, fmt.Sprintf("hook %s is not UTF-8: every header's bytes are in hook.headers_hex", b))
		}
	}
	return problems
}
