package faults

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// TestViewsOfADamagedCountersTable is issue 19's first case as it was found: a fixture store
// (20 tenants, 2000 hooks) with 8 bytes flipped inside the first data block of the counters
// family's newest table file, which holds the aggregate's counters and acme's. Every view
// that shows counters exits 3 naming the damaged file, shows each counter it could not read
// as unreadable (null in JSON), never as the zero it was left at; the status metrics file
// has no value for them and an error gauge of 1; the store is not changed.
func TestViewsOfADamagedCountersTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	expect(t, run(t, "fixture", "--format", "3", "--seed", "1", "--tenants", "20", "--hooks", "2000", "--now", migNow, "--dir", dir), 0)

	var clean struct {
		Aggregate map[string]*int64 `json:"aggregate"`
	}
	r := run(t, "status", "-o", "json", dir)
	expect(t, r, 0)
	if err := json.Unmarshal([]byte(r.Stdout), &clean); err != nil || clean.Aggregate["pending"] == nil || *clean.Aggregate["pending"] == 0 {
		t.Fatalf("undamaged status: aggregate %v (%v)", clean.Aggregate, err)
	}

	table := tableOf(t, dir, "counters")
	for off := int64(100); off < 108; off++ {
		flip(t, filepath.Join(dir, table), off)
	}
	before := storetest.TreeOf(t, dir)
	damaged := func(t *testing.T, r result) {
		t.Helper()
		expect(t, r, 3, "Error: ", "could not be read (shown as unreadable)", "corrupt: ", " in "+table, "do not migrate or repair")
		if n := strings.Count(r.Stderr, "Error: "); n != 1 {
			t.Errorf("%d error lines:\n%s", n, r.Stderr)
		}
	}

	prom := filepath.Join(t.TempDir(), "s.prom")
	r = run(t, "status", "--metrics-file", prom, dir)
	damaged(t, r)
	if !strings.Contains(r.Stdout, "\naggregate\tpending=unreadable scheduled=unreadable inflight=unreadable dead=unreadable bytes=unreadable archive_pending=unreadable\n") {
		t.Errorf("status does not show the aggregate as unreadable:\n%s", r)
	}
	if !regexp.MustCompile(`(?m)^aggregate_error\tpending\(1\): .*corrupt: .* in ` + table).MatchString(r.Stdout) {
		t.Errorf("status does not give the reason:\n%s", r)
	}
	b, err := os.ReadFile(prom)
	if err != nil {
		t.Fatal(err)
	}
	m := string(b)
	if regexp.MustCompile(`(?m)^ankusa_store_aggregate_(rows|bytes)\{`).MatchString(m) {
		t.Errorf("the metrics file has values for unreadable counters:\n%s", m)
	}
	for _, f := range []string{"pending", "scheduled", "inflight", "dead", "bytes", "archive_pending"} {
		if !strings.Contains(m, `ankusa_store_aggregate_unreadable{store="`+dir+`",field="`+f+`"} 1`+"\n") {
			t.Errorf("no error gauge for %s:\n%s", f, m)
		}
	}

	r = run(t, "status", "-o", "json", dir)
	damaged(t, r)
	var st struct {
		Aggregate map[string]*int64 `json:"aggregate"`
		Errors    []string          `json:"aggregate_errors"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("status -o json: %v\n%s", err, r)
	}
	if len(st.Aggregate) != 6 || len(st.Errors) == 0 {
		t.Errorf("status -o json: aggregate %v, errors %d", st.Aggregate, len(st.Errors))
	}
	for f, v := range st.Aggregate {
		if v != nil {
			t.Errorf("status -o json: aggregate %s is %d, not null", f, *v)
		}
	}

	r = run(t, "tenants", "show", "acme", dir)
	damaged(t, r)
	if !strings.Contains(r.Stdout, "\npending\tunreadable\n") || strings.Contains(r.Stdout, "\npending\t0\n") {
		t.Errorf("tenants show:\n%s", r)
	}
	r = run(t, "tenants", "show", "-o", "json", "acme", dir)
	damaged(t, r)
	var show struct {
		Counters map[string]*int64 `json:"counters"`
		Due      struct {
			Rows *int64 `json:"rows"`
		} `json:"due"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &show); err != nil {
		t.Fatalf("tenants show -o json: %v\n%s", err, r)
	}
	if show.Counters["pending"] != nil || show.Due.Rows != nil {
		t.Errorf("tenants show -o json: pending %v, due rows %v: want null", show.Counters["pending"], show.Due.Rows)
	}

	for _, args := range [][]string{{"tenants", "ls"}, {"tenants", "ls", "-o", "json"}, {"tenants", "ls", "--sort", "pending"}} {
		r = run(t, append(args, dir)...)
		if r.Signaled || r.Code != 3 || !strings.Contains(r.Stderr, " in "+table) {
			t.Errorf("%v: want exit 3 naming %s: %s", args, table, r)
		}
		if regexp.MustCompile(`(?m)^1\tacme\t0\t`).MatchString(r.Stdout) || strings.Contains(r.Stdout, "\"tenant\": \"acme\",\n      \"pending\": 0,") {
			t.Errorf("%v shows a zero it could not read:\n%s", args, r)
		}
	}
	storetest.SameTree(t, before, storetest.TreeOf(t, dir))
}
