package rocks

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// tableOfVersion makes a store whose tables are written with format_version fv and returns
// the store's directory and one of its table files (the default family's).
func tableOfVersion(t *testing.T, fv int) (dir, table string) {
	t.Helper()
	return tableOf(t, fv, sumCRC32c)
}

// tableOf is tableOfVersion with the given checksum type.
func tableOf(t *testing.T, fv int, checksum byte) (dir, table string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "store")
	rule := NewStoreRule(fv, grocksdb.SnappyCompression)
	rule.Default.Checksum = checksum
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, CreateFormat: format.Format3, NewTables: &rule})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBatch()
	for i := range 200 {
		b.Put(format.CFDefault, []byte("k:"+strings.Repeat("x", i%7)+string(rune('a'+i%26))), []byte(strings.Repeat("v", i)))
	}
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	if err := st.DB.Flush(format.CFDefault); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, f := range tablesOf(t, dir) {
		ti, err := ReadTableInfo(f)
		if err != nil {
			t.Fatal(err)
		}
		if ti.Family == format.CFDefault {
			return dir, f
		}
	}
	t.Fatalf("%s: no table of the default family", dir)
	return "", ""
}

func tablesOf(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil || len(m) == 0 {
		t.Fatalf("%s: no table files (%v)", dir, err)
	}
	return m
}

func footerOf(t *testing.T, path string) (footer, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	return readFooter(f, st.Size())
}

// Every format_version this build writes, with every checksum type, decodes to itself, and
// the footer's (from 6) and the metaindex and properties blocks' checksums verify: for 6 only
// with the context modifier, at the implied metaindex offset. (A node on RocksDB 8 or later
// writes xxh3 by default, 7.7.3 crc32c.)
func TestFooterOfEveryVersion(t *testing.T) {
	names := map[byte]string{sumNone: "NoChecksum", sumCRC32c: "CRC32c", sumXXHash: "xxHash", sumXXHash64: "xxHash64", sumXXH3: "XXH3"}
	for fv := 2; fv <= MaxTableFormatVersion; fv++ {
		for sum, name := range names {
			_, table := tableOf(t, fv, sum)
			checkFooterOf(t, table, fv, name)
		}
	}
}

func checkFooterOf(t *testing.T, table string, fv int, checksum string) {
	t.Helper()
	ft, err := footerOf(t, table)
	if err != nil {
		t.Fatalf("fv %d %s: %v", fv, checksum, err)
	}
	if int(ft.Version) != fv || ft.Newer() {
		t.Errorf("fv %d: footer says version %d (newer %v)", fv, ft.Version, ft.Newer())
	}
	if (ft.BaseContext != 0) != (fv >= contextFooterVersion) {
		t.Errorf("fv %d: base context %#x", fv, ft.BaseContext)
	}
	if _, err := checkTable(table); err != nil {
		t.Errorf("fv %d: checkTable on an undamaged table: %v", fv, err)
	}
	ti, err := ReadTableInfo(table)
	if err != nil || ti.FormatVersion != fv || ti.Compression != "Snappy" || ti.Checksum != checksum {
		t.Errorf("fv %d %s: ReadTableInfo = %+v, %v", fv, checksum, ti, err)
	}
}

