package rocks

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// TestHelperProcess is not a test: re-executed by TestLocked as another
// process that holds a store open read-write until its stdin closes.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("ANKUSA_ROCKS_HOLD_STORE")
	if dir == "" {
		t.Skip("helper process only")
	}
	st, err := OpenStore(dir, Options{Mode: ReadWrite})
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	b := NewBatch()
	b.Put(format.CFHooks, []byte("held"), []byte("by helper"))
	if err := st.Write(b, true); err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("ready\n")
	io.Copy(io.Discard, os.Stdin)
	st.Close()
	os.Exit(0)
}

func TestLocked(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamDue)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "ANKUSA_ROCKS_HOLD_STORE="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("helper: %q %v", line, err)
	}

	_, err = OpenStore(dir, Options{Mode: ReadWrite})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "store is locked (is the node running?)") {
		t.Fatalf("read-write open of a held store: %v", err)
	}
	t.Log(err)
	for _, m := range []Mode{ReadOnly, Secondary} {
		st, err := OpenStore(dir, Options{Mode: m})
		if err != nil {
			t.Fatalf("%v open of a held store: %v", m, err)
		}
		v, ok, err := st.Get(format.CFHooks, []byte("held"))
		if err != nil || !ok || string(v) != "by helper" {
			t.Errorf("%v: %q %v %v", m, v, ok, err)
		}
		if err := st.Fold(format.FamDue, ReadOpts{}, func(k, v []byte) error { return nil }); err != nil {
			t.Errorf("%v fold: %v", m, err)
		}
		if err := st.Write(NewBatch(), false); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%v write: %v", m, err)
		}
		st.Close()
	}
}

