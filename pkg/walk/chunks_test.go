package walk

import (
	"bytes"
	"context"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// hooksStore is a format 3 store of n hooks (seqs 1 to n) whose bodies are of size(seq) bytes.
func hooksStore(t *testing.T, n uint64, size func(seq uint64) int) *rocks.Store {
	s := newTestStore(t, format.Format3)
	for seq := uint64(1); seq <= n; seq++ {
		body := bytes.Repeat([]byte("b"), size(seq))
		s.raw(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(format.Envelope{ID: []byte("h"), Body: body}, false))
	}
	return s.open()
}

// A walk's chunk ends once its keys and values reach Range.ChunkBytes, one
// entry over at the most, whatever the chunk's count of entries.
func TestWalkChunksAreBoundedInBytes(t *testing.T) {
	st := hooksStore(t, 30, func(uint64) int { return 10 << 10 })
	const chunkBytes = 32 << 10
	for _, held := range []bool{false, true} {
		chunks, entries := 0, 0
		_, err := Chunks(st.DB, Range{CF: format.CFHooks, First: 4096, Held: held, ChunkBytes: chunkBytes}, func(chunk []Entry) (bool, error) {
			n, most := 0, 0
			for _, e := range chunk {
				n += len(e.K) + len(e.V)
				most = max(most, len(e.K)+len(e.V))
			}
			if n > chunkBytes+most {
				t.Errorf("held %v: a chunk of %d entries holds %d bytes", held, len(chunk), n)
			}
			chunks++
			entries += len(chunk)
			return false, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if entries < 30 || chunks < 8 {
			t.Errorf("held %v: %d entries in %d chunks", held, entries, chunks)
		}
	}
}

// A diff cursor's chunks are bounded in bytes as well as in keys: hooks of
// 100 KiB come two to a chunk (a fill of 256 KiB), not all in one, and a
// hook larger than a fill comes in a buffer of its own size and a quarter.
func TestDiffChunksBoundedInBytes(t *testing.T) {
	st := hooksStore(t, 40, func(seq uint64) int {
		if seq == 20 {
			return 1 << 20
		}
		return 100 << 10
	})
	var chunks, keys int
	c := PullColumn(context.Background(), st.DB, format.CFHooks)
	defer c.Close()
	var last *rocks.Fill
	for e := c.Peek(); e != nil; e = c.Peek() {
		if f := c.cur.Fill; f != last {
			last = f
			chunks++
			largest := 0
			for i, off := 0, 0; i < f.Len(); i++ {
				k, v, next := f.Entry(off)
				largest, off = max(largest, len(k)+len(v)), next
			}
			if f.Size() > max(256<<10, largest+largest/4) {
				t.Fatalf("a chunk of %d entries holds %d bytes (the largest %d)", f.Len(), f.Size(), largest)
			}
		}
		keys++
		c.Advance()
	}
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
	if keys != 40 || chunks < 20 {
		t.Fatalf("%d keys in %d chunks", keys, chunks)
	}
}
