package cmd

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
)

// The scheduled check of a live node (docs/monitoring.md) is two unit files in
// docs/systemd/. systemd reads them, and the command in them runs against a store here.

const (
	systemdDir       = "../docs/systemd"
	systemdService   = "ankusa-store-verify.service"
	systemdTimer     = "ankusa-store-verify.timer"
	systemdBinary    = "/usr/local/bin/ankusa-store"
	systemdNodeStore = "/var/lib/ankusa/store"
)

// unitSettings reads the Key=Value lines of one section of a unit file (a key given
// twice keeps both values, in order).
func unitSettings(t *testing.T, path, section string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	in := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			in = strings.Trim(line, "[]")
		case in == section:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: [%s] line %q is not Key=Value", path, section, line)
			}
			out[k] = append(out[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// systemd-analyze verify reads both units as systemd would load them. It reports an
// unknown setting or a value it cannot parse as a warning and still exits 0, so any output
// fails the test. It checks that ExecStart's program exists: the copy it reads runs this
// test binary instead of /usr/local/bin/ankusa-store (the next test runs the real command
// line). --man=no: the unit's man: page is installed with the release, not on this machine.
//
// systemd-analyze is Debian's systemd package, which scripts/setup.sh installs (about 10 MB,
// and installing it in a container starts nothing): a machine without it fails here
// rather than skipping, so that CI cannot stop checking the units unnoticed.
func TestSystemdUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatalf("systemd-analyze is not installed (Debian's systemd package; scripts/setup.sh installs it): %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{systemdService, systemdTimer} {
		b, err := os.ReadFile(filepath.Join(systemdDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == systemdService {
			if !bytes.Contains(b, []byte("ExecStart="+systemdBinary+" ")) {
				t.Fatalf("%s: no ExecStart=%s", name, systemdBinary)
			}
			b = bytes.ReplaceAll(b, []byte("ExecStart="+systemdBinary+" "), []byte("ExecStart="+self+" "))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(analyze, "verify", "--man=no", filepath.Join(dir, systemdService), filepath.Join(dir, systemdTimer))
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// The service's command line is one this tool runs: every flag exists, the metrics file
// goes where the unit may write, and against a healthy store it exits 0 and writes the
// file node_exporter reads.
func TestSystemdServiceRunsVerify(t *testing.T) {
	svc := unitSettings(t, filepath.Join(systemdDir, systemdService), "Service")
	if len(svc["ExecStart"]) != 1 {
		t.Fatalf("ExecStart: %q, want one command", svc["ExecStart"])
	}
	args := strings.Fields(svc["ExecStart"][0])
	if args[0] != systemdBinary || args[len(args)-1] != systemdNodeStore {
		t.Fatalf("ExecStart %q: want %s ... %s", svc["ExecStart"][0], systemdBinary, systemdNodeStore)
	}
	for _, e := range svc["Environment"] {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
	tmp := t.TempDir()
	store := storetest.Extract(t, "store-v3.tar.zst")
	var metrics, want string
	mapped := make([]string, 0, len(args)-1)
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--metrics-file" && i+1 < len(args):
			want = args[i+1]
			metrics = filepath.Join(tmp, filepath.Base(want))
			mapped = append(mapped, a, metrics)
			i++
			continue
		case a == systemdNodeStore:
			a = store
		}
		mapped = append(mapped, a)
	}
	if metrics == "" {
		t.Fatalf("ExecStart %q writes no --metrics-file", svc["ExecStart"][0])
	}
	if rw := svc["ReadWritePaths"]; len(rw) != 1 || rw[0] != filepath.Dir(want) {
		t.Errorf("ReadWritePaths %q: the metrics file %s must be the one directory the unit writes", rw, want)
	}
	if !strings.Contains(strings.Join(args, " "), " --secondary ") {
		t.Errorf("ExecStart %q: a live node's store is read as a secondary", svc["ExecStart"][0])
	}
	io, _, out, errb := iostreams.Test()
	if code := Execute(context.Background(), io, BuildInfo{Version: "test", Commit: "none"}, mapped); code != 0 {
		t.Fatalf("%q exited %d\nstdout:\n%s\nstderr:\n%s", mapped, code, out.String(), errb.String())
	}
	if errb.Len() > 0 {
		t.Errorf("stderr (the journal) has more than the report: %s", errb.String())
	}
	b, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^ankusa_store_verify_healthy(\{[^}]*\})? 1$`).Match(b) {
		t.Errorf("the metrics file does not say healthy:\n%s", b)
	}
}
