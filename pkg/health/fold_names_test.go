package health

import (
	"bytes"
	"fmt"
	"testing"
)

// Tenant ids kept in the ordTable's blocks read back as written, across block
// boundaries and for an id bigger than a block (a bad t value is kept as is).
func TestOrdTableNames(t *testing.T) {
	var tab ordTable
	ids := [][]byte{nil, []byte("acme"), []byte("zürich-東京-🚀"), bytes.Repeat([]byte("x"), 3<<nameBlockBits)}
	for i := 0; i < 300_000; i++ {
		ids = append(ids, []byte(fmt.Sprintf("tenant-%07d", i)))
	}
	ids = append(ids, bytes.Repeat([]byte("y"), 1<<nameBlockBits-3), []byte("last"))
	states := make([]ordState, len(ids))
	for i, id := range ids {
		tab.setName(&states[i], id)
	}
	var none ordState
	if got := tab.nameOf(&none); got != "" {
		t.Fatalf("no name: %q", got)
	}
	for i, id := range ids {
		if got := tab.nameOf(&states[i]); got != string(id) {
			t.Fatalf("id %d: got %d bytes %.20q, want %d bytes %.20q", i, len(got), got, len(id), id)
		}
	}
	if len(tab.names) < 4 {
		t.Fatalf("%d blocks: the ids should span several", len(tab.names))
	}
}
