package rocks

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

func TestNewerThan(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"7.8.3", "7.8.3", false},
		{"7.8.4", "7.8.3", true},
		{"7.10.0", "7.8.3", true}, // numeric, not lexical
		{"8.0", "7.8.3", true},
		{"7.8", "7.8.3", false},
		{"6.29.5", "7.8.3", false},
		{"", "7.8.3", false},
		{"9.1.0", "", false},
	}
	for _, tc := range tests {
		if got := NewerThan(tc.a, tc.b); got != tc.want {
			t.Errorf("NewerThan(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// The stats of a real store agree with what RocksDB's own metadata says
// (GetLiveFilesMetaData, a different code path from the properties) and with
// the files on disk; the footers say the format_version the OPTIONS file asks for.
func TestStatsOfARealStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	newStore(t, dir, format.FamDue)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	for round := 0; round < 3; round++ {
		mustWrite(t, db, func(b *Batch) {
			for i := 0; i < 1000; i++ {
				b.Put(format.CFHooks, format.HookKey{Seq: uint64(round*1000 + i + 1)}.Encode(), []byte(strings.Repeat("x", 50)))
			}
		})
		if err := db.Flush(format.CFHooks); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := db.FamilyStats()
	if err != nil {
		t.Fatal(err)
	}
	meta := db.db.GetLiveFilesMetaData()
	perCF := map[string]struct {
		files [NumLevels]int
		bytes uint64
	}{}
	for _, m := range meta {
		e := perCF[m.ColumnFamilyName]
		e.files[m.Level]++
		e.bytes += uint64(m.Size)
		perCF[m.ColumnFamilyName] = e
	}
	if len(fs) != len(format.FamiliesV3) {
		t.Fatalf("%d families, want %d", len(fs), len(format.FamiliesV3))
	}
	for _, f := range fs {
		e := perCF[f.Name]
		if f.FilesPerLevel != e.files || f.SSTBytes != e.bytes {
			t.Errorf("%s: files %v, %d bytes; RocksDB's metadata says %v, %d", f.Name, f.FilesPerLevel, f.SSTBytes, e.files, e.bytes)
		}
	}
	var hooks FamilyStats
	for _, f := range fs {
		if f.Name == format.CFHooks {
			hooks = f
		}
	}
	if hooks.EstimatedKeys != 3000 || hooks.FilesPerLevel[0] != 3 {
		t.Errorf("hooks: %+v, want 3000 keys in 3 L0 files", hooks)
	}

	fv, err := ReadFileVersions(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fv.SSTFiles != len(meta) || fv.UnreadableSST != 0 || fv.RocksDBVersion != LibraryVersion() {
		t.Errorf("file versions %+v: want %d SST files written by %s", fv, len(meta), LibraryVersion())
	}
	want := fv.TableFormatVersions[format.CFHooks]
	if want == 0 || fv.SSTFormatVersions[want] != fv.SSTFiles {
		t.Errorf("SST footers say %v, the OPTIONS file asks for format_version %d", fv.SSTFormatVersions, want)
	}
	if fv.WALFiles == 0 {
		t.Errorf("no WAL file found: %+v", fv)
	}
}

// Footers: the new one with its format_version, the legacy one (version 0), one claiming
// version 6 without that version's checksummed layout (damage), and files that are no table.
// Real footers of every version are TestFooterOfEveryVersion's.
func TestSSTFormatVersion(t *testing.T) {
	dir := t.TempDir()
	footer := func(version uint32, magic uint64) []byte {
		b := make([]byte, 100)
		b = append(b, sumCRC32c)
		b = append(b, make([]byte, 40)...)
		b = binary.LittleEndian.AppendUint32(b, version)
		return binary.LittleEndian.AppendUint64(b, magic)
	}
	tests := []struct {
		name    string
		content []byte
		want    int
		err     string
	}{
		{"block-based v5", footer(5, magicBlockBased), 5, ""},
		{"block-based v6 without its layout", footer(6, magicBlockBased), 0, "extended magic"},
		{"legacy", append(make([]byte, 40), binary.LittleEndian.AppendUint64(make([]byte, 4), magicLegacyBlockBased)...), 0, ""},
		{"not a table", []byte(strings.Repeat("not a table ", 10)), 0, "not a block-based table"},
		{"too short", []byte("short"), 0, "too short"},
	}
	for i, tc := range tests {
		p := filepath.Join(dir, fmt.Sprintf("%06d.sst", i))
		if err := os.WriteFile(p, tc.content, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := sstFormatVersion(p)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
	fv, err := ReadFileVersions(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fv.SSTFiles != 5 || fv.UnreadableSST != 3 || fv.SSTFormatVersions[5] != 1 || fv.SSTFormatVersions[0] != 1 || len(fv.Problems) != 3 {
		t.Errorf("%+v", fv)
	}
}
