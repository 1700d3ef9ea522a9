package cmd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// holdStoreEnv makes the test binary a node holding a store (see TestMain): it takes the
// lock RocksDB takes on the LOCK file of the directory the variable names (fcntl F_SETLK,
// F_WRLCK, the whole file: env/fs_posix.cc LockOrUnlock), says "ready" and holds it until its
// stdin closes. It takes the lock alone rather than opening the store: a read-write open
// replays the WAL into a table and starts an empty one, and the tests of a held store need
// its WAL as it was. A lock held by the test's own process would not do: POSIX record locks
// are per process, and F_GETLK does not report the caller's own.
const holdStoreEnv = "ANKUSA_STORE_TEST_HOLD"

func holdStoreMain(dir string) int {
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hold:", err)
		return 1
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk); err != nil {
		fmt.Fprintln(os.Stderr, "hold:", err)
		return 1
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	f.Close()
	return 0
}

// holdStore starts a second process holding dir's LOCK and returns once it has it; the
// process ends when the test does.
func holdStore(t *testing.T, dir string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe)
	c.Env = append(os.Environ(), holdStoreEnv+"="+dir)
	c.Stderr = os.Stderr
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); c.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); strings.TrimSpace(line) != "ready" {
		t.Fatalf("the holding process did not get the store: %q", line)
	}
	if err := rocks.ProbeLock(dir); err == nil {
		t.Fatal("the holding process says ready, yet the LOCK is free")
	}
}
