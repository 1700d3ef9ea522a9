package rocks

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// TestIndexBlocksAreInTheBlockCache: a scanning reader's open tables hold outside the block
// cache a small part of their index blocks (those held by the table readers are what made
// the peak RSS of a read grow with the store: blockcache.go), and so do a writer's; a reader
// at random holds them all, in every family or in those it names, and the cache stays within
// its bound after keys are read through it.
func TestIndexBlocksAreInTheBlockCache(t *testing.T) {
	dir := t.TempDir()
	const tables, keysPerTable = 8, 16000
	// Every flush its own table: the test needs many tables, not a compacted few.
	db := mustOpen(t, dir, Options{Mode: ReadWrite, Create: true, Tune: Tuning{DisableAutoCompactions: true}})
	// Incompressible values, each its own: as many data blocks, so index entries, as the
	// bytes say.
	rng := rand.NewChaCha8([32]byte{1})
	value := make([]byte, 200)
	for i := 0; i < tables; i++ {
		mustWrite(t, db, func(b *Batch) {
			for k := 0; k < keysPerTable; k++ {
				// Interleaved ranges: every table overlaps every other, none is compacted away.
				_, _ = rng.Read(value)
				b.Put(format.CFHooks, []byte(fmt.Sprintf("hook/%08d/%02d", k, i)), value)
			}
		})
		if err := db.Flush(format.CFHooks); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	var index uint64
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	for _, p := range ssts {
		tp, err := readTableProperties(p)
		if err != nil {
			t.Fatal(err)
		}
		index += tp.IndexBytes
	}
	if len(ssts) < tables || index < 48<<10 {
		t.Fatalf("the store has %d tables and %d bytes of index: too few to tell", len(ssts), index)
	}

	for _, c := range []struct {
		name   string
		o      Options
		onHeap bool
	}{
		{"read-only", Options{Mode: ReadOnly}, false},
		{"secondary", Options{Mode: Secondary}, false},
		{"read-only, random lookups", Options{Mode: ReadOnly, RandomLookups: true}, true},
		{"read-write", Options{Mode: ReadWrite}, false},
		{"read-write, lookups in hooks", Options{Mode: ReadWrite, LookupFamilies: []string{format.CFHooks}}, true},
		{"read-only, lookups in another family", Options{Mode: ReadOnly, LookupFamilies: []string{format.CFDeliveries}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := mustOpen(t, dir, c.o)
			for k := 0; k < keysPerTable; k += 7 {
				if _, _, err := db.Get(format.CFHooks, []byte(fmt.Sprintf("hook/%08d/%02d", k, k%tables))); err != nil {
					t.Fatal(err)
				}
			}
			m, err := db.MemoryUse()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d tables, %d bytes of index; table readers %d, block cache %d (pinned %d)", len(ssts), index, m.TableReaders, m.BlockCache, m.BlockCachePinned)
			switch {
			case !c.onHeap && m.TableReaders*4 > index:
				t.Errorf("the open tables hold %d bytes outside the block cache beside %d bytes of index blocks: the index is not in the cache", m.TableReaders, index)
			case c.onHeap && m.TableReaders < index:
				t.Errorf("the open tables hold %d bytes outside the block cache beside %d bytes of index blocks: a reader at random would read them again", m.TableReaders, index)
			}
			if m.BlockCache > blockCacheBytes {
				t.Errorf("block cache holds %d bytes, bound %d", m.BlockCache, blockCacheBytes)
			}
			if m.BlockCache == 0 {
				t.Errorf("block cache holds nothing after %d reads: the families do not share the store's cache", keysPerTable/7)
			}
		})
	}
}
