package lockholder

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Env makes the test binary a holder (Main): "WAY:DIR".
const Env = "ANKUSA_STORE_TEST_HOLD"

// Way is how a holder holds its store.
type Way string

const (
	// LockOnly takes the lock RocksDB takes on the LOCK file (fcntl F_SETLK, F_WRLCK, the
	// whole file: env/fs_posix.cc LockOrUnlock) and opens nothing: a read-write open
	// replays the WAL into a table and starts an empty one, and a test of a held store may
	// need its WAL as it was.
	LockOnly Way = "lock"
	// Open opens the store read-write as the node does (pkg/rocks) and waits for the work
	// RocksDB starts after an open to settle, so that a snapshot taken once it holds is the
	// held store at rest and any later change is the command's.
	Open Way = "open"
)

// Main makes this process the holder Env names, if it names one: it holds the store, says
// "ready" on stdout and keeps it until its stdin closes, then exits. Otherwise it returns.
func Main() {
	v := os.Getenv(Env)
	if v == "" {
		return
	}
	way, dir, _ := strings.Cut(v, ":")
	os.Exit(holdMain(Way(way), dir))
}

func holdMain(way Way, dir string) int {
	var release func()
	switch way {
	case LockOnly:
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
		release = func() { f.Close() }
	case Open:
		db, err := rocks.Open(dir, rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			fmt.Fprintln(os.Stderr, "hold:", err)
			return 1
		}
		AtRest(dir, func() bool { return busy(db) })
		release = func() { _ = db.Close() }
	default:
		fmt.Fprintf(os.Stderr, "hold: no way %q\n", way)
		return 2
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	release()
	return 0
}

// busy reports whether RocksDB has a flush or compaction running or due.
func busy(db *rocks.DB) bool {
	for _, p := range []string{"rocksdb.num-running-flushes", "rocksdb.num-running-compactions", "rocksdb.compaction-pending", "rocksdb.mem-table-flush-pending"} {
		if v, err := db.Property(format.CFDefault, p); err == nil && strings.TrimSpace(v) != "0" {
			return true
		}
	}
	return false
}

// AtRest waits until the files in dir (LOG among them: lines are written as they are
// logged) have kept their names and sizes for 300 ms and busy (nil: never) says nothing
// runs, 30 s at most: what a holder waits for before it says it holds.
func AtRest(dir string, busy func() bool) {
	last, quiet := "", 0
	for i := 0; i < 300 && quiet < 3; i++ {
		time.Sleep(100 * time.Millisecond)
		now := dirSizes(dir)
		if (busy != nil && busy()) || now != last {
			last, quiet = now, 0
			continue
		}
		quiet++
	}
}

// dirSizes is every file name and size in dir, as one string.
func dirSizes(dir string) string {
	var b strings.Builder
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			fmt.Fprintf(&b, "%s=%d;", filepath.Join(dir, e.Name()), info.Size())
		}
	}
	return b.String()
}

// Holder is a holding process started by Start.
type Holder struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	line string // what it said first: "ready", or nothing when it failed
	done bool
}

// Start starts the test binary as a holder of dir and returns once it holds it or has
// failed to (Held says which); the test's end lets it go.
func Start(t testing.TB, dir string, way Way) *Holder {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe)
	c.Env = append(os.Environ(), Env+"="+string(way)+":"+dir)
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
	h := &Holder{cmd: c, in: in}
	t.Cleanup(func() { h.Release() })
	r := bufio.NewReader(out)
	h.line, _ = r.ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, r) }()
	return h
}

// Held reports whether the holder holds its store, and what it said.
func (h *Holder) Held() (bool, string) {
	return strings.TrimSpace(h.line) == "ready", h.line
}

// Release lets the store go (the holder's stdin closed) and returns the holder's exit
// code once it has exited.
func (h *Holder) Release() int {
	if !h.done {
		h.done = true
		h.in.Close()
		_ = h.cmd.Wait()
	}
	return h.cmd.ProcessState.ExitCode()
}

// Hold starts a holder of dir and returns once it holds it (the LOCK taken, as
// rocks.ProbeLock sees it); it lets go when the test ends.
func Hold(t testing.TB, dir string, way Way) {
	t.Helper()
	h := Start(t, dir, way)
	if ok, line := h.Held(); !ok {
		t.Fatalf("the holding process did not get the store: %q", line)
	}
	if err := rocks.ProbeLock(dir); err == nil {
		t.Fatal("the holding process says ready, yet the LOCK is free")
	}
}