func TestReadOnlyLeavesFilesIdentical(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamDue, format.FamCounters)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	mustWrite(t, db, func(b *Batch) {
		b.Put(format.CFIndex, dueKey(1, 2, 3), []byte{0, 0, 0, 1, 0})
		b.Merge(format.CFCounters, counterKey(1), operand(1))
	})
	db.Flush(format.CFIndex)
	mustWrite(t, db, func(b *Batch) { b.Merge(format.CFCounters, counterKey(1), operand(1)) })
	db.Close() // leaves data in the WAL, like a node
	// A store copied without its LOCK file (from a tarball) must not get one.
	for _, removeLock := range []bool{false, true} {
		if removeLock {
			os.Remove(filepath.Join(dir, "LOCK"))
		}
		before := dirHashes(t, dir)
		st, err := OpenStore(dir, Options{Mode: ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		if err := st.Fold(format.FamDue, ReadOpts{}, func(k, v []byte) error { n++; return nil }); err != nil || n != 1 {
			t.Fatal(n, err)
		}
		if err := st.Fold(format.FamCounters, ReadOpts{}, func(k, v []byte) error { n++; return nil }); err != nil || n != 2 {
			t.Fatal(n, err)
		}
		st.Scan(format.CFDefault, nil, nil, ReadOpts{FillCache: true}, func(k, v []byte) error { return nil })
		st.ScanReverse(format.CFIndex, nil, nil, ReadOpts{}, func(k, v []byte) error { return nil })
		st.MultiGet(format.CFCounters, [][]byte{counterKey(1)})
		st.Close()
		if after := dirHashes(t, dir); !reflect.DeepEqual(before, after) {
			t.Fatalf("read-only open changed the store (lock removed: %v):\nbefore %v\nafter  %v", removeLock, before, after)
		}
	}
}

func TestFormatGuard(t *testing.T) {
	base := t.TempDir()
	// Missing: refused, and not created.
	missing := filepath.Join(base, "missing")
	for _, m := range []Mode{ReadOnly, Secondary, ReadWrite} {
		if _, err := OpenStore(missing, Options{Mode: m}); !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), "not an Ankusa store") {
			t.Fatalf("%v missing: %v", m, err)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatal("OpenStore created the missing directory")
	}
	// Not a RocksDB directory.
	plain := filepath.Join(base, "plain")
	os.MkdirAll(plain, 0o755)
	os.WriteFile(filepath.Join(plain, "notes.txt"), []byte("hi"), 0o644)
	if _, err := OpenStore(plain, Options{Mode: ReadWrite}); !errors.Is(err, ErrNotStore) {
		t.Fatalf("plain dir: %v", err)
	}
	if ents, _ := os.ReadDir(plain); len(ents) != 1 {
		t.Fatalf("plain dir was written to: %v", ents)
	}
	// A RocksDB store without m:format.
	bare := filepath.Join(base, "bare")
	db, err := Open(bare, Options{Mode: ReadWrite, Create: true, CreateFormat: 2})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenStore(bare, Options{Mode: ReadOnly}); !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), "m:format") {
		t.Fatalf("no m:format: %v", err)
	}
	// Create refuses an existing store.
	if _, err := OpenStore(bare, Options{Mode: ReadWrite, Create: true}); err == nil {
		t.Fatal("create over an existing store succeeded")
	}

	// Format 2 and 3, migrating.
	s2 := filepath.Join(base, "s2")
	st, err := OpenStore(s2, Options{Mode: ReadWrite, Create: true, CreateFormat: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Families(); !reflect.DeepEqual(got, format.FamiliesV2) {
		t.Fatalf("format 2 families %v", got)
	}
	if err := st.CreateFamily(format.CFTenants); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateFamily(format.CFCounters); err != nil {
		t.Fatal(err)
	}
	b := NewBatch()
	b.Put(format.CFDefault, []byte(format.KeyMigrating3), []byte{1})
	b.Merge(format.CFCounters, counterKey(1), operand(4))
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = OpenStore(s2, Options{Mode: ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	if st.Format != 2 || !st.Migrating || !st.HasFamily(format.CFCounters) {
		t.Fatalf("format %d migrating %v families %v", st.Format, st.Migrating, st.Families())
	}
	if v, _, err := st.Get(format.CFCounters, counterKey(1)); err != nil || !bytes.Equal(v, ok(4)) {
		t.Fatalf("counters in a created family: %v %v", v, err)
	}
	st.Close()

	// Newer format.
	s4 := filepath.Join(base, "s4")
	newStore(t, s4)
	db = mustOpen(t, s4, Options{Mode: ReadWrite})
	mustWrite(t, db, func(b *Batch) { b.Put(format.CFDefault, []byte(format.KeyFormat), format.EncodeU32(4)) })
	db.Close()
	if _, err := OpenStore(s4, Options{Mode: ReadOnly}); !errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), "{:store_format_newer, 4, 3}") {
		t.Fatalf("newer: %v", err)
	}

	// An unknown column family: refused and named, even read-only.
	s5 := filepath.Join(base, "s5")
	newStore(t, s5)
	db = mustOpen(t, s5, Options{Mode: ReadWrite})
	if err := db.CreateFamily("blobs"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, m := range []Mode{ReadOnly, ReadWrite} {
		_, err := OpenStore(s5, Options{Mode: m})
		if !errors.Is(err, ErrUnknownFamily) || !strings.Contains(err.Error(), "blobs") || errors.Is(err, ErrNewerFormat) {
			t.Fatalf("%v unknown family: %v", m, err)
		}
	}
	// ... and with a newer m:format too, both are said.
	db = mustOpen(t, s5, Options{Mode: ReadWrite})
	mustWrite(t, db, func(b *Batch) { b.Put(format.CFDefault, []byte(format.KeyFormat), format.EncodeU32(4)) })
	db.Close()
	if _, err := OpenStore(s5, Options{Mode: ReadOnly}); !errors.Is(err, ErrUnknownFamily) || !errors.Is(err, ErrNewerFormat) {
		t.Fatalf("newer with unknown family: %v", err)
	} else {
		t.Log(err)
	}
}

// grocksdb keeps its C handles in unexported fields named c; if an upgrade
// changes that, this fails instead of handing RocksDB a wrong pointer.
func TestCPointerLayout(t *testing.T) {
	for _, v := range []any{grocksdb.DB{}, grocksdb.ColumnFamilyHandle{}, grocksdb.Options{}, grocksdb.Snapshot{},
		grocksdb.ReadOptions{}, grocksdb.Iterator{}} {
		f, ok := reflect.TypeOf(v).FieldByName("c")
		if !ok || f.Type.Kind() != reflect.Pointer || f.Offset != 0 {
			t.Fatalf("%T: field c = %+v, want a pointer at offset 0", v, f)
		}
	}
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadOnly})
	snap, err := db.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	if db.cdb == nil || snap.c == nil || db.cfs[format.CFCounters].c == nil || optionsPtr(db.cfs[format.CFIndex].opts) == nil {
		t.Fatal("nil C handle")
	}
	// The pointer we read is the one grocksdb uses: a read through our C
	// iterator and one through grocksdb agree.
	if db.cfs[format.CFDefault].c != cPtr(db.cfs[format.CFDefault].h) {
		t.Fatal("handle mismatch")
	}
}

