package faults

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The "churn" role is a node writing hard: it opens args[0] read-write and, until its stdin
// closes, overwrites 4096 rows of the audit family in batches (no check folds audit,
// so the store stays healthy), flushes it every few batches (a new table file, a new WAL, the old WAL deleted)
// and compacts it every few flushes (table files deleted). It says "ready" once it has
// flushed and compacted at least once, and on exit prints how many flushes and compactions it
// did.
func init() { roles["churn"] = churnRole }

func churnRole(args []string) int {
	db, err := rocks.Open(args[0], rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		fmt.Fprintln(os.Stderr, "churn:", err)
		return 1
	}
	defer db.Close()
	var stop atomic.Bool
	go func() {
		bufio.NewReader(os.Stdin).ReadByte() // EOF when the test closes it
		stop.Store(true)
	}()
	// Keys wrap around: the writer overwrites its own rows, so compactions drop the old
	// versions and the store stays small (each reader's open stays cheap).
	val := make([]byte, 100)
	var n, flushes, compactions uint64
	for !stop.Load() || compactions == 0 {
		b := rocks.NewBatch()
		for i := 0; i < 50; i++ {
			k := binary.BigEndian.AppendUint64([]byte("churn:"), n%4096)
			n++
			b.Put(format.CFAudit, k, val)
		}
		if err := db.Write(b, false); err != nil {
			fmt.Fprintln(os.Stderr, "churn: write:", err)
			return 1
		}
		if n%200 == 0 {
			if err := db.Flush(format.CFAudit); err != nil {
				fmt.Fprintln(os.Stderr, "churn: flush:", err)
				return 1
			}
			flushes++
			if flushes%4 == 0 {
				if err := db.CompactRange(format.CFAudit); err != nil {
					fmt.Fprintln(os.Stderr, "churn: compact:", err)
					return 1
				}
				compactions++
				if compactions == 1 {
					fmt.Println("ready")
				}
			}
		}
	}
	fmt.Printf("churned %d rows, %d flushes, %d compactions\n", n, flushes, compactions)
	return 0
}
