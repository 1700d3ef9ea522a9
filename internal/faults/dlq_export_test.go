package faults

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// deadLetter is what a test plants of one dead letter: every byte string as the node
// would write it, whatever it is.
type deadLetter struct {
	tenant           string
	at, seq          uint64
	sink             uint16
	sourceID, hookID []byte
	lastError        []byte
	hook             format.Envelope
}

// plantDead writes dead letters into a new format 3 store (storetest's writer: the dead
// row, its dead-by-tenant key, its delivery row, its hook and the counters), in batches.
func plantDead(t *testing.T, dir string, dls []deadLetter) {
	t.Helper()
	st := storetest.Create(t, dir, format.Format3, rocks.Tuning{})
	w := storetest.NewWriter(format.Format3)
	for i, d := range dls {
		o := w.Ord(d.tenant)
		w.B.Put(format.CFHooks, format.HookKey{Seq: d.seq}.Encode(), format.EncodeEnvelope(d.hook, false))
		w.B.Put(format.CFDeliveries, format.DeliveryKey{Seq: d.seq, Sink: d.sink}.Encode(), format.EncodeDelivery(format.Delivery{
			Sink: d.sink, Status: format.StatusDead, Attempts: 3, Size: uint64(len(d.hook.Body)), LastError: d.lastError, LastErrorNil: d.lastError == nil}))
		k := format.DeadKey{At: d.at, Seq: d.seq, Sink: d.sink}
		w.B.Put(format.CFIndex, k.Encode(), format.DeadValue{SourceID: d.sourceID, ID: d.hookID, Ord: o, HasOrd: true}.Encode())
		w.B.Put(format.CFIndex, k.ByTenant(o).Encode(), nil)
		w.Deltas.Add(o, format.FieldDead, 1)
		w.Deltas.Add(o, format.FieldBytes, int64(len(d.hook.Body)))
		if (i+1)%2000 == 0 {
			w.Commit(t, st, false)
		}
	}
	w.Commit(t, st, true)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// exact is a text field of an export line as its bytes: the _hex twin when there is one,
// else the text.
func exact(t *testing.T, obj map[string]any, name string) []byte {
	t.Helper()
	if h, ok := obj[name+"_hex"].(string); ok {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatalf("%s_hex %q: %v", name, h, err)
		}
		return b
	}
	s, ok := obj[name].(string)
	if !ok {
		t.Fatalf("%s is %v, not a string", name, obj[name])
	}
	return []byte(s)
}

// TestDLQExportExactBytes is issue 26's ninth case: text that is not UTF-8 in a header
// value, last_error, source_id or the hook ids was exported as U+FFFD ("caf\xe9" and
// "caf\xef\xbf\xbd", the UTF-8 of U+FFFD itself, both "caf\ufffd"), problems: []. Each
// field is decoded back from the real command's lines to the bytes planted, and each one
// that is not UTF-8 is named in problems; a line without such bytes has none; every line
// has at_ms, the same as at.
func TestDLQExportExactBytes(t *testing.T) {
	bad, lookalike := []byte("caf\xe9"), []byte("caf\xef\xbf\xbd")
	mk := func(seq uint64, v []byte) deadLetter {
		return deadLetter{tenant: "acme", at: 1796032800000 - seq, seq: seq, sink: 1, sourceID: v, hookID: append([]byte("hk-"), v...), lastError: v,
			hook: format.Envelope{ID: append([]byte("hk-"), v...), SourceID: v, TenantID: []byte("acme"), IdempotencyKey: v, ReceivedAt: 1796032700000,
				Headers: [][2][]byte{{[]byte("x-ok"), []byte("plain")}, {append([]byte("x-"), v...), v}}, Body: v}}
	}
	dls := []deadLetter{mk(1, bad), mk(2, lookalike), mk(3, []byte("plain"))}
	dir := filepath.Join(t.TempDir(), "store")
	plantDead(t, dir, dls)

	r := run(t, "dlq", "export", dir)
	expect(t, r, 0, "warning: 1 exported dead letter has problems")
	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	if len(lines) != len(dls) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(dls), r)
	}
	for i, line := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, line)
		}
		d := dls[i] // newest first: seq 1 is the newest
		if obj["ref"] != fmt.Sprintf("%d:%d", d.seq, d.sink) {
			t.Fatalf("line %d is %v, want seq %d", i+1, obj["ref"], d.seq)
		}
		if obj["at_ms"] != float64(d.at) || obj["at"] != float64(d.at) {
			t.Errorf("line %d: at_ms %v, at %v; want %d", i+1, obj["at_ms"], obj["at"], d.at)
		}
		hook, _ := obj["hook"].(map[string]any)
		if hook == nil {
			t.Fatalf("line %d has no hook: %s", i+1, line)
		}
		got := map[string][]byte{
			"source_id": exact(t, obj, "source_id"), "hook_id": exact(t, obj, "hook_id"), "last_error": exact(t, obj, "last_error"),
			"hook.id": exact(t, hook, "id"), "hook.source_id": exact(t, hook, "source_id"), "hook.idempotency_key": exact(t, hook, "idempotency_key"),
		}
		want := map[string][]byte{
			"source_id": d.sourceID, "hook_id": d.hookID, "last_error": d.lastError,
			"hook.id": d.hook.ID, "hook.source_id": d.hook.SourceID, "hook.idempotency_key": d.hook.IdempotencyKey,
		}
		for k, w := range want {
			if !bytes.Equal(got[k], w) {
				t.Errorf("line %d: %s is %q, the store holds %q", i+1, k, got[k], w)
			}
		}
		// Headers: headers_hex, when there, is every header; else the text is exact.
		var headers [][2][]byte
		if hh, ok := hook["headers_hex"].([]any); ok {
			for _, p := range hh {
				pair := p.([]any)
				n, _ := hex.DecodeString(pair[0].(string))
				v, _ := hex.DecodeString(pair[1].(string))
				headers = append(headers, [2][]byte{n, v})
			}
		} else {
			for _, p := range hook["headers"].([]any) {
				pair := p.([]any)
				headers = append(headers, [2][]byte{[]byte(pair[0].(string)), []byte(pair[1].(string))})
			}
		}
		if fmt.Sprintf("%q", headers) != fmt.Sprintf("%q", d.hook.Headers) {
			t.Errorf("line %d: headers %q, the store holds %q", i+1, headers, d.hook.Headers)
		}
		body := []byte(fmt.Sprint(hook["body_text"]))
		if h, ok := hook["body_hex"].(string); ok {
			body, _ = hex.DecodeString(h)
		}
		if !bytes.Equal(body, d.hook.Body) {
			t.Errorf("line %d: body %q, the store holds %q", i+1, body, d.hook.Body)
		}
		var problems []string
		for _, p := range obj["problems"].([]any) {
			problems = append(problems, p.(string))
		}
		if d.seq != 1 {
			if len(problems) != 0 {
				t.Errorf("line %d (UTF-8 throughout) has problems %q", i+1, problems)
			}
			continue
		}
		for _, f := range []string{"source_id", "hook_id", "last_error", "hook.id", "hook.source_id", "hook.idempotency_key"} {
			if !strings.Contains(strings.Join(problems, "\n"), f+" is not UTF-8: its bytes are in "+f+"_hex") {
				t.Errorf("line %d: problems %q do not name %s", i+1, problems, f)
			}
		}
		for _, f := range []string{"header 2's name", "header 2's value"} {
			if !strings.Contains(strings.Join(problems, "\n"), "hook "+f+" is not UTF-8") {
				t.Errorf("line %d: problems %q do not name the %s", i+1, problems, f)
			}
		}
	}
}

