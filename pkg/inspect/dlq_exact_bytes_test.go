package inspect

import (
	"slices"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// Text that is not UTF-8 gets its hex twin and a problem; the UTF-8 of U+FFFD itself, which
// JSON would have carried the same, is text and no problem.
func TestExportDLQExactBytes(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	s.Dead("acme", storetest.QueueMS(-time.Minute), 1, 1, 10, "caf\xe9")
	s.Dead("acme", storetest.QueueMS(-2*time.Minute), 2, 1, 10, "caf\xef\xbf\xbd")
	// The hook of seq 1 again, with a header value and an idempotency key that are not UTF-8.
	s.B.Put(format.CFHooks, format.HookKey{Seq: 1}.Encode(), format.EncodeEnvelope(format.Envelope{ID: []byte(storetest.HookID(1)), SourceID: []byte("src-acme"),
		TenantID: []byte("acme"), IdempotencyKey: []byte("k\xff"), ReceivedAt: 1, Headers: [][2][]byte{{[]byte("a"), []byte("b")}, {[]byte("c"), []byte("\xe9")}}}, false))
	rows, _ := exportAll(t, s.Open(), DLQExportOptions{})
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rows[0]
	if r.LastErrorHex != "636166e9" || r.Hook.IdempotencyKeyHex != "6bff" || r.Hook.IDHex != "" || r.SourceIDHex != "" || r.HookIDHex != "" || r.TenantHex != "" {
		t.Errorf("twins: %+v, hook %+v", r, r.Hook)
	}
	if want := [][2]string{{"61", "62"}, {"63", "e9"}}; !slices.Equal(r.Hook.HeadersHex, want) {
		t.Errorf("headers_hex %q, want %q", r.Hook.HeadersHex, want)
	}
	want := []string{"last_error is not UTF-8: its bytes are in last_error_hex", "hook.idempotency_key is not UTF-8: its bytes are in hook.idempotency_key_hex",
		"hook header 2's value is not UTF-8: every header's bytes are in hook.headers_hex"}
	if !slices.Equal(r.Problems, want) {
		t.Errorf("problems %q, want %q", r.Problems, want)
	}
	if r := rows[1]; r.LastErrorHex != "" || len(r.Problems) != 0 || r.Hook.HeadersHex != nil || *r.LastError != "caf\ufffd" {
		t.Errorf("UTF-8 row: %+v", r)
	}
	if r.AtMS != r.At || r.AtMS == 0 {
		t.Errorf("at_ms %d, at %d", r.AtMS, r.At)
	}
}
