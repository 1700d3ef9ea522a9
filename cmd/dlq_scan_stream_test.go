package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	"github.com/ankusa/ankusa-store/pkg/tenant"
)

// A long dlq scan (--limit 0) is streamed as it is read; it must print what the
// built page prints, byte for byte, on stdout and on stderr, as JSON and as TSV
// (the pages inside the stream: TestStreamDLQIsTheScan).
func TestDLQScanStreamedIsBuilt(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, store := range []string{"../testdata/store-v3.tar.zst", "../testdata/store-v2.tar.zst"} {
		for _, output := range []string{"json", "tsv"} {
			for _, typed := range []string{"", "default", "nobody"} {
				t.Run(fmt.Sprintf("%s/%s/%q", store, output, typed), func(t *testing.T) {
					sio, _, sOut, sErr := iostreams.Test()
					bio, _, bOut, bErr := iostreams.Test()
					senv := &Env{IO: sio, Output: output, Now: func() time.Time { return now }}
					benv := &Env{IO: bio, Output: output, Now: func() time.Time { return now }}
					st, closeStore, err := senv.openStore(store, rocks.Options{Mode: rocks.ReadOnly})
					if err != nil {
						t.Fatal(err)
					}
					defer closeStore()
					var o inspect.DLQOptions
					if typed != "" {
						a, err := tenant.ParseArg(typed)
						if err != nil {
							t.Fatal(err)
						}
						o.Tenant, err = tenant.Resolve(context.Background(), st, a)
						if errors.Is(err, format.ErrNoSuchTenant) {
							o.Tenant, err = format.Tenant{ID: typed}, nil
						}
						if err != nil {
							t.Fatal(err)
						}
					}
					if !inspect.DLQStreamable(o.Limit) {
						t.Fatal("--limit 0 is not streamed")
					}
					if err := streamDLQScan(context.Background(), senv, st, o); err != nil {
						t.Fatal(err)
					}
					page, err := inspect.ScanDLQ(context.Background(), st, o)
					if err != nil {
						t.Fatal(err)
					}
					printViewNotes(benv, page.Notes)
					if err := benv.render(page, func() ui.Rows { return dlqRows(page, now) }); err != nil {
						t.Fatal(err)
					}
					if sOut.String() != bOut.String() || sErr.String() != bErr.String() {
						t.Errorf("streamed\n%s\n%s\nbuilt\n%s\n%s", sOut.String(), sErr.String(), bOut.String(), bErr.String())
					}
					if o.Tenant.IsZero() && bytes.Count(bOut.Bytes(), []byte("\n")) < 10 {
						t.Errorf("too few dead letters to compare:\n%s", bOut.String())
					}
				})
			}
		}
	}
}

// dlq scan --limit 0 through the sorted join writes, on stdout and stderr, what it writes
// reading each delivery row and tenant name by key, byte for byte, as JSON and as piped TSV,
// on the committed store and the one whose dead rows have every problem.
func TestDLQScanJoinIsByKey(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	run := func(args ...string) (int, string, string) {
		io, _, out, errb := iostreams.Test()
		code := Execute(context.Background(), io, BuildInfo{Version: "test", Commit: "none"}, args)
		return code, out.String(), errb.String()
	}
	for _, name := range []string{"store-v3.tar.zst", "health/verify-faults.tar.zst"} {
		store := storetest.Extract(t, name)
		for _, sel := range [][]string{{"--limit", "0"}, {"--limit", "0", "-o", "json"}, {"--limit", "0", "--tenant", "@2"},
			{"--limit", "0", "--sink", "1", "-o", "json"}, {"--limit", "2000", "--since", "1796032000000"}} {
			args := append(append([]string{"dlq", "scan"}, sel...), store)
			code, want, wantErr := run(append(args, "--join", "by-key")...)
			if code != 0 || want == "" {
				t.Fatalf("%s %q by key: exit %d, %d bytes: %s", name, sel, code, len(want), wantErr)
			}
			for _, join := range []string{"sorted", "auto"} {
				code, got, gotErr := run(append(args, "--join", join)...)
				if code != 0 || got != want || gotErr != wantErr {
					t.Errorf("%s %q --join %s: exit %d, stdout same %v, stderr\n%s\nwant\n%s", name, sel, join, code, got == want, gotErr, wantErr)
				}
			}
		}
	}
	if code, _, stderr := run("dlq", "scan", "--limit", "0", "--join", "merge", storetest.Extract(t, "store-v3.tar.zst")); code != 2 || !strings.Contains(stderr, "--join must be auto, sorted or by-key") {
		t.Errorf("--join merge: exit %d, %s", code, stderr)
	}
	// --join sorted reaches the join: with no $TMPDIR to join through, the scan says it reads
	// by key instead, and lists the same rows.
	store := storetest.Extract(t, "store-v3.tar.zst")
	_, want, _ := run("dlq", "scan", "--limit", "0", "--join", "by-key", store)
	t.Setenv("TMPDIR", t.TempDir()+"/gone")
	code, got, stderr := run("dlq", "scan", "--limit", "0", "--join", "sorted", store)
	if code != 0 || got != want || !strings.Contains(stderr, "the scan reads each dead letter's delivery row by key instead") {
		t.Errorf("--join sorted without $TMPDIR: exit %d, stdout same %v, stderr %s", code, got == want, stderr)
	}
}

// A long dlq scan opens the store with its tables' indexes in the block cache (a sorted
// join reads in key order; on the heap they were 170 MiB at 10^8 rows, and the joined scan
// went past 256 MiB), and again with them on the heap when it reads by key after all; a
// page, a table, and --join by-key open once, on the heap. (closing sees the second open
// close first.)
func TestDLQScanOpensForItsReads(t *testing.T) {
	v3, v2 := storetest.Extract(t, "store-v3.tar.zst"), storetest.Extract(t, "store-v2.tar.zst")
	for _, tc := range []struct {
		name, store, join string
		limit             int
		output            string
		onHeap            []bool
	}{
		{"format 3, --limit 0, auto (too small to join)", v3, "auto", 0, "json", []bool{true, false}},
		{"format 3, --limit 0, sorted", v3, "sorted", 0, "json", []bool{false}},
		{"format 3, --limit 0, by key", v3, "by-key", 0, "json", []bool{true}},
		{"format 2, --limit 0, auto", v2, "auto", 0, "json", []bool{true, false}},
		{"format 3, a page", v3, "sorted", 50, "json", []bool{true}},
		{"format 3, --limit 0, a table", v3, "sorted", 0, "table", []bool{true}},
	} {
		streams, _, out, errb := iostreams.Test()
		var onHeap []bool
		env := &Env{IO: streams, Quiet: true, Now: time.Now, Output: tc.output,
			closing: func(st *rocks.Store) { onHeap = append(onHeap, st.DB.IndexOnHeap(format.CFDeliveries)) }}
		if err := runDLQScan(context.Background(), env, &dlqScanOptions{store: tc.store, join: tc.join, limit: tc.limit}); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, errb.String())
		}
		if !slices.Equal(onHeap, tc.onHeap) || out.Len() == 0 {
			t.Errorf("%s: opens with the deliveries' index on the heap %v, want %v (%d bytes out)", tc.name, onHeap, tc.onHeap, out.Len())
		}
	}
}
