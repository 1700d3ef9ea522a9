package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Every line dlq export writes is one JSON object with every field of its documented
// schema (dlqExportLine, generated into docs/commands.md), and the lines are the rows
// dlq scan lists, in its order.
func TestDLQExportJSONLines(t *testing.T) {
	store := storetest.Extract(t, "store-v3.tar.zst")
	run := func(args ...string) []byte {
		t.Helper()
		io, _, out, errb := iostreams.Test()
		if code := Execute(context.Background(), io, BuildInfo{Version: "test", Commit: "none"}, args); code != 0 {
			t.Fatalf("%q exited %d: %s", args, code, errb.String())
		}
		return out.Bytes()
	}
	var page struct {
		Rows []struct {
			Ref string `json:"ref"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(run("dlq", "scan", "--limit", "0", "-o", "json", store), &page); err != nil {
		t.Fatal(err)
	}
	zero, err := json.Marshal(dlqExportLine{})
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(zero, &schema); err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(maps.Keys(schema))
	sc := bufio.NewScanner(bytes.NewReader(run("dlq", "export", store)))
	sc.Buffer(nil, 1<<20)
	n := 0
	for ; sc.Scan(); n++ {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", n+1, err, sc.Bytes())
		}
		if got := slices.Sorted(maps.Keys(line)); !slices.Equal(got, want) {
			t.Fatalf("line %d has fields %q, the schema %q", n+1, got, want)
		}
		if line["schema"] != float64(ui.JSONSchema) {
			t.Errorf("line %d: schema %v", n+1, line["schema"])
		}
		if n < len(page.Rows) && line["ref"] != page.Rows[n].Ref {
			t.Errorf("line %d is %v, dlq scan's row %d is %s", n+1, line["ref"], n+1, page.Rows[n].Ref)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(page.Rows) || n == 0 {
		t.Errorf("%d lines, dlq scan lists %d rows", n, len(page.Rows))
	}
}

// The line dlqExportPlan writes is what encoding/json writes for dlqExportLine, byte for byte: for
// every dead letter of both committed stores, and for the rows they do not have (no hook,
// a hook that did not decode, a body in hex, text JSON must escape, a time with a
// millisecond of zero).
func TestDLQExportLineIsEncodingJSON(t *testing.T) {
	var rows []inspect.DLQExportRow
	for _, name := range []string{"store-v3.tar.zst", "store-v2.tar.zst"} {
		st, err := rocks.OpenStore(storetest.Extract(t, name), rocks.Options{Mode: rocks.ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		_, err = inspect.ExportDLQ(context.Background(), st, inspect.DLQExportOptions{}, func(r *inspect.DLQExportRow) error {
			rows = append(rows, *r)
			return nil
		})
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(rows) < 200 {
		t.Fatalf("only %d dead letters in the committed stores", len(rows))
	}
	s := func(v string) *string { return &v }
	ord := uint32(7)
	rows = append(rows,
		inspect.DLQExportRow{Ref: "1:2", DeadAt: time.UnixMilli(1796032800000).UTC(), Tenant: "z\u00fcrich \"q\" \\ \t\n\x01 <&> \u2028\u2029 \xff", Problems: []string{}},
		inspect.DLQExportRow{Ref: "3:4", Ord: &ord, LastError: s("HTTP 500\r\n"), DeadAt: time.UnixMilli(1796032800120).UTC(),
			Hook: &inspect.HookDetail{Headers: [][2]string{}, Error: "missing", ReceivedAt: time.UnixMilli(0).UTC()}, Problems: []string{"the hook is missing", "two"}},
		inspect.DLQExportRow{Ref: "5:6", DeadAt: time.UnixMilli(-1).UTC(), Hook: &inspect.HookDetail{ID: "hk", TenantID: s(""), IdempotencyKey: s("k"),
			Headers: [][2]string{{"a", "b"}, {"c\"", "\u0000"}}, BodyBytes: 2, BodyHex: s("ff00"), ReceivedAt: time.UnixMilli(1796032800001).UTC(), ReceivedAtMS: 1796032800001}},
		// Every _hex twin there (text that is not UTF-8), the hook's after its error.
		inspect.DLQExportRow{Ref: "7:8", AtMS: 9, At: 9, DeadAt: time.UnixMilli(9).UTC(), Tenant: "t\xe9", TenantHex: "74e9", SourceID: "s\xe9", SourceIDHex: "73e9",
			HookID: "h\xe9", HookIDHex: "68e9", LastError: s("e\xe9"), LastErrorHex: "65e9",
			Hook: &inspect.HookDetail{ID: "h\xe9", Headers: [][2]string{{"n", "v\xe9"}}, Error: "x",
				IDHex: "68e9", SourceIDHex: "73e9", TenantIDHex: "74e9", IdempotencyKeyHex: "6be9", HeadersHex: [][2]string{{"6e", "76e9"}}},
			Problems: []string{"hook_id is not UTF-8: its bytes are in hook_id_hex"}},
	)
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	for i := range rows {
		want.Reset()
		line := dlqExportLine{Schema: ui.JSONSchema, DLQExportRow: rows[i]}
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
		if got := appendDLQExportLine(nil, &line); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("row %d (%s):\n got %s\nwant %s", i, rows[i].Ref, got, want.Bytes())
		}
	}
}

// --join sorted writes what --join by-key writes, byte for byte, on stdout and
// on stderr, whatever the selection: on the committed store and on one whose
// dead letters have every problem a row can have (verify-faults); --join auto
// on stores this small reads by key. A --join of another name is a usage error.
func TestDLQExportJoinIsByKey(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	run := func(args ...string) (int, string, string) {
		io, _, out, errb := iostreams.Test()
		code := Execute(context.Background(), io, BuildInfo{Version: "test", Commit: "none"}, append([]string{"dlq", "export", "-q"}, args...))
		return code, out.String(), errb.String()
	}
	for _, name := range []string{"store-v3.tar.zst", "health/verify-faults.tar.zst"} {
		store := storetest.Extract(t, name)
		for _, sel := range [][]string{nil, {"--limit", "7"}, {"--tenant", "@2"}, {"--sink", "1"}, {"--since", "1796032000000"}} {
			args := append(append([]string{}, sel...), store)
			code, want, wantErr := run(append([]string{"--join", "by-key"}, args...)...)
			if code != 0 || want == "" {
				t.Fatalf("%s %q by key: exit %d, %d bytes: %s", name, sel, code, len(want), wantErr)
			}
			for _, join := range []string{"sorted", "auto"} {
				code, got, gotErr := run(append([]string{"--join", join}, args...)...)
				if code != 0 || got != want || gotErr != wantErr {
					t.Errorf("%s %q --join %s: exit %d, stdout same %v, stderr\n%s\nwant\n%s", name, sel, join, code, got == want, gotErr, wantErr)
				}
			}
		}
	}
	if code, _, stderr := run("--join", "merge", storetest.Extract(t, "store-v3.tar.zst")); code != 2 || !strings.Contains(stderr, "--join must be auto, sorted or by-key") {
		t.Errorf("--join merge: exit %d, %s", code, stderr)
	}
}

// dlq export opens a store with its tables' indexes in the block cache (a sorted join reads
// in key order; at 10^8 rows the indexes on the heap were some 170 MiB of the export's
// 317), and again with them on the heap once it reads by key after all (too small, in its
// hooks' order, format 2: with them in the cache, 10^6 lookups took four times the CPU);
// with --join by-key, once, on the heap. (closing sees the second open close first.)
func TestDLQExportOpensForItsReads(t *testing.T) {
	v3, v2 := storetest.Extract(t, "store-v3.tar.zst"), storetest.Extract(t, "store-v2.tar.zst")
	for _, tc := range []struct {
		name, store, join string
		onHeap            []bool
	}{
		{"format 3, auto (too small to join)", v3, "auto", []bool{true, false}},
		{"format 3, sorted", v3, "sorted", []bool{false}},
		{"format 3, by key", v3, "by-key", []bool{true}},
		{"format 2, auto", v2, "auto", []bool{true, false}},
	} {
		streams, _, out, errb := iostreams.Test()
		var onHeap []bool
		env := &Env{IO: streams, Quiet: true, Now: time.Now,
			closing: func(st *rocks.Store) { onHeap = append(onHeap, st.DB.IndexOnHeap(format.CFHooks)) }}
		if err := runDLQExport(context.Background(), env, &dlqExportOptions{store: tc.store, join: tc.join}); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, errb.String())
		}
		if !slices.Equal(onHeap, tc.onHeap) || out.Len() == 0 {
			t.Errorf("%s: opens with the hooks' index on the heap %v, want %v (%d bytes out)", tc.name, onHeap, tc.onHeap, out.Len())
		}
	}
}

// dlq export (and dlq show, through the same hook detail) reads a node's plain envelopes and
// delivery rows in place (format.ValueReader), and what it writes is what decoding each
// whole term writes, on the committed stores of both formats (plain and compressed hooks,
// nil and empty fields, headers, values that do not decode). The two runs must also read
// differently, or the comparison compares a way with itself: the whole decode boxes every
// element of a term, some 40 allocations a dead letter more than the in-place reads
// (format.TestValueReaderTakesThePathItIsTold), so the run told to decode whole makes at
// least 10 more a line it writes.
func TestDLQExportReadsValuesAsTheDecoder(t *testing.T) {
	run := func(skim bool, args ...string) (string, uint64) {
		t.Helper()
		io, _, out, errb := iostreams.Test()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code := executeReading(io, skim, args)
		runtime.ReadMemStats(&after)
		if code != 0 || out.Len() == 0 {
			t.Fatalf("%q (in place %v): exit %d, %d bytes: %s", args, skim, code, out.Len(), errb.String())
		}
		return out.String() + errb.String(), after.Mallocs - before.Mallocs
	}
	for _, name := range []string{"store-v3.tar.zst", "store-v2.tar.zst", "health/verify-faults.tar.zst"} {
		store := storetest.Extract(t, name)
		args := []string{"dlq", "export", "-q", "--join", "by-key", store}
		got, inPlace := run(true, args...)
		want, whole := run(false, args...)
		if got != want {
			t.Errorf("%s: dlq export, envelopes read in place:\n%.2000s\nwant, decoded:\n%.2000s", name, got, want)
		}
		lines := uint64(strings.Count(got, "\n"))
		t.Logf("%s: %d lines, %d allocations in place, %d decoded whole", name, lines, inPlace, whole)
		if whole < inPlace+10*lines {
			t.Errorf("%s: %d allocations reading in place, %d decoding whole, for %d lines: the runs did not read differently",
				name, inPlace, whole, lines)
		}
	}
}