// TestDLQExportInterrupted: an export stopped by SIGINT half-way said "nothing was written"
// after 11,264 lines had reached stdout. The run is stopped after its first line (stdout a
// pipe the test stops reading, so the export is mid-way whatever the machine's speed); the
// lines on stdout are counted, each whole, and the message says that count.
func TestDLQExportInterrupted(t *testing.T) {
	var dls []deadLetter
	body := []byte(strings.Repeat("x", 600))
	for seq := uint64(1); seq <= 20000; seq++ {
		dls = append(dls, deadLetter{tenant: "acme", at: 1796032800000 - seq, seq: seq, sink: 1, sourceID: []byte("src"), hookID: []byte("hk"),
			hook: format.Envelope{ID: []byte("hk"), SourceID: []byte("src"), TenantID: []byte("acme"), ReceivedAt: 1796032700000, Body: body}})
	}
	dir := filepath.Join(t.TempDir(), "store")
	plantDead(t, dir, dls)

	c := exec.Command(bin, "dlq", "export", dir)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReaderSize(out, 1<<20)
	first, err := rd.ReadBytes('\n')
	if err != nil {
		t.Fatalf("no first line: %v (%s)", err, errb.String())
	}
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	werr := c.Wait()
	code := -1
	if ee, ok := werr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	all := append(first, rest...)
	n := bytes.Count(all, []byte("\n"))
	if code != 130 {
		t.Fatalf("exit %d (%v) after %d lines, want 130: the export was not interrupted mid-way\nstderr %s", code, werr, n, errb.String())
	}
	if n >= len(dls) || !bytes.HasSuffix(all, []byte("}\n")) {
		t.Fatalf("%d lines of %d, the last %q: not a whole prefix of the export", n, len(dls), all[max(0, len(all)-40):])
	}
	for i, l := range bytes.Split(bytes.TrimSuffix(all, []byte("\n")), []byte("\n")) {
		if !json.Valid(l) {
			t.Fatalf("line %d is not whole JSON: %.80q", i+1, l)
		}
	}
	m := regexp.MustCompile(`Error: interrupted: ([0-9,]+) lines? written to stdout, the newest dead letters first \(the export is not complete\)`).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("the message does not say how many lines were written:\n%s", errb.String())
	}
	said, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if said != n {
		t.Fatalf("the message says %d lines, stdout has %d:\n%s", said, n, errb.String())
	}
	if strings.Contains(errb.String(), "nothing was written") {
		t.Fatalf("says nothing was written after %d lines:\n%s", n, errb.String())
	}
	t.Logf("interrupted after %d of %d lines: %s", n, len(dls), strings.TrimSpace(errb.String()))
}
