package cmd

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
)

// The benchmarks' reference read must read what counters verify reads: the
// same keys of every family, sentinels included.
func TestRawReadCountsWhatVerifyReads(t *testing.T) {
	ctx := context.Background()
	code, out, stderr := runCLI(ctx, []string{"counters", "verify", "-o", "json", "../testdata/store-v3.tar.zst"})
	if code != 0 {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	var rep struct {
		Families []struct {
			Family string `json:"family"`
			Keys   int64  `json:"keys"`
		} `json:"families"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var names string
	want := map[string]int64{}
	for _, f := range rep.Families {
		if names != "" {
			names += ","
		}
		names += f.Family
		want[f.Family] = f.Keys
	}
	code, out, stderr = runCLI(ctx, []string{"rawread", "--families", names, "-o", "json", "../testdata/store-v3.tar.zst"})
	if code != 0 {
		t.Fatalf("rawread: exit %d: %s", code, stderr)
	}
	var got rawReadResult
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Families) != len(want) || len(want) < 10 {
		t.Fatalf("rawread read %d families, verify %d", len(got.Families), len(want))
	}
	for _, f := range got.Families {
		if f.Keys != want[f.Family] || f.Keys == 0 && f.Family != "due_v2" && f.Family != "inflight_v2" {
			t.Errorf("%s: rawread %d keys, verify %d", f.Family, f.Keys, want[f.Family])
		}
	}
	if code, _, _ := runCLI(ctx, []string{"rawread", "--families", "nope", "../testdata/store-v3.tar.zst"}); code != exitcode.Usage {
		t.Errorf("unknown family: exit %d, want %d", code, exitcode.Usage)
	}
}

// --cfs all reads every key of the store, each column family whole: the fixture benchmark's
// count of what a store holds (bench/fixture_bench.sh).
func TestRawReadColumnFamiliesWhole(t *testing.T) {
	ctx := context.Background()
	read := func(args ...string) rawReadResult {
		t.Helper()
		code, out, stderr := runCLI(ctx, append(append([]string{"rawread", "-o", "json"}, args...), "../testdata/store-v3.tar.zst"))
		if code != 0 {
			t.Fatalf("rawread %v: exit %d: %s", args, code, stderr)
		}
		var r rawReadResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	all := read("--cfs", "all")
	if len(all.Families) != 9 {
		t.Fatalf("--cfs all read %d column families, want the 9 of a format 3 store: %+v", len(all.Families), all.Families)
	}
	var keys, bytes, keyBytes int64
	for _, f := range all.Families {
		one := read("--cfs", f.Family)
		if one.Keys != f.Keys || one.Bytes != f.Bytes || one.KeyBytes != f.KeyBytes || f.Keys == 0 || f.KeyBytes < f.Keys || f.KeyBytes > f.Bytes {
			t.Errorf("%s: alone %d keys %d bytes (%d of keys), in all %d keys %d bytes (%d of keys)", f.Family, one.Keys, one.Bytes, one.KeyBytes, f.Keys, f.Bytes, f.KeyBytes)
		}
		keys += f.Keys
		bytes += f.Bytes
		keyBytes += f.KeyBytes
	}
	if all.Keys != keys || all.Bytes != bytes || all.KeyBytes != keyBytes {
		t.Errorf("--cfs all: %d keys %d bytes (%d of keys), its families add up to %d, %d and %d", all.Keys, all.Bytes, all.KeyBytes, keys, bytes, keyBytes)
	}
	// The whole index holds every folded family of it, and more (c, k, u, e).
	due := read("--families", "due,inflight,dead,dead_by_tenant,archive,active")
	if idx := read("--cfs", "index"); idx.Keys <= due.Keys {
		t.Errorf("--cfs index read %d keys, its folded families alone %d", idx.Keys, due.Keys)
	}
	if code, _, _ := runCLI(ctx, []string{"rawread", "--cfs", "nope", "../testdata/store-v3.tar.zst"}); code != exitcode.Usage {
		t.Errorf("unknown column family: exit %d, want %d", code, exitcode.Usage)
	}
}

// --first-of-each-tenant reads one due row of each tenant that has any, and the family's
// two sentinels: what tenants ls reads to show every tenant's oldest due row, the
// reference its benchmark compares it with (bench/scale_bench.sh).
func TestRawReadFirstOfEachTenant(t *testing.T) {
	ctx := context.Background()
	code, out, stderr := runCLI(ctx, []string{"tenants", "ls", "-o", "json", "../testdata/store-v3.tar.zst"})
	if code != 0 {
		t.Fatalf("tenants ls: exit %d: %s", code, stderr)
	}
	var list struct {
		Tenants []struct {
			OldestDueAt *string `json:"oldest_due_at"`
		} `json:"tenants"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	var due int64
	for _, r := range list.Tenants {
		if r.OldestDueAt != nil {
			due++
		}
	}
	code, out, stderr = runCLI(ctx, []string{"rawread", "--first-of-each-tenant", "due", "-o", "json", "../testdata/store-v3.tar.zst"})
	if code != 0 {
		t.Fatalf("rawread: exit %d: %s", code, stderr)
	}
	var got rawReadResult
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if due < 3 || got.Keys != due+2 {
		t.Errorf("rawread read %d due keys; %d tenants have due rows, plus 2 sentinels", got.Keys, due)
	}
	for _, fam := range []string{"hooks", "nope"} {
		if code, _, _ := runCLI(ctx, []string{"rawread", "--first-of-each-tenant", fam, "../testdata/store-v3.tar.zst"}); code != exitcode.Usage {
			t.Errorf("--first-of-each-tenant %s: exit %d, want %d", fam, code, exitcode.Usage)
		}
	}
}
