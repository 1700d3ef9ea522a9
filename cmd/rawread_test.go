package cmd

import (
	"context"
	"encoding/json"
	"testing"
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
	if code, _, _ := runCLI(ctx, []string{"rawread", "--families", "nope", "../testdata/store-v3.tar.zst"}); code != ExitUsage {
		t.Errorf("unknown family: exit %d, want %d", code, ExitUsage)
	}
}
