package faults

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The "hold" role is a node holding its store: it opens args[0] read-write (taking the LOCK
// as the node does), waits for the work RocksDB starts after an open to settle, says
// "ready" on stdout, and holds it until its stdin closes.
func init() { roles["hold"] = holdRole }

func holdRole(args []string) int {
	db, err := rocks.Open(args[0], rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hold:", err)
		return 1
	}
	settle(db, args[0])
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	db.Close()
	return 0
}

// settle waits until the flushes and compactions an open schedules are done and the store's
// files (LOG among them: lines are written as they are logged) have stopped changing, so that
// a case's "before" snapshot is the held store at rest and any later change is the command's.
func settle(db *rocks.DB, dir string) {
	busy := func() bool {
		for _, p := range []string{"rocksdb.num-running-flushes", "rocksdb.num-running-compactions", "rocksdb.compaction-pending", "rocksdb.mem-table-flush-pending"} {
			if v, err := db.Property(format.CFDefault, p); err == nil && strings.TrimSpace(v) != "0" {
				return true
			}
		}
		return false
	}
	last, quiet := "", 0
	for i := 0; i < 300 && quiet < 3; i++ {
		time.Sleep(100 * time.Millisecond)
		now := dirSizes(dir)
		if busy() || now != last {
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
