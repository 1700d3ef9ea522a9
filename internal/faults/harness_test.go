package faults

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/lockholder"
	"github.com/ankusa/ankusa-store/internal/testkit/proctest"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// roles are the helper processes a case can start (see startRole): each file of the suite
// registers its own from init. A role runs instead of the tests when FAULTS_ROLE names it.
var roles = map[string]func(args []string) int{}

// bin is the binary under test.
var bin string

func TestMain(m *testing.M) {
	lockholder.Main()
	if role := os.Getenv("FAULTS_ROLE"); role != "" {
		f, ok := roles[role]
		if !ok {
			fmt.Fprintf(os.Stderr, "faults: unknown role %q\n", role)
			os.Exit(2)
		}
		os.Exit(f(os.Args[1:]))
	}
	code, err := buildAndRun(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func buildAndRun(m *testing.M) (int, error) {
	if b := os.Getenv("ANKUSA_STORE_BIN"); b != "" {
		abs, err := filepath.Abs(b)
		if err != nil {
			return 0, err
		}
		bin = abs
		return m.Run(), nil
	}
	tmp, err := os.MkdirTemp("", "ankusa-faults-bin-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	bin = filepath.Join(tmp, "ankusa-store")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/ankusa/ankusa-store").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("go build: %v\n%s", err, out)
	}
	return m.Run(), nil
}

// result is what one run of the binary did.
type result = proctest.Result

// run runs the binary under test with args and returns what it did.
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runCmd(t, exec.Command(bin, args...))
}

func runCmd(t *testing.T, c *exec.Cmd) result {
	t.Helper()
	r := proctest.Start(t, c)
	<-r.Done
	var ee *exec.ExitError
	if r.Err != nil && !errors.As(r.Err, &ee) {
		t.Fatalf("%s: %v", strings.Join(c.Args, " "), r.Err)
	}
	return r.Result
}

// expect fails unless r exited with code, was not killed by a signal, and its stderr holds
// every one of msgs.
func expect(t *testing.T, r result, code int, msgs ...string) {
	t.Helper()
	if r.Signaled || r.Code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
	for _, m := range msgs {
		if !strings.Contains(r.Stderr, m) {
			t.Fatalf("stderr does not say %q:\n%s", m, r)
		}
	}
}

// expectOut is expect for what a command reports as its result, which is on stdout
// (the dry run's plan, a repair's report): the streams rule of docs/commands.md.
func expectOut(t *testing.T, r result, code int, msgs ...string) {
	t.Helper()
	if r.Signaled || r.Code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
	for _, m := range msgs {
		if !strings.Contains(r.Stdout, m) {
			t.Fatalf("stdout does not say %q:\n%s", m, r)
		}
	}
}

// extract unpacks a committed fixture (store-v2 or store-v3) into a new directory under dir
// with tar and zstd, not with the code under test.
func extract(t *testing.T, name, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(storetest.Testdata(), name+".tar.zst")
	if out, err := exec.Command("tar", "--zstd", "-xf", archive, "-C", dst).CombinedOutput(); err != nil {
		t.Fatalf("tar -xf %s: %v\n%s", archive, err, out)
	}
	return dst
}

// startRole starts this test binary as the helper process role with args, its stdin and
// stdout piped to the caller. The caller stops it, usually by closing in (every role runs
// until its stdin closes), and waits for it.
func startRole(t *testing.T, role string, args ...string) (c *exec.Cmd, in io.WriteCloser, out io.ReadCloser) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c = exec.Command(self, args...)
	c.Env = append(os.Environ(), "FAULTS_ROLE="+role)
	c.Stderr = os.Stderr
	if in, err = c.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if out, err = c.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c, in, out
}
