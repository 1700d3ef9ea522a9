package faults

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// The metrics file always describes the last run (issue 19): a healthy verify, then the same
// command after real damage that stops it before a verdict (a flipped MANIFEST, a truncated
// table file), leaves a file that says the run failed and has no health gauge; a file system
// too full for the file keeps the findings and their exit status, and says so on stderr.
func TestMetricsFileAfterAFailedRun(t *testing.T) {
	for _, c := range damageCases {
		if c.name != "MANIFEST" && c.name != "truncated table file" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			dir := extract(t, "store-v3", t.TempDir())
			prom := filepath.Join(t.TempDir(), "st.prom")
			expect(t, run(t, "counters", "verify", "--metrics-file", prom, dir), 0)
			if m := readFile(t, prom); !strings.Contains(m, "ankusa_store_verify_healthy{") {
				t.Fatalf("healthy run:\n%s", m)
			}
			c.damage(t, dir, tableOf(t, dir, "counters"))
			expect(t, run(t, "counters", "verify", "--metrics-file", prom, dir), 3)
			m := readFile(t, prom)
			for _, want := range []string{`ankusa_store_verify_success{store="` + dir + `"} 0`, `ankusa_store_verify_exit_code{store="` + dir + `"} 3`} {
				if !strings.Contains(m, want+"\n") {
					t.Errorf("no %q in:\n%s", want, m)
				}
			}
			if !regexp.MustCompile(`(?m)^ankusa_store_verify_error\{store="[^"]*",class="(corruption|store)"\} 1$`).MatchString(m) {
				t.Errorf("no error class in:\n%s", m)
			}
			if regexp.MustCompile(`verify_healthy|verify_corrupt|verify_findings`).MatchString(m) {
				t.Errorf("a health gauge from a run with no verdict:\n%s", m)
			}
		})
	}
	t.Run("full file system", func(t *testing.T) {
		mnt := storetest.MountTmpfs(t, 1<<20)
		prom := filepath.Join(mnt, "st.prom")
		store := filepath.Join(storetest.Testdata(), "health", "verify-faults.tar.zst")
		expect(t, run(t, "counters", "verify", "--metrics-file", prom, store), 1)
		before := readFile(t, prom)
		free := storetest.Fill(t, mnt)
		defer free()
		r := run(t, "counters", "verify", "-o", "tsv", "--metrics-file", prom, store)
		expect(t, r, 1, "error: --metrics-file "+prom+" not written (the result above stands): ", "no space left on device", "verdict: 6 findings")
		if !strings.Contains(r.Stdout, "counter_mismatch\t1\tacme\tpending\t7\t5\t-2\t") {
			t.Errorf("the report is lost:\n%s", r)
		}
		if readFile(t, prom) != before {
			t.Errorf("a write that failed changed the file")
		}
		if ents, _ := filepath.Glob(filepath.Join(mnt, ".st.prom.tmp-*")); len(ents) > 0 {
			t.Errorf("temporary files left: %v", ents)
		}
	})
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// node_exporter reads the metrics file as its own user: a file the tool (root, under a timer
// whose umask may be 077) wrote must be readable by another uid, a fresh file and one
// replacing the last run's alike. Root reads any mode, so the reader is cat as nobody.
func TestMetricsFileReadableByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatalf("reading the metrics file as uid %d needs root (CI runs as root); refusing to skip", nobodyID)
	}
	dir := reachableDir(t)
	prom := filepath.Join(dir, "ankusa.prom")
	store := extract(t, "store-v3", t.TempDir())
	for _, args := range [][]string{
		{"status", "--metrics-file", prom, store},
		{"counters", "verify", "--metrics-file", prom, store},
	} {
		c := exec.Command("sh", "-c", `umask 077; exec "$0" "$@"`)
		c.Args = append([]string{"sh", "-c", `umask 077; exec "$0" "$@"`, bin}, args...)
		expect(t, runCmd(t, c), 0)
		r := runCmd(t, asNobody("/bin/cat", prom))
		if r.Code != 0 || !strings.Contains(r.Stdout, "ankusa_store_") {
			fi, _ := os.Stat(prom)
			var mode os.FileMode
			if fi != nil {
				mode = fi.Mode()
			}
			t.Fatalf("%s: the metrics file (mode %v) cannot be read by uid %d, as node_exporter runs: %s", strings.Join(args, " "), mode, nobodyID, r)
		}
	}
}
