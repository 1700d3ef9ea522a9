package metrics

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads b as Prometheus' own text parser does (the one node_exporter's
// textfile collector uses).
func parse(t testing.TB, b []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the Prometheus text parser refuses the file: %v\n%s", err, b)
	}
	return fams
}

func TestWriteParsesWithPrometheus(t *testing.T) {
	var s Set
	s.Bool("ankusa_store_verify_healthy", "1 when the store is healthy.", true)
	s.Gauge("ankusa_store_verify_findings", "Findings per check.", 2, Label{"check", "active_marker_missing"})
	s.Gauge("ankusa_store_verify_findings", "Findings per check.", 0, Label{"check", "bad_key"})
	s.Gauge("ankusa_store_verify_duration_seconds", "How long it took.", 1.25)
	s.Gauge("ankusa_store_tenant_info", "Odd label values.", 1, Label{"tenant", "a\"b\\c\nd zürich-東京-🚀"})
	s.Add("ankusa_store_runs_total", "Runs.", Counter, 3)
	var b bytes.Buffer
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	fams := parse(t, b.Bytes())
	tests := []struct {
		name  string
		typ   dto.MetricType
		n     int
		value float64
	}{
		{"ankusa_store_verify_healthy", dto.MetricType_GAUGE, 1, 1},
		{"ankusa_store_verify_findings", dto.MetricType_GAUGE, 2, 2},
		{"ankusa_store_verify_duration_seconds", dto.MetricType_GAUGE, 1, 1.25},
		{"ankusa_store_tenant_info", dto.MetricType_GAUGE, 1, 1},
		{"ankusa_store_runs_total", dto.MetricType_COUNTER, 1, 3},
	}
	for _, tc := range tests {
		f := fams[tc.name]
		if f == nil {
			t.Errorf("%s: missing", tc.name)
			continue
		}
		if f.GetType() != tc.typ || len(f.Metric) != tc.n {
			t.Errorf("%s: type %v with %d samples, want %v with %d", tc.name, f.GetType(), len(f.Metric), tc.typ, tc.n)
		}
		m := f.Metric[0]
		got := m.GetGauge().GetValue()
		if tc.typ == dto.MetricType_COUNTER {
			got = m.GetCounter().GetValue()
		}
		// Samples are sorted by label: active_marker_missing comes first.
		if got != tc.value {
			t.Errorf("%s: first sample %v, want %v", tc.name, got, tc.value)
		}
	}
	if v := fams["ankusa_store_tenant_info"].Metric[0].Label[0].GetValue(); v != "a\"b\\c\nd zürich-東京-🚀" {
		t.Errorf("label value round-trips as %q", v)
	}
}

func TestSetRefusesBadNames(t *testing.T) {
	tests := []struct {
		name string
		add  func(*Set)
		want string
	}{
		{"bad name", func(s *Set) { s.Gauge("ankusa-store", "", 1) }, "not a Prometheus name"},
		{"counter without _total", func(s *Set) { s.Add("ankusa_store_runs", "", Counter, 1) }, "must end in _total"},
		{"gauge with _total", func(s *Set) { s.Gauge("ankusa_store_keys_total", "", 1) }, "must not end in _total"},
		{"two types", func(s *Set) { s.Gauge("ankusa_store_x", "", 1); s.Add("ankusa_store_x", "", Counter, 1) }, "added as gauge and as counter"},
		{"bad label", func(s *Set) { s.Gauge("ankusa_store_x", "", 1, Label{"cf-name", "x"}) }, "not a Prometheus label name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Set
			tc.add(&s)
			err := s.Write(&bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Write: %v, want an error with %q", err, tc.want)
			}
			path := filepath.Join(t.TempDir(), "m.prom")
			if err := WriteFile(path, &s); err == nil {
				t.Fatal("WriteFile wrote a bad set")
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("a refused set left a file: %v", err)
			}
		})
	}
}

// TestWriteFileIsAtomic rewrites one file many times, each version of very
// different length, while readers read it as the textfile collector would:
// every read must be one whole version, parsed by Prometheus' parser.
func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ankusa_store.prom")
	version := func(i int) *Set {
		var s Set
		s.Gauge("ankusa_store_version_written", "Which write this is.", float64(i))
		// Versions alternate between a few lines and two thousand, so that
		// a reader racing a plain rewrite would see a truncated file.
		n := 1 + (i%2)*2000
		for j := 0; j < n; j++ {
			s.Gauge("ankusa_store_family_estimated_keys", "Padding.", float64(j), Label{"cf", fmt.Sprintf("cf%05d", j)})
		}
		s.Gauge("ankusa_store_end", "The last line.", float64(i))
		return &s
	}
	if err := WriteFile(path, version(0)); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				b, err := os.ReadFile(path)
				if err != nil {
					errs <- err
					return
				}
				p := expfmt.NewTextParser(model.LegacyValidation)
				fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
				if err != nil {
					errs <- fmt.Errorf("a reader saw a file the parser refuses: %v", err)
					return
				}
				w, e := fams["ankusa_store_version_written"], fams["ankusa_store_end"]
				if w == nil || e == nil || w.Metric[0].GetGauge().GetValue() != e.Metric[0].GetGauge().GetValue() {
					errs <- fmt.Errorf("a reader saw half a file (%d bytes)", len(b))
					return
				}
				want := 1 + int(w.Metric[0].GetGauge().GetValue())%2*2000
				if got := len(fams["ankusa_store_family_estimated_keys"].Metric); got != want {
					errs <- fmt.Errorf("a reader saw %d padding lines, want %d", got, want)
					return
				}
				reads.Add(1)
			}
		}()
	}
	for i := 1; i <= 40; i++ {
		if err := WriteFile(path, version(i)); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if reads.Load() == 0 {
		t.Fatal("no read ran while the file was rewritten")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
}

// A metrics path that is a symbolic link (relative, chained, or to a file not written yet)
// is written through: the file it points at gets the new content and the links stay links.
func TestWriteFileThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "real", "a.prom")
	mid := filepath.Join(dir, "mid.prom")
	link := filepath.Join(dir, "link.prom")
	if err := os.Symlink("real/a.prom", mid); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mid, link); err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{1, 2} {
		var s Set
		s.Gauge("x", "x.", v)
		if err := WriteFile(link, &s); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(target)
		if err != nil || !strings.Contains(string(b), fmt.Sprintf("\nx %v\n", v)) {
			t.Fatalf("target after writing %v: %q, %v", v, b, err)
		}
	}
	for _, p := range []string{link, mid} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link (%v)", p, err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "real")); len(ents) != 1 {
		t.Errorf("left beside the target: %v", ents)
	}
}

// node_exporter reads the file as its own user: the mode is 0644 whatever the umask and
// whatever the file it replaces (internal/faults reads it as another uid, through the
// commands).
func TestWriteFileModeIsWorldReadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ankusa_store.prom")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var s Set
	s.Gauge("ankusa_store_up", "Up.", 1)
	old := syscall.Umask(0o077)
	err := WriteFile(path, &s)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("the metrics file is mode %v, want -rw-r--r-- (node_exporter runs as another user)", fi.Mode())
	}
}
