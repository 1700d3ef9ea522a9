package faults

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hangBound is how long a run in these cases may take before it counts as hung: a
// regression fails the case instead of hanging the suite.
const hangBound = 60 * time.Second

// waitBounded waits for a run started with started, killing it and failing past hangBound.
func waitBounded(t *testing.T, what string, done <-chan struct{}, res *result) result {
	t.Helper()
	select {
	case <-done:
		return *res
	case <-time.After(hangBound):
		t.Fatalf("%s still running after %v: it hangs", what, hangBound)
	}
	return result{}
}

// plantFifo replaces the first file of dir matching glob with a fifo and returns its path.
func plantFifo(t *testing.T, dir, glob string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, glob))
	if len(m) == 0 {
		t.Fatalf("no %s in %s", glob, dir)
	}
	if err := os.Remove(m[0]); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(m[0], 0o644); err != nil {
		t.Fatal(err)
	}
	return m[0]
}

// A fifo planted as a WAL file or a table (issue 44): status and tenants ls waited on it
// forever (RocksDB's open(2) of a fifo blocks until a writer comes). Every command that opens
// the store refuses it up front, exit 3, naming it; nothing waits.
func TestFifoInTheStoreIsRefused(t *testing.T) {
	for _, fixture := range []string{"store-v2", "store-v3"} {
		for _, glob := range []string{"*.log", "*.sst"} {
			for _, args := range [][]string{{"status"}, {"tenants", "ls"}, {"migrate"}, {"counters", "verify", "--repair", "--yes"}} {
				name := fixture + " " + glob + " " + strings.Join(args, " ")
				t.Run(name, func(t *testing.T) {
					store := extract(t, fixture, t.TempDir())
					fifo := plantFifo(t, store, glob)
					_, done, res := started(t, append(args, store)...)
					r := waitBounded(t, name, done, res)
					expect(t, r, 3, fifo, "fifo")
				})
			}
		}
	}
}

// Every signal ends a command as documented (exit 130), even one blocked where it never
// looks at its context: status of an archive that is a fifo with no writer blocks in
// open(2), and the first SIGTERM (or SIGINT, SIGHUP) did not end it. It wrote nothing, so it
// ends at once as interrupted.
func TestSignalEndsABlockedRead(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			archive := filepath.Join(t.TempDir(), "blocked.tar.zst")
			if err := unix.Mkfifo(archive, 0o644); err != nil {
				t.Fatal(err)
			}
			c, done, res := started(t, "status", archive)
			// Until it is blocked in the open: its wait channel is the fifo's.
			time.Sleep(time.Second)
			select {
			case <-done:
				t.Fatalf("status of a fifo with no writer ended by itself: %s", res)
			default:
			}
			if err := c.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			r := waitBounded(t, "status after "+sig.String(), done, res)
			expect(t, r, 130, "interrupted: nothing was written")
		})
	}
}
