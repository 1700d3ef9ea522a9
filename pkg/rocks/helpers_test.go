package rocks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// operand is term_to_binary({int_add, v}) as OTP 26 writes it.
func operand(v int64) []byte {
	b := []byte{131, 104, 2, 119, 7}
	b = append(b, "int_add"...)
	return append(b, AppendETFInt(nil, v)[1:]...)
}

// newStore creates a format 3 store with the sentinels of the given families.
func newStore(t testing.TB, dir string, fams ...format.Family) {
	t.Helper()
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, CreateFormat: format.Format3})
	if err != nil {
		t.Fatalf("create store: %v", err)
	}
	defer st.Close()
	b := NewBatch()
	for _, f := range fams {
		b.Put(f.CF, f.Lo, nil)
		b.Put(f.CF, f.Hi, nil)
	}
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
}

func mustOpen(t testing.TB, dir string, o Options) *DB {
	t.Helper()
	db, err := Open(dir, o)
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustWrite(t testing.TB, db *DB, fill func(b *Batch)) {
	t.Helper()
	b := NewBatch()
	fill(b)
	if err := db.Write(b, false); err != nil {
		t.Fatal(err)
	}
}

// hookKey is the i-th key of hooksOf's store.
func hookKey(i int) []byte { return []byte(fmt.Sprintf("k%06d", i)) }

// hooksOf opens a new store whose hooks family holds n keys, hookKey(i) with
// the value val(i) (the scans' tests: plain keys, values of any size).
func hooksOf(t testing.TB, n int, val func(i int) []byte) *DB {
	t.Helper()
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	mustWrite(t, db, func(b *Batch) {
		for i := 0; i < n; i++ {
			b.Put(format.CFHooks, hookKey(i), val(i))
		}
	})
	return db
}

// stagedStore opens a new store read-write and makes a staging directory inside it, as the
// bulk migration's is (its files are linked in by an ingest, not copied).
func stagedStore(t testing.TB) (st *Store, stage string) {
	t.Helper()
	return stagedStoreTuned(t, Tuning{})
}

// stagedStoreTuned is stagedStore opened with tune.
func stagedStoreTuned(t testing.TB, tune Tuning) (st *Store, stage string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "s")
	newStore(t, dir)
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Tune: tune})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	stage = filepath.Join(dir, "stage")
	if err := os.Mkdir(stage, 0o700); err != nil {
		t.Fatal(err)
	}
	return st, stage
}

// flushedNoise opens a new store, tuned so, whose hooks family holds n keys, hookKey(i), of
// size bytes that do not compress, flushed into one table file of 4 KiB blocks.
func flushedNoise(t testing.TB, n, size int, tune Tuning) *DB {
	t.Helper()
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite, Tune: tune})
	r := rand.New(rand.NewPCG(45, uint64(n)))
	mustWrite(t, db, func(b *Batch) {
		for i := range n {
			v := make([]byte, size)
			for j := range v {
				v[j] = byte(r.Uint32())
			}
			b.Put(format.CFHooks, hookKey(i), v)
		}
	})
	if err := db.Flush(format.CFHooks); err != nil {
		t.Fatal(err)
	}
	return db
}

// fileReads is how many reads of table files RocksDB has made (a store opened with
// Tuning.Statistics).
func fileReads(t testing.TB, db *DB) uint64 {
	t.Helper()
	n, ok := db.TableFileReads()
	if !ok {
		t.Fatal("the statistics hold no read counts")
	}
	return n
}

// dirHashes maps every file under dir to the SHA-256 of its bytes.
func dirHashes(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(h[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
