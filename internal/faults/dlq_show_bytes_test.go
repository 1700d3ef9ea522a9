package faults

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// dlq show is exact as dlq export is: a dead letter whose ids, last error, idempotency key
// and a header hold bytes that are not UTF-8 ("caf\xe9"), beside one holding the UTF-8 of
// U+FFFD itself ("caf\xef\xbf\xbd", which JSON would have written the same), gives back the
// planted bytes from -o json (the _hex twins) and names each such field in problems; the
// text view shows the byte as \xe9.
func TestDLQShowExactBytes(t *testing.T) {
	bad, lookalike := []byte("caf\xe9"), []byte("caf\xef\xbf\xbd")
	mk := func(seq uint64, v []byte) deadLetter {
		return deadLetter{tenant: "acme", at: 1796032800000 - seq, seq: seq, sink: 1, sourceID: v, hookID: append([]byte("hk-"), v...), lastError: v,
			hook: format.Envelope{ID: append([]byte("hk-"), v...), SourceID: v, TenantID: []byte("acme"), IdempotencyKey: v, ReceivedAt: 1796032700000,
				Headers: [][2][]byte{{[]byte("x-ok"), []byte("plain")}, {append([]byte("x-"), v...), v}}, Body: v}}
	}
	dir := filepath.Join(t.TempDir(), "store")
	plantDead(t, dir, []deadLetter{mk(1, bad), mk(2, lookalike)})

	for _, c := range []struct {
		ref      string
		v        []byte
		problems int
	}{{"1:1", bad, 8}, {"2:1", lookalike, 0}} {
		r := run(t, "dlq", "show", "-o", "json", c.ref, dir)
		expect(t, r, 0)
		var doc struct {
			DeadLetters []map[string]any `json:"dead_letters"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || len(doc.DeadLetters) != 1 {
			t.Fatalf("%s: %v\n%s", c.ref, err, r)
		}
		dl := doc.DeadLetters[0]
		hook, _ := dl["hook"].(map[string]any)
		delivery, _ := dl["delivery"].(map[string]any)
		got := map[string][]byte{
			"source_id": exact(t, dl, "source_id"), "hook_id": exact(t, dl, "hook_id"), "delivery.last_error": exact(t, delivery, "last_error"),
			"hook.id": exact(t, hook, "id"), "hook.source_id": exact(t, hook, "source_id"), "hook.idempotency_key": exact(t, hook, "idempotency_key"),
		}
		for name, want := range map[string][]byte{"source_id": c.v, "hook_id": append([]byte("hk-"), c.v...), "delivery.last_error": c.v,
			"hook.id": append([]byte("hk-"), c.v...), "hook.source_id": c.v, "hook.idempotency_key": c.v} {
			if string(got[name]) != string(want) {
				t.Errorf("%s: %s is %q, want %q", c.ref, name, got[name], want)
			}
		}
		headers := hook["headers"].([]any)
		hdr := headers[1].([]any)
		if hx, ok := hook["headers_hex"].([]any); ok {
			pair := hx[1].([]any)
			if pair[0] != "782d636166e9" || pair[1] != "636166e9" {
				t.Errorf("%s: headers_hex[1] = %v", c.ref, pair)
			}
		} else if hdr[1] != string(c.v) {
			t.Errorf("%s: header value %q, want %q", c.ref, hdr[1], c.v)
		}
		problems, _ := dl["problems"].([]any)
		if len(problems) != c.problems {
			t.Errorf("%s: %d problems, want %d: %v", c.ref, len(problems), c.problems, problems)
		}
		if c.problems > 0 && !slices.Contains(problems, any("delivery.last_error is not UTF-8: its bytes are in delivery.last_error_hex")) {
			t.Errorf("%s: problems %v do not name delivery.last_error", c.ref, problems)
		}
	}
	text := run(t, "dlq", "show", "-o", "table", "1:1", dir)
	expectOut(t, text, 0, `Last error:       caf\xe9`)
	if strings.Contains(text.Stdout, "\ufffd") {
		t.Fatalf("the text view shows U+FFFD for a byte that is not UTF-8:\n%s", text)
	}
}
