package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// statusVolatile are the status fields that describe the files, not the store's content:
// they differ between two copies written with different table formats by design.
var statusVolatile = []string{"rocksdb", "totals", "families", "disk"}

// readViews runs every read-only view on dir and returns their outputs by command line,
// with dir itself written as STORE.
func readViews(t *testing.T, dir string, storeFormat uint32) map[string]string {
	t.Helper()
	views := [][]string{
		{"status", "-o", "json"},
		{"tenants", "ls", "-o", "tsv"},
		{"tenants", "ls", "-o", "json"},
		{"dlq", "scan", "-o", "json", "--limit", "0"},
		{"dlq", "scan", "-o", "tsv"},
		{"counters", "verify", "-o", "json"},
	}
	fams := format.FamiliesV2
	if storeFormat == format.Format2 {
		views = append(views, []string{"migrate", "--dry-run", "--now", migrateNow, "-o", "json"})
	}
	if storeFormat == format.Format3 {
		fams = format.FamiliesV3
		views = append(views, []string{"tenants", "show", "-o", "json", "acme"})
	}
	for _, cf := range fams {
		views = append(views, []string{"scan", "-o", "tsv", "--limit", "0", cf})
	}
	out := map[string]string{}
	for _, v := range views {
		args := append(append([]string{}, v...), dir)
		code, stdout, stderr := runCLI(t.Context(), args)
		if v[0] == "status" {
			stdout = dropJSONFields(t, stdout, statusVolatile...)
		}
		stdout = timeless(t, v, stdout)
		key := strings.Join(v, " ")
		out[key] = fmt.Sprintf("exit %d\n%s\n%s", code, strings.ReplaceAll(stdout, dir, "STORE"), strings.ReplaceAll(stderr, dir, "STORE"))
	}
	return out
}

// clockField names what the wall clock (the views read the time when they run), the machine
// (free disk space) or the table files (migrate's space estimate counts the index family's
// files, which a table format makes larger or smaller; "writes" is the table format itself)
// put in a view's output: two copies of one store read a moment apart differ there and
// nowhere else. The space figure's parts are the table files' too: the migration's share
// counts the index family's, the checkpoint's the WAL and MANIFEST that wrote them.
func clockField(name string) bool {
	return name == "now" || name == "started_at" || name == "duration_ms" || strings.Contains(name, "age") ||
		name == "free_bytes" || name == "enough" || name == "need_bytes" || name == "needed_bytes" ||
		name == "index_bytes" || name == "writes" || name == "migration_bytes" || name == "checkpoint_bytes" || name == "short"
}

// timeless blanks the clock's fields of a view's output: JSON keys and TSV columns.
func timeless(t *testing.T, view []string, out string) string {
	t.Helper()
	switch {
	case strings.Contains(strings.Join(view, " "), "-o json"):
		var doc any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			return out // an error document or a stream: compared as is
		}
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					if clockField(k) {
						x[k] = "CLOCK"
						continue
					}
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(doc)
		b, _ := json.MarshalIndent(doc, "", "  ")
		return string(b)
	case strings.Contains(strings.Join(view, " "), "-o tsv"):
		lines := strings.Split(out, "\n")
		if len(lines) == 0 {
			return out
		}
		header := strings.Split(lines[0], "\t")
		for i, l := range lines {
			cells := strings.Split(l, "\t")
			for j := range cells {
				if i > 0 && j < len(header) && clockField(header[j]) && len(cells) == len(header) {
					cells[j] = "CLOCK"
				}
			}
			lines[i] = strings.Join(cells, "\t")
		}
		return strings.Join(lines, "\n")
	}
	return out
}

