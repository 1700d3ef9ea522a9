package faults

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// Issue 19's sixth case: a store whose files this user may not read was "not an Ankusa store"
// ("no CURRENT file"). Now every file a command cannot read or write for want of permission
// is "permission denied", its own message naming the user, the path and what stopped it
// (class store, exit 3). Root reads every file whatever its mode, so the binary runs as
// nobody (uid 65534); the suite runs as root (CI does), and a machine where it does not
// fails here rather than skipping.

const nobodyID = 65534

// asNobody is the binary under test (copied where nobody can run it) run as uid/gid 65534.
func asNobody(binCopy string, args ...string) *exec.Cmd {
	c := exec.Command(binCopy, args...)
	c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyID, Gid: nobodyID}}
	c.Dir = "/"
	return c
}

// reachableDir is a new directory every user can enter, removed when the test ends.
func reachableDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ankusa-faults-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyExecutable(t *testing.T, dst string) string {
	t.Helper()
	in, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// firstFile is the first file in dir whose name matches pattern.
func firstFile(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil || len(m) == 0 {
		t.Fatalf("no %s in %s (%v)", pattern, dir, err)
	}
	return m[0]
}

// denied checks a run refused for want of permission on path: exit 3, the message (not
// "not an Ankusa store"), class store in JSON.
func denied(t *testing.T, r result, verb, path string) {
	t.Helper()
	expect(t, r, 3, "permission denied: this user (", "uid 65534) cannot "+verb+" "+path)
	for _, wrong := range []string{"not an Ankusa store", "no CURRENT", "IO error"} {
		if strings.Contains(r.Stderr, wrong) {
			t.Fatalf("the message says %q:\n%s", wrong, r)
		}
	}
	if n := strings.Count(r.Stderr, "Error:"); n != 1 {
		t.Fatalf("%d error lines:\n%s", n, r)
	}
}

func TestPermissionDenied(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatalf("the permission cases run the binary as uid %d, which needs root (CI runs as root); refusing to skip them", nobodyID)
	}
	base := reachableDir(t)
	nb := copyExecutable(t, filepath.Join(base, "ankusa-store"))
	src := filepath.Join(base, "src")
	expect(t, run(t, "fixture", "--format", "2", "--hooks", "400", "--dir", src), 0)
	// As a node leaves it: opened read-write by the oldest node's RocksDB, which writes its
	// OPTIONS file (a fixture holds the one its node left; ldb writes its own beside it).
	if out, err := exec.Command(storetest.OldNodeTool(t, "ldb"), "--db="+src, "compact").CombinedOutput(); err != nil {
		t.Fatalf("ldb compact: %v\n%s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "a+rX", src).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	fresh := func(t *testing.T) string {
		return copyStore(t, src, filepath.Join(base, strings.ReplaceAll(t.Name(), "/", "_")))
	}

	// Control: the same store, readable, is read by nobody (the failures below are the
	// modes', not the setup's).
	control := fresh(t)
	expect(t, runCmd(t, asNobody(nb, "status", control)), 0)

	// Root reads what nobody may not: if the credentials were not dropped, these pass and fail.
	cases := []struct {
		name string
		prep func(t *testing.T, s string) string // returns the path the message names
		verb string
	}{
		{"store directory mode 000", func(t *testing.T, s string) string { chmod(t, s, 0); return s + "/CURRENT" }, "read"},
		{"store directory not searchable", func(t *testing.T, s string) string { chmod(t, s, 0o644); return s + "/CURRENT" }, "read"},
		{"CURRENT mode 000", func(t *testing.T, s string) string { p := s + "/CURRENT"; chmod(t, p, 0); return p }, "read"},
		{"MANIFEST mode 000", func(t *testing.T, s string) string { p := firstFile(t, s, "MANIFEST-*"); chmod(t, p, 0); return p }, "read"},
		{"OPTIONS mode 000", func(t *testing.T, s string) string { p := firstFile(t, s, "OPTIONS-*"); chmod(t, p, 0); return p }, "read"},
		{"table file mode 000", func(t *testing.T, s string) string { p := firstFile(t, s, "*.sst"); chmod(t, p, 0); return p }, "read"},
		{"WAL mode 000", func(t *testing.T, s string) string { p := firstFile(t, s, "*.log"); chmod(t, p, 0); return p }, "read"},
		{"owned by another user", func(t *testing.T, s string) string {
			if out, err := exec.Command("chown", "-R", "1000:1000", s).CombinedOutput(); err != nil {
				t.Fatalf("chown: %v\n%s", err, out)
			}
			chmod(t, s, 0o700)
			return s + "/CURRENT"
		}, "read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := fresh(t)
			path := tc.prep(t, s)
			for _, args := range [][]string{{"status"}, {"counters", "verify"}, {"counters", "verify", "--secondary"}, {"tenants", "ls"}, {"migrate", "--dry-run"}, {"migrate"}} {
				r := runCmd(t, asNobody(nb, append(args, s)...))
				denied(t, r, tc.verb, path)
			}
			r := runCmd(t, asNobody(nb, "status", "-o", "json", s))
			var doc struct {
				Error struct {
					Code  int    `json:"code"`
					Class string `json:"class"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || doc.Error.Code != 3 || doc.Error.Class != "store" {
				t.Fatalf("status -o json: %+v (%v)\n%s", doc, err, r)
			}
		})
	}

	t.Run("store directory not writable", func(t *testing.T) {
		s := fresh(t)
		chmod(t, s, 0o555)
		before := storetest.TreeOf(t, s)
		// Read-only commands need no write.
		expect(t, runCmd(t, asNobody(nb, "counters", "verify", s)), 0)
		// Checkpoints where nobody may write them: the store's own directory is what stops it.
		mine := filepath.Join(base, "nobody")
		if err := os.Mkdir(mine, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(mine, nobodyID, nobodyID); err != nil {
			t.Fatal(err)
		}
		denied(t, runCmd(t, asNobody(nb, "migrate", "--backup", filepath.Join(mine, "pre-v3"), s)), "write", s)
		// A repair of a format 2 store only reads (it has no counters to repair: issue 44), so
		// it needs no write and is not refused; a format 3 store's repair writes, and is.
		expect(t, runCmd(t, asNobody(nb, "counters", "verify", "--repair", "--yes", "--backup", filepath.Join(mine, "cp"), s)), 0)
		storetest.SameTree(t, before, storetest.TreeOf(t, s))
		s3 := filepath.Join(base, "not-writable-v3")
		expect(t, run(t, "fixture", "--hooks", "400", "--dir", s3), 0)
		if out, err := exec.Command("chmod", "-R", "a+rX", s3).CombinedOutput(); err != nil {
			t.Fatalf("chmod: %v\n%s", err, out)
		}
		chmod(t, s3, 0o555)
		before3 := storetest.TreeOf(t, s3)
		denied(t, runCmd(t, asNobody(nb, "counters", "verify", "--repair", "--yes", "--backup", filepath.Join(mine, "cp"), s3)), "write", s3)
		storetest.SameTree(t, before3, storetest.TreeOf(t, s3))
	})

	t.Run("checkpoint directory not writable", func(t *testing.T) {
		s := fresh(t)
		if out, err := exec.Command("chown", "-R", "65534:65534", s).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v\n%s", err, out)
		}
		cpParent := filepath.Join(base, "cp-parent")
		if err := os.Mkdir(cpParent, 0o755); err != nil {
			t.Fatal(err)
		}
		r := runCmd(t, asNobody(nb, "migrate", "--backup", filepath.Join(cpParent, "pre-v3"), s))
		expect(t, r, 3, "--backup "+filepath.Join(cpParent, "pre-v3")+": permission denied: this user (", "cannot write "+cpParent, "nothing was written, the store is untouched")
		expectOut(t, runCmd(t, asNobody(nb, "migrate", "--dry-run", s)), 0, "\nwould_move\trows=") // piped: TSV
	})

	t.Run("archive file", func(t *testing.T) {
		a := filepath.Join(base, "a.tar.zst")
		expect(t, run(t, "fixture", "--hooks", "400", a), 0)
		chmod(t, a, 0o600)
		denied(t, runCmd(t, asNobody(nb, "status", a)), "read", a)
		denied(t, runCmd(t, asNobody(nb, "counters", "verify", a)), "read", a)
	})

	t.Run("metrics file directory", func(t *testing.T) {
		for _, mode := range []os.FileMode{0o755, 0o700} {
			m := filepath.Join(base, fmt.Sprintf("metrics-%o", mode))
			if err := os.Mkdir(m, mode); err != nil {
				t.Fatal(err)
			}
			chmod(t, m, mode)
			prom := filepath.Join(m, "s.prom")
			for _, args := range [][]string{{"status"}, {"counters", "verify"}} {
				r := runCmd(t, asNobody(nb, append(args, "--metrics-file", prom, control)...))
				// The run's result stands; the file it could not write is said so.
				expect(t, r, 0, "--metrics-file "+prom+" not written (the result above stands): permission denied: this user (", "cannot write "+m)
			}
		}
	})
}