// Opening and closing many times, with counters merged and read each time:
// the options holding the Go merge operator are freed in the one safe way.
func TestOpenCloseCycles(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamCounters)
	for i := 0; i < 30; i++ {
		db, err := Open(dir, Options{Mode: []Mode{ReadWrite, ReadOnly, Secondary}[i%3]})
		if err != nil {
			t.Fatal(err)
		}
		if db.Mode() == ReadWrite {
			mustWrite(t, db, func(b *Batch) { b.Merge(format.CFCounters, counterKey(1), operand(1)) })
			if i%2 == 0 {
				db.Flush(format.CFCounters)
			}
		}
		if v, _, err := db.Get(format.CFCounters, counterKey(1)); err != nil || !bytes.Equal(v, ok(int64(i/3+1))) {
			t.Fatalf("cycle %d: %v %v", i, v, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil { // idempotent
			t.Fatal(err)
		}
		if _, _, err := db.Get(format.CFCounters, counterKey(1)); !errors.Is(err, ErrClosed) {
			t.Fatalf("get after close: %v", err)
		}
	}
	// A snapshot released after Close is a no-op.
	db, _ := Open(dir, Options{Mode: ReadOnly})
	s, err := db.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	s.Release()
}

func TestBatchAndCheckpoint(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamCounters)
	db := mustOpen(t, dir, Options{Mode: ReadWrite, Tune: BulkTuning})
	b := NewBatch()
	b.Put(format.CFHooks, []byte("a"), []byte("1"))
	b.Put("nope", []byte("b"), []byte("2"))
	if err := db.Write(b, true); !errors.Is(err, ErrNoFamily) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown family: %v", err)
	}
	if _, ok, _ := db.Get(format.CFHooks, []byte("a")); ok {
		t.Fatal("a batch naming an unknown family was partly written")
	}
	if b.Count() != 2 {
		t.Fatal(b.Count())
	}
	b.Clear()
	for i := 0; i < 10; i++ {
		b.Put(format.CFHooks, []byte{byte(i)}, []byte{byte(i)})
	}
	b.DeleteRange(format.CFHooks, []byte{2}, []byte{8})
	b.Delete(format.CFHooks, []byte{9})
	b.Merge(format.CFCounters, counterKey(2), operand(300))
	if err := db.Write(b, true); err != nil {
		t.Fatal(err)
	}
	var keys []byte
	db.Scan(format.CFHooks, nil, nil, ReadOpts{}, func(k, v []byte) error { keys = append(keys, k[0]); return nil })
	if !bytes.Equal(keys, []byte{0, 1, 8}) {
		t.Fatalf("keys %v", keys)
	}
	cp := t.TempDir() + "/cp"
	os.Remove(cp)
	if err := db.Checkpoint(cp); err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(cp, Options{Mode: ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, _, err := st.Get(format.CFCounters, counterKey(2)); err != nil || !bytes.Equal(v, ok(300)) {
		t.Fatalf("checkpoint counters: %v %v", v, err)
	}
	b.Destroy()
	if b.Count() != 0 {
		t.Fatal("destroyed batch not empty")
	}
	_ = time.Second
}

// The tests link the one RocksDB the release links: 11.1.2, a Release build (the probe reads
// the library, not a build flag), statically (no librocksdb mapped).
func TestLibraryVersion(t *testing.T) {
	if v := LibraryVersion(); v != "11.1.2" {
		t.Fatalf("LibraryVersion() = %q, want 11.1.2", v)
	}
	if LibraryAssertions() {
		t.Error("the linked RocksDB has assertions: not scripts/build-rocksdb.sh's Release build")
	}
	if f := LibraryFile(); f != "" {
		t.Errorf("RocksDB is linked dynamically (%s), want statically", f)
	}
}
