package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The files status and counters verify write are read by Prometheus' own
// text parser, as node_exporter's textfile collector reads them, and can sit
// in one directory: no metric family is in both (the collector refuses a
// family collected twice with different help).
func TestMetricsFilesParse(t *testing.T) {
	dir := t.TempDir()
	statusFile := filepath.Join(dir, "ankusa_store_status.prom")
	verifyFile := filepath.Join(dir, "ankusa_store_verify.prom")
	store := "../testdata/store-v3.tar.zst"
	if code, _, errOut := runAt(t, "status", "--metrics-file", statusFile, store); code != 0 {
		t.Fatalf("status: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runAt(t, "counters", "verify", "--metrics-file", verifyFile, store); code != 0 {
		t.Fatalf("counters verify: exit %d\n%s", code, errOut)
	}
	parse := func(path string) map[string]*dto.MetricFamily {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		p := expfmt.NewTextParser(model.LegacyValidation)
		fams, err := p.TextToMetricFamilies(f)
		if err != nil {
			t.Fatalf("%s: the Prometheus text parser refuses it: %v", path, err)
		}
		return fams
	}
	st, vf := parse(statusFile), parse(verifyFile)
	for name := range st {
		if _, dup := vf[name]; dup {
			t.Errorf("%s is in both files", name)
		}
	}
	gauge := func(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
		t.Helper()
		f := fams[name]
		if f == nil {
			t.Fatalf("%s missing", name)
		}
		if f.GetType() != dto.MetricType_GAUGE {
			t.Errorf("%s is a %v", name, f.GetType())
		}
	next:
		for _, m := range f.Metric {
			got := map[string]string{}
			for _, l := range m.Label {
				got[l.GetName()] = l.GetValue()
			}
			if got["store"] != store {
				t.Errorf("%s: store label %q", name, got["store"])
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			return m.GetGauge().GetValue()
		}
		t.Fatalf("%s%v: no such sample", name, labels)
		return 0
	}
	checks := []struct {
		fams   map[string]*dto.MetricFamily
		name   string
		labels map[string]string
		want   float64
	}{
		{st, "ankusa_store_tenants", nil, 6},
		{st, "ankusa_store_aggregate_rows", map[string]string{"field": "pending"}, 116},
		{st, "ankusa_store_aggregate_bytes", nil, 86435},
		{st, "ankusa_store_migrating", nil, 0},
		{st, "ankusa_store_rocksdb_newer", nil, 0},
		{st, "ankusa_store_oldest_due_age_seconds", nil, 199.877},
		{st, "ankusa_store_info", map[string]string{"format": "3", "state": "format 3"}, 1},
		{vf, "ankusa_store_verify_healthy", nil, 1},
		{vf, "ankusa_store_verify_findings", map[string]string{"check": "delivery_index_keys"}, 0},
		{vf, "ankusa_store_verify_counter_mismatches", nil, 0},
		{vf, "ankusa_store_verify_tenants", nil, 6},
		{vf, "ankusa_store_verify_aggregate_rows", map[string]string{"field": "dead"}, 107},
	}
	for _, c := range checks {
		if got := gauge(c.fams, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if n := len(vf["ankusa_store_verify_findings"].Metric); n < 17 {
		t.Errorf("findings for %d checks: every check must have its sample, zero included", n)
	}
	for name := range st {
		if strings.HasSuffix(name, "_total") {
			t.Errorf("%s: a gauge named like a counter", name)
		}
	}
	if gauge(vf, "ankusa_store_verify_keys_read", nil) <= 0 || gauge(vf, "ankusa_store_verify_duration_seconds", nil) <= 0 {
		t.Error("keys read and duration must be set")
	}
}

// The findings gauge counts every finding, those the report lists (MaxFindingsPerCheck a
// check) and those it only counts (findings_omitted): a store with more findings of one
// check than the cap exports them all, as the report's verdict counts them.
func TestVerifyMetricsCountFindingsPastTheCap(t *testing.T) {
	dir := storetest.Extract(t, "store-v3.tar.zst")
	const n = health.MaxFindingsPerCheck + 25
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	b := rocks.NewBatch()
	for i := range n {
		// A format 2 due key left in a format 3 store: one format2_key_remains finding each.
		b.Put(format.CFIndex, format.DueV2Key{At: uint64(i), Seq: uint64(i), Sink: 1}.Encode(), format.EncodeSize(1))
	}
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	st.Close()

	prom := filepath.Join(t.TempDir(), "verify.prom")
	code, out, errOut := runAt(t, "counters", "verify", "-o", "json", "--metrics-file", prom, dir)
	if code != exitcode.Findings {
		t.Fatalf("exit %d, want %d\n%s", code, exitcode.Findings, errOut)
	}
	var rep health.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, f := range rep.Findings {
		if f.Check == health.CheckFormat2KeyRemains {
			listed++
		}
	}
	if listed != health.MaxFindingsPerCheck || rep.FindingsOmitted[health.CheckFormat2KeyRemains] != 25 {
		t.Fatalf("the report lists %d and omits %d: the store does not hold the findings the test means", listed, rep.FindingsOmitted[health.CheckFormat2KeyRemains])
	}
	f, err := os.Open(prom)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range fams["ankusa_store_verify_findings"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "check" && l.GetValue() == health.CheckFormat2KeyRemains {
				found = true
				if got := m.GetGauge().GetValue(); got != n {
					t.Errorf("ankusa_store_verify_findings{check=%q} = %v, want %d (%d listed, %d omitted)", health.CheckFormat2KeyRemains, got, n, listed, n-listed)
				}
			}
		}
	}
	if !found {
		t.Fatalf("no findings gauge for %s", health.CheckFormat2KeyRemains)
	}
	// The report says what it did not list, as a note worded by internal/ui's printer.
	_, report, _ := runAt(t, "counters", "verify", "-o", "table", dir)
	if want := "\nnote: 25 more " + health.CheckFormat2KeyRemains + " findings not listed\n"; !strings.Contains(report, want) {
		t.Errorf("the report does not say %q:\n%s", want[1:len(want)-1], report)
	}
}