func dropJSONFields(t *testing.T, doc string, fields ...string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	for _, f := range fields {
		delete(m, f)
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return string(b)
}

// makeFixture writes a fixture directory with the command, the way a user would.
func makeFixture(t *testing.T, dir string, storeFormat uint32, extra ...string) {
	t.Helper()
	args := append([]string{"fixture", "--format", fmt.Sprint(storeFormat), "--seed", "3", "--tenants", "12",
		"--hooks", "900", "--now", "2026-11-30T10:00:00Z", "--dir"}, extra...)
	if code, out, errOut := runCLI(t.Context(), append(args, dir)); code != 0 {
		t.Fatalf("fixture %v: exit %d\n%s%s", extra, code, out, errOut)
	}
}

func wantTableVersion(t *testing.T, dir string, fv int) {
	t.Helper()
	for file, got := range storetest.TableFormats(t, dir) {
		if !strings.Contains(got, fmt.Sprintf(" fv%d ", fv)) {
			t.Errorf("%s/%s: %s, want format_version %d", filepath.Base(dir), file, got, fv)
		}
	}
}

// Every command answers the same on a store whose tables are format_version 6 (what a node
// on RocksDB 9, erlang-rocksdb 1.9 and 2.x, writes by default) or 7 (RocksDB 11, the binding's
// 3.x) as on its format_version 5 copy, and the migration of each is key-for-key equal to the
// format_version 5 copy's; each keeps its own table format.
func TestEveryCommandSameOnTableFormats(t *testing.T) {
	newer := []int{6, 7}
	for _, sf := range []uint32{format.Format2, format.Format3} {
		t.Run(fmt.Sprintf("format %d", sf), func(t *testing.T) {
			root := t.TempDir()
			dir := func(fv int) string { return filepath.Join(root, fmt.Sprintf("fv%d", fv), "store") }
			for _, fv := range append([]int{5}, newer...) {
				if err := os.MkdirAll(filepath.Dir(dir(fv)), 0o755); err != nil {
					t.Fatal(err)
				}
				if fv == 5 {
					makeFixture(t, dir(fv), sf)
				} else {
					makeFixture(t, dir(fv), sf, "--table-format-version", fmt.Sprint(fv))
				}
				wantTableVersion(t, dir(fv), fv)
			}
			compare := func(stage string, storeFormat uint32) {
				t.Helper()
				base := readViews(t, dir(5), storeFormat)
				for _, fv := range newer {
					got := readViews(t, dir(fv), storeFormat)
					for k, want := range base {
						if got[k] != want {
							t.Errorf("%s: %s differs on format_version %d:\n--- fv5\n%s\n--- fv%d\n%s", stage, k, fv, want, fv, got[k])
						}
					}
				}
			}
			compare("fixture", sf)
			if sf != format.Format2 {
				return
			}
			for _, fv := range append([]int{5}, newer...) {
				if code, out, errOut := runCLI(t.Context(), []string{"migrate", "--no-backup", "--now", migrateNow, dir(fv)}); code != 0 {
					t.Fatalf("migrate %s: exit %d\n%s%s", dir(fv), code, out, errOut)
				}
			}
			base := storetest.Dump(t, dir(5))
			for _, fv := range append([]int{5}, newer...) {
				if fv != 5 {
					storetest.AssertSame(t, base, storetest.Dump(t, dir(fv)))
				}
				wantTableVersion(t, dir(fv), fv)
			}
			compare("migrated", format.Format3)
		})
	}
}

// What migrate, counters verify --repair and fixture write into a store is what the oldest
// node supported reads: every table format_version 5 with the store's compression, and
// RocksDB 7.8.3 (Debian's ldb and sst_dump) reads every table, the WAL and every family as
// the tool does. The migrated and repaired stores are committed ones RocksDB 7.8.3 wrote.
func TestOldestNodeReadsWhatCommandsWrite(t *testing.T) {
	// The committed stores were written by 7.8.3 with its defaults (xxh3); a new store gets
	// crc32c, 7.7.3's default, which every node reads.
	wantNodeFormat := func(t *testing.T, dir, checksum string) {
		t.Helper()
		for file, got := range storetest.TableFormats(t, dir) {
			want := "fv5 " + checksum + " Snappy"
			if strings.HasPrefix(got, format.CFCounters+" ") {
				want = "fv5 " + checksum + " NoCompression"
			}
			if !strings.HasSuffix(got, " "+want) {
				t.Errorf("%s: %s, want %s", file, got, want)
			}
		}
	}
	t.Run("fixture", func(t *testing.T) {
		for _, sf := range []uint32{format.Format2, format.Format3} {
			dir := filepath.Join(t.TempDir(), "store")
			makeFixture(t, dir, sf)
			wantNodeFormat(t, dir, "CRC32c")
			storetest.OldestNodeReads(t, dir)
		}
	})
	t.Run("migrate", func(t *testing.T) {
		dir := storetest.Extract(t, "store-v2.tar.zst")
		if code, out, errOut := runCLI(t.Context(), []string{"migrate", "--method", "steps", "--no-backup", "--now", migrateNow, dir}); code != 0 {
			t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
		}
		wantNodeFormat(t, dir, "XXH3")
		storetest.OldestNodeReads(t, dir)
	})
	// The bulk method's table files carry no family name (rocks.NewSSTWriter makes them
	// without the family's handle, which RocksDB's C API cannot pass), so the family is
	// told by the one file the contract leaves uncompressed: the counters'. Every other
	// file is Snappy, every one format_version 5, and RocksDB 7.8.3 reads them all.
	t.Run("migrate bulk", func(t *testing.T) {
		dir := storetest.Extract(t, "store-v2.tar.zst")
		if code, out, errOut := runCLI(t.Context(), []string{"migrate", "--method", "bulk", "--no-backup", "--now", migrateNow, dir}); code != 0 {
			t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
		}
		plain := 0
		for file, got := range storetest.TableFormats(t, dir) {
			switch {
			case strings.HasPrefix(got, " ") && strings.HasSuffix(got, " fv5 XXH3 NoCompression"):
				plain++
			case !strings.HasSuffix(got, " fv5 XXH3 Snappy") && !strings.HasSuffix(got, format.CFCounters+" fv5 XXH3 NoCompression"):
				t.Errorf("%s: %s, want fv5 XXH3 Snappy (NoCompression for the counters' file)", file, got)
			}
		}
		if plain != 1 {
			t.Errorf("%d unnamed uncompressed table files, want the counters' one", plain)
		}
		storetest.OldestNodeReads(t, dir)
	})
	t.Run("repair", func(t *testing.T) {
		dir := storetest.Extract(t, "health/verify-counters.tar.zst")
		cp := filepath.Join(t.TempDir(), "cp")
		if code, out, errOut := runCLI(t.Context(), []string{"counters", "verify", "--repair", "--yes", "--backup", cp, dir}); code != 0 {
			t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
		}
		wantNodeFormat(t, dir, "XXH3")
		storetest.OldestNodeReads(t, dir)
	})
}
