package faults

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { roles["status-node"] = statusNodeRole }

// statusNodeAt is the due time of the row the node role writes: older than
// every due row of the committed fixture, so it becomes the oldest.
var statusNodeAt = uint64(time.Date(2026, 11, 30, 9, 0, 0, 123e6, time.UTC).UnixMilli())

// statusNodeRole is a node holding a store: it opens args[0] read-write (the
// LOCK), commits one first-attempt due row of tenant acme (ordinal 1) with its
// marker and counter deltas, as the node's writer does, without flushing it,
// says "ready" on stdout and holds the store until its stdin closes.
func statusNodeRole(args []string) int {
	st, err := rocks.OpenStore(args[0], rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		fmt.Fprintln(os.Stderr, "status-node:", err)
		return 1
	}
	defer st.Close()
	k := format.DueKey{Ord: 1, At: statusNodeAt, Seq: 900_000, Sink: 1}
	b := rocks.NewBatch()
	b.Put(format.CFIndex, k.Encode(), format.DueValue{Size: 10, Kind: format.KindFirstAttempt}.Encode())
	b.Put(format.CFIndex, k.ActiveKey().Encode(), nil)
	for _, ord := range []uint32{1, format.AggregateOrd} {
		b.Merge(format.CFCounters, format.CounterKeyBytes(ord, format.FieldPending), format.EncodeCounterOperand(1))
		b.Merge(format.CFCounters, format.CounterKeyBytes(ord, format.FieldBytes), format.EncodeCounterOperand(10))
	}
	if err := st.Write(b, true); err != nil {
		fmt.Fprintln(os.Stderr, "status-node:", err)
		return 1
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// TestStatusOfAStoreANodeHolds: status opens a store another process holds
// read-write (its LOCK taken, its last batch only in the WAL) and reports
// what that process committed: the oldest due row and the aggregate.
func TestStatusOfAStoreANodeHolds(t *testing.T) {
	dir := extract(t, "store-v3", t.TempDir())
	before := statusJSON(t, dir)

	node, stdin, stdout := startRole(t, "status-node", dir)
	defer func() {
		stdin.Close()
		if err := node.Wait(); err != nil {
			t.Errorf("status-node: %v", err)
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("status-node did not get ready: %q, %v", line, err)
	}
	// The node holds the LOCK: a writer is refused, status is not.
	expect(t, run(t, "migrate", dir), 0) // format 3: nothing to do, read-only peek
	r := run(t, "counters", "verify", "--repair", "--yes", "--backup", dir+".cp", dir)
	expect(t, r, 4, "locked")

	during := statusJSON(t, dir)
	if during.OldestDue == nil || during.OldestDue.At != time.UnixMilli(int64(statusNodeAt)).UTC() || !during.OldestDue.Verified || during.OldestDue.Tenant != "acme" {
		t.Errorf("oldest due while the node holds the store: %+v, want acme's row at %d", during.OldestDue, statusNodeAt)
	}
	if during.Aggregate.Pending != before.Aggregate.Pending+1 || during.Aggregate.Bytes != before.Aggregate.Bytes+10 {
		t.Errorf("aggregate %+v, want pending and bytes of %+v plus 1 and 10", during.Aggregate, before.Aggregate)
	}
	if during.State != "format 3" {
		t.Errorf("state %q", during.State)
	}
}

type statusView struct {
	State     string `json:"state"`
	Aggregate struct {
		Pending, Bytes int64
	} `json:"aggregate"`
	OldestDue *struct {
		At       time.Time `json:"at"`
		Tenant   string    `json:"tenant"`
		Verified bool      `json:"verified"`
	} `json:"oldest_due"`
}

func statusJSON(t *testing.T, dir string) statusView {
	t.Helper()
	r := run(t, "status", "-o", "json", dir)
	expect(t, r, 0)
	var v statusView
	if err := json.NewDecoder(strings.NewReader(r.Stdout)).Decode(&v); err != nil {
		t.Fatalf("status -o json: %v\n%s", err, r.Stdout)
	}
	return v
}
