package cmd

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
)

// The release archive is what an operator installs from: docs/monitoring.md's steps take
// the binary, the man pages and docs/systemd/ out of it. goreleaser is not on the test
// machines, so these tests build the archive from .goreleaser.yaml's own file list as
// goreleaser does (its before hooks' man pages and completions, made in-process the same
// way, the globs expanded from the repository root, a src/dst entry with strip_parent put
// under dst), then check its listing (TestReleaseArchiveListing) and run the doc's steps
// from it (TestMonitoringStepsFromTheArchive).

// releaseArchiveName is the archive the doc's steps unpack; the version is the example's.
const releaseArchiveName = "ankusa-store_1.2.3_linux_amd64.tar.gz"

// goreleaserFile is one entry of archives[].files: a glob, or src with dst.
type goreleaserFile struct {
	Src         string `yaml:"src"`
	Dst         string `yaml:"dst"`
	StripParent bool   `yaml:"strip_parent"`
}

func (f *goreleaserFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		f.Src = n.Value
		return nil
	}
	type plain goreleaserFile
	return n.Decode((*plain)(f))
}

// buildReleaseArchive writes the archive into dir and returns its path and the names it
// holds.
func buildReleaseArchive(t *testing.T, dir string) (string, []string) {
	t.Helper()
	b, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Archives []struct {
			Files []goreleaserFile `yaml:"files"`
		} `yaml:"archives"`
		Builds []struct {
			Binary string `yaml:"binary"`
		} `yaml:"builds"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Archives) != 1 || len(cfg.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: %d archives, %d builds, want one of each", len(cfg.Archives), len(cfg.Builds))
	}
	// The before hooks' output, made as they make it, in a copy of the tree's build/.
	root := filepath.Join(dir, "tree")
	if err := os.MkdirAll(filepath.Join(root, "build", "completions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "build", "man"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := GenerateManPages(filepath.Join(root, "build", "man"), ManRelease{Version: "1.2.3", Date: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	for shell, name := range map[string]string{"bash": "ankusa-store.bash", "zsh": "_ankusa-store", "fish": "ankusa-store.fish"} {
		streams, _, out, _ := iostreams.Test()
		if code := Execute(context.Background(), streams, BuildInfo{Version: "1.2.3"}, []string{"completion", shell}); code != 0 {
			t.Fatalf("completion %s: exit %d", shell, code)
		}
		if err := os.WriteFile(filepath.Join(root, "build", "completions", name), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// name in the archive -> file
	files := map[string]string{}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	files[cfg.Builds[0].Binary] = self // the test binary stands for the release's (TestMain)
	for _, f := range cfg.Archives[0].Files {
		base := ".."
		if strings.HasPrefix(f.Src, "build/") {
			base = root
		}
		matches, err := filepath.Glob(filepath.Join(base, f.Src))
		if err != nil {
			t.Fatal(err)
		}
		if len(matches) == 0 {
			t.Errorf(".goreleaser.yaml: %q matches nothing", f.Src)
		}
		for _, m := range matches {
			rel, err := filepath.Rel(base, m)
			if err != nil {
				t.Fatal(err)
			}
			name := rel
			switch {
			case f.Dst != "" && f.StripParent:
				name = filepath.Join(f.Dst, filepath.Base(m))
			case f.Dst != "":
				t.Fatalf(".goreleaser.yaml: %q: a dst without strip_parent, whose layout this test does not model", f.Src)
			}
			files[name] = m
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	path := filepath.Join(dir, releaseArchiveName)
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(out)
	tw := tar.NewWriter(zw)
	for _, n := range names {
		fi, err := os.Stat(files[n])
		if err != nil {
			t.Fatal(err)
		}
		body, err := os.ReadFile(files[n])
		if err != nil {
			t.Fatal(err)
		}
		hdr := &tar.Header{Name: n, Mode: int64(fi.Mode().Perm()), Size: int64(len(body)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path, names
}

// The archive holds what the docs tell an operator to install (issue 29): the binary, the
// runbook and the monitoring page, docs/systemd/'s service and timer, a man page for every
// command (the units' Documentation= page among them) and the completions. The listing is
// read back from the archive itself, as `tar -tzf` shows it.
func TestReleaseArchiveListing(t *testing.T) {
	path, _ := buildReleaseArchive(t, t.TempDir())
	listing := tarListing(t, path)
	want := []string{
		"ankusa-store", "README.md", "docs/migration.md", "docs/monitoring.md", "docs/commands.md",
		"docs/systemd/" + systemdService, "docs/systemd/" + systemdTimer,
		"man/man1/ankusa-store.1", "man/man1/ankusa-store-migrate.1", "man/man1/ankusa-store-counters-verify.1",
		"completions/ankusa-store.bash", "completions/_ankusa-store", "completions/ankusa-store.fish",
	}
	for _, w := range want {
		if !slices.Contains(listing, w) {
			t.Errorf("the release archive lacks %s; it holds:\n%s", w, strings.Join(listing, "\n"))
		}
	}
	// Every man: page the units name is in the archive, under man/man1.
	for _, unit := range []string{systemdService, systemdTimer} {
		sec := "Unit"
		for _, doc := range unitSettings(t, filepath.Join(systemdDir, unit), sec)["Documentation"] {
			for _, d := range strings.Fields(doc) {
				m := regexp.MustCompile(`^man:([a-z0-9-]+)\(1\)$`).FindStringSubmatch(d)
				if m == nil {
					t.Errorf("%s: Documentation=%s is not a man page of section 1", unit, d)
					continue
				}
				if !slices.Contains(listing, "man/man1/"+m[1]+".1") {
					t.Errorf("%s: Documentation=%s is not in the release archive", unit, d)
				}
			}
		}
	}
	// Nothing of the build tree's own paths leaks into it.
	for _, n := range listing {
		if strings.HasPrefix(n, "build/") {
			t.Errorf("the release archive holds %s: the build tree's path, not where the docs look", n)
		}
	}
}

func tarListing(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}

// monitoringSteps are the `$ ` lines of docs/monitoring.md's "Installing it" section.
func monitoringSteps(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../docs/monitoring.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []string
	in, block := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "## "):
			in = l == "## Installing it"
		case in && strings.HasPrefix(l, "```"):
			block = !block
		case in && block && strings.HasPrefix(l, "$ "):
			steps = append(steps, strings.TrimPrefix(l, "$ "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(steps) == 0 {
		t.Fatal("docs/monitoring.md: no steps under ## Installing it")
	}
	return steps
}

// docs/monitoring.md's steps, run as written from the release archive (issue 29), as far
// as a container without a running systemd allows: every step runs in order, the machine's
// paths (/usr/local, /etc/systemd, /var/lib, /tmp/ankusa-store) moved under a scratch root
// as a chroot would. What cannot run here is checked instead: apt-get's packages are
// installed (scripts/setup.sh installs them), setfacl names this test's user for ankusa
// (no such user here), and systemctl's run of the service is the service's own ExecStart,
// run here with its Environment=, which must write the metrics file the doc's last step
// reads. systemd-analyze verify, a step of the doc, must pass with the man pages the steps
// installed (MANPATH is the scratch root's).
func TestMonitoringStepsFromTheArchive(t *testing.T) {
	for _, tool := range []string{"systemd-analyze", "setfacl", "man", "install", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (scripts/setup.sh installs what the steps need): %v", tool, err)
		}
	}
	dir := t.TempDir()
	buildReleaseArchive(t, dir)
	root := filepath.Join(dir, "root")
	// What the node already has: node_exporter's collector directory and the store.
	collector := filepath.Join(root, "var/lib/prometheus/node-exporter")
	if err := os.MkdirAll(collector, 0o755); err != nil {
		t.Fatal(err)
	}
	// And what Debian has from the start.
	for _, d := range []string{"etc/systemd/system", "usr/local/bin", "usr/local/share/man"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "var/lib/ankusa"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(storetest.Extract(t, "store-v3.tar.zst"), filepath.Join(root, "var/lib/ankusa/store")); err != nil {
		t.Fatal(err)
	}
	mapper := strings.NewReplacer(
		"/usr/local/", root+"/usr/local/", "/etc/systemd/", root+"/etc/systemd/",
		"/var/lib/", root+"/var/lib/", "/tmp/ankusa-store", filepath.Join(dir, "unpack"),
		"u:ankusa:", "u:"+strings.TrimSpace(runStep(t, dir, nil, "id -un"))+":")
	manpath := "MANPATH=" + filepath.Join(root, "usr/local/share/man")
	cwd := dir
	var ran, apt, prom []string
	for _, step := range monitoringSteps(t) {
		cmdline := strings.TrimSpace(strings.SplitN(step, "  #", 2)[0])
		words := strings.Fields(cmdline)
		switch {
		case words[0] == "apt-get":
			apt = words[1:]
			for _, pkg := range words[1:] {
				if strings.HasPrefix(pkg, "-") || pkg == "install" {
					continue
				}
				if out, err := exec.Command("dpkg", "-s", pkg).CombinedOutput(); err != nil {
					t.Errorf("%s: package %s is not installed here: %v\n%s", step, pkg, err, out)
				}
			}
			continue
		case words[0] == "systemctl" || words[0] == "journalctl":
			continue // no running systemd here: the service's run is checked below
		case words[0] == "cat":
			prom = append(prom, mapper.Replace(words[1]))
			continue
		case words[0] == "cd":
			cwd = mapper.Replace(words[1])
			continue
		case words[0] == "systemd-analyze":
			// The installed units as a chroot would see them: ExecStart's program is the
			// one the steps installed under the scratch root.
			for _, u := range []string{systemdService, systemdTimer} {
				p := filepath.Join(root, "etc/systemd/system", u)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatalf("%s: the steps before it installed no %s: %v", step, u, err)
				}
				b = bytes.ReplaceAll(b, []byte("ExecStart="+systemdBinary+" "), []byte("ExecStart="+root+systemdBinary+" "))
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		runStep(t, cwd, []string{manpath}, mapper.Replace(cmdline))
		ran = append(ran, words[0])
	}
	for _, want := range []string{"tar", "install", "setfacl", "systemd-analyze"} {
		if !slices.Contains(ran, want) {
			t.Errorf("the steps never run %s (ran %q)", want, ran)
		}
	}
	for _, pkg := range []string{"acl", "man-db"} {
		if !slices.Contains(apt, pkg) {
			t.Errorf("the steps' apt-get does not install %s (it names %q)", pkg, apt)
		}
	}
	// The timer starts the service; the service is its ExecStart, with its Environment=.
	timer := unitSettings(t, filepath.Join(root, "etc/systemd/system", systemdTimer), "Timer")
	if u := timer["Unit"]; len(u) > 0 && u[0] != systemdService {
		t.Fatalf("the timer starts %q, not %s", u, systemdService)
	}
	svc := unitSettings(t, filepath.Join(root, "etc/systemd/system", systemdService), "Service")
	c := exec.Command("sh", "-c", mapper.Replace(strings.Replace(svc["ExecStart"][0], root+systemdBinary, systemdBinary, 1)))
	c.Env = append(append(os.Environ(), asCLIEnv+"=1"), svc["Environment"]...)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("the service's ExecStart: %v\n%s", err, out)
	}
	if len(prom) != 1 {
		t.Fatalf("the steps read %q, want the one metrics file", prom)
	}
	b, err := os.ReadFile(prom[0])
	if err != nil {
		t.Fatalf("the run the timer starts wrote no %s: %v", prom[0], err)
	}
	if !regexp.MustCompile(`(?m)^ankusa_store_verify_success(\{[^}]*\})? 1$`).Match(b) {
		t.Errorf("the metrics file does not say the run succeeded:\n%s", b)
	}
}

// runStep runs a step with sh in dir and fails the test if it fails.
func runStep(t *testing.T, dir string, env []string, cmdline string) string {
	t.Helper()
	c := exec.Command("sh", "-c", cmdline)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("step %q: %v\n%s", cmdline, err, out)
	}
	return string(out)
}