// setFooter rewrites the footer of a format_version 6 table in place: edit changes its 53
// bytes, and with resum the footer checksum is computed again as a writer would, so that the
// result is a real footer of what edit made it.
func setFooter(t *testing.T, path string, resum bool, edit func(b []byte)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := data[len(data)-footerLen:]
	edit(b)
	if resum {
		off := uint64(len(data) - footerLen)
		var c [footerLen]byte
		copy(c[:], b)
		clear(c[5:9])
		sum, _ := blockChecksum(b[0], c[:])
		binary.LittleEndian.PutUint32(b[5:], sum+contextModifier(binary.LittleEndian.Uint32(b[9:]), off))
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func setVersion(v uint32) func(b []byte) {
	return func(b []byte) { binary.LittleEndian.PutUint32(b[footerLen-12:], v) }
}

// A footer that vouches for a newer version is a newer table; every other change is damage.
// Nothing in between: a damaged footer never passes for a newer table, nor the reverse.
func TestFooterNewerOrDamaged(t *testing.T) {
	tests := []struct {
		name  string
		resum bool
		edit  func(b []byte)
		newer bool // else damage (a *footerError)
	}{
		{"version 8, checksummed", true, setVersion(8), true},
		{"version 9, checksummed", true, setVersion(9), true},
		{"future feature bytes, checksummed", true, func(b []byte) { b[footerLen-14] = 1 }, true},
		{"version 8, stale checksum", false, setVersion(8), false},
		{"version 7, stale checksum", false, setVersion(7), false},
		// Two bytes changed: the checksum type to none and a future-feature byte. Without a
		// checksum nothing vouches for the feature: damage, never "newer, not damaged".
		{"checksum type none and a future feature byte", false, func(b []byte) { b[0] = sumNone; b[footerLen-14] = 1 }, false},
		{"checksum type none and version 8", false, func(b []byte) { b[0] = sumNone; setVersion(8)(b) }, false},
		// The same written as a no-checksum writer would (the modifier alone stored): still
		// not vouched for.
		{"no-checksum footer naming a future feature", true, func(b []byte) { b[0] = sumNone; b[footerLen-14] = 1 }, false},
		{"no-checksum footer naming version 8", true, func(b []byte) { b[0] = sumNone; setVersion(8)(b) }, false},
		{"checksum type changed to none", false, func(b []byte) { b[0] = sumNone }, false},
		{"footer checksum flipped", false, func(b []byte) { b[6] ^= 0x10 }, false},
		{"extended magic flipped", true, func(b []byte) { b[2] ^= 0x01 }, false},
		{"base context zero", true, func(b []byte) { clear(b[9:13]) }, false},
		{"checksum type unknown", true, func(b []byte) { b[0] = 9 }, false},
		{"version field bit flip to 0x01000006", false, setVersion(0x01000006), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, table := tableOfVersion(t, 6)
			setFooter(t, table, tt.resum, tt.edit)
			ft, err := footerOf(t, table)
			var fe *footerError
			switch {
			case tt.newer && (err != nil || !ft.Newer()):
				t.Fatalf("want a newer table, got %+v, %v", ft, err)
			case !tt.newer && !errors.As(err, &fe):
				t.Fatalf("want damage (*footerError), got %+v, %v", ft, err)
			}
			// suspectFiles names a table whose footer does not decode; a newer one decodes.
			if got := footerOK(table); got != tt.newer {
				t.Errorf("footerOK = %v, want %v", got, tt.newer)
			}
		})
	}
}

// Each of the 8 bytes before the version field (33 to 40), set alone in a checksummed
// footer, names a feature newer than the version: a newer table, refused by OpenStore as
// ErrNewerTable, never RocksDB's raw "Not implemented". The 16 bytes before them (17 to 32)
// RocksDB does not read: set, the table opens as it is (a reader that looked one byte early
// would refuse byte 32 and pass byte 40).
func TestFooterFutureFeatureBytes(t *testing.T) {
	dir, table := tableOfVersion(t, 6)
	for i := 17; i < footerLen-12; i++ {
		setFooter(t, table, true, func(b []byte) { b[i] = 0x01 })
		ft, err := footerOf(t, table)
		future := i >= footerLen-20
		switch {
		case err != nil:
			t.Errorf("byte %d set: %v", i, err)
		case ft.Newer() != future:
			t.Errorf("byte %d set: Newer() = %v, want %v (FutureFeature %v)", i, ft.Newer(), future, ft.FutureFeature)
		}
		st, err := OpenStore(dir, Options{Mode: ReadOnly})
		if future {
			if !errors.Is(err, ErrNewerTable) || !strings.Contains(fmt.Sprint(err), "feature newer than that version") {
				t.Errorf("byte %d set: open = %v, want ErrNewerTable (a feature newer than its version)", i, err)
			}
		} else if err != nil {
			t.Errorf("byte %d set (RocksDB does not read it): open = %v", i, err)
		}
		if err == nil {
			st.Close()
		}
		setFooter(t, table, true, func(b []byte) { b[i] = 0 })
	}
	st, err := OpenStore(dir, Options{Mode: ReadOnly})
	if err != nil {
		t.Fatalf("the footer restored: %v", err)
	}
	st.Close()
}

// A block's stored checksum in format_version 6 carries its offset's context: a properties
// block with one byte changed is found before RocksDB parses it, as in older versions.
func TestPropertiesDamageFoundInVersion6(t *testing.T) {
	for _, fv := range []int{5, 6} {
		_, table := tableOfVersion(t, fv)
		f, _ := os.Open(table)
		st, _ := f.Stat()
		ft, err := readFooter(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		meta, _, err := readBlock(f, st.Size(), ft.Metaindex, ft, "t", "metaindex")
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		h, ok := findMeta(meta, propertiesBlockName)
		if !ok {
			t.Fatal("no properties block")
		}
		data, _ := os.ReadFile(table)
		data[h.off+h.size/2] ^= 0x04
		os.WriteFile(table, data, 0o644)
		var te *TableError
		if _, err := checkTable(table); !errors.As(err, &te) || te.Block != "properties" {
			t.Errorf("fv %d: checkTable on a damaged properties block = %v", fv, err)
		}
	}
}

// A store holding a table newer than this build is refused before RocksDB opens it, in
// every mode, as a newer table and never as corruption, naming the file, its version, the
// newest this build reads and the RocksDB of the store's OPTIONS file; nothing is written.
func TestNewerTableRefusedBeforeOpen(t *testing.T) {
	dir, table := tableOfVersion(t, 6)
	setFooter(t, table, true, setVersion(8))
	// As an erlang-rocksdb 3.x node leaves it: its OPTIONS file names RocksDB 11.1.2.
	node := optionsText("11.1.2", map[string][3]string{"default": {"kSnappyCompression", "7", "kXXH3"}})
	if err := os.WriteFile(filepath.Join(dir, "OPTIONS-000099"), []byte(node), 0o644); err != nil {
		t.Fatal(err)
	}
	before := dirHashes(t, dir)
	for _, mode := range []Mode{ReadOnly, Secondary, ReadWrite} {
		_, err := OpenStore(dir, Options{Mode: mode})
		if !errors.Is(err, ErrNewerTable) || errors.Is(err, ErrCorrupt) {
			t.Fatalf("%v: open = %v, want ErrNewerTable and not ErrCorrupt", mode, err)
		}
		msg := err.Error()
		for _, want := range []string{filepath.Base(table), "format_version 8", "up to 7", "OPTIONS-000099 names RocksDB 11.1.2", "RocksDB " + LibraryVersion(), "nothing was written"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%v: the refusal lacks %q: %s", mode, want, msg)
			}
		}
	}
	after := dirHashes(t, dir)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed", k)
		}
	}
	if len(after) != len(before) {
		t.Errorf("files %d -> %d", len(before), len(after))
	}
}
