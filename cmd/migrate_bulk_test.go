package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// sameButMethod is migrate's JSON without what may differ between the two methods: the
// method itself, the store's path and the clock's fields (timeless).
func sameButMethod(t *testing.T, doc string) string {
	t.Helper()
	return dropJSONFields(t, timeless(t, []string{"migrate", "-o", "json"}, doc), "method", "rows_per_sec", "store")
}

// writeTo commits one synced batch, filled by fill, to the store in dir.
func writeTo(t *testing.T, dir string, fill func(b *rocks.Batch)) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := rocks.NewBatch()
	fill(b)
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
}

// The bulk method leaves the store the steps leave and says the same of it: on the committed
// format 2 store (RocksDB 7.8.3's, with hooks missing, undecodable, not a map and of a bad
// tenant, dead rows without their delivery row), on fixtures of table format_version 5, 6
// and 7, and on one with stray keys in every phase's family. diff of the two results exits
// 0, their JSON is the same but for the method and the clock, the bulk one's tables are of
// the format_version the write rule gives, its staging is gone, and RocksDB 7.8.3 reads
// every file of a format_version 5 result.
func TestMigrateBulkIsTheSteps(t *testing.T) {
	extract := func(rel string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if err := storetest.CopyTree(storetest.Extract(t, rel), dir); err != nil {
				t.Fatal(err)
			}
		}
	}
	fixtureOf := func(extra ...string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) { makeFixture(t, dir, format.Format2, extra...) }
	}
	cases := []struct {
		name string
		make func(t *testing.T, dir string)
		fv   int
	}{
		{"store-v2", extract("store-v2.tar.zst"), 5},
		{"fixture fv5", fixtureOf(), 5},
		{"fixture fv6", fixtureOf("--table-format-version", "6"), 6},
		{"fixture fv7 zstd", fixtureOf("--table-format-version", "7", "--compression", "zstd"), 7},
		{"fixture with strays", func(t *testing.T, dir string) {
			fixtureOf()(t, dir)
			storetest.AddStrays(t, dir)
		}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "store")
			c.make(t, src)
			out := map[string]string{}
			dirs := map[string]string{}
			for _, method := range []string{"steps", "bulk"} {
				dir := storetest.CopyStore(t, src)
				code, stdout, stderr := runCLI(t.Context(), []string{"migrate", "--no-backup", "--now", migrateNow, "-o", "json", "--method", method, dir})
				if code != 0 {
					t.Fatalf("migrate --method %s: exit %d\n%s%s", method, code, stdout, stderr)
				}
				out[method], dirs[method] = sameButMethod(t, stdout), dir
			}
			if out["steps"] != out["bulk"] {
				t.Errorf("the JSON differs:\n--- steps\n%s\n--- bulk\n%s", out["steps"], out["bulk"])
			}
			if code, stdout, stderr := runCLI(t.Context(), []string{"diff", dirs["steps"], dirs["bulk"]}); code != 0 {
				t.Errorf("diff steps bulk: exit %d\n%s%s", code, stdout, stderr)
			}
			storetest.AssertSame(t, storetest.Dump(t, dirs["steps"]), storetest.Dump(t, dirs["bulk"]))
			wantTableVersion(t, dirs["bulk"], c.fv)
			if left, _ := filepath.Glob(filepath.Join(dirs["bulk"], migration.StagingPrefix+"*")); len(left) > 0 {
				t.Errorf("staging left behind: %v", left)
			}
			if c.fv == 5 {
				storetest.OldestNodeReads(t, dirs["bulk"])
			}
			if code, stdout, stderr := runCLI(t.Context(), []string{"counters", "verify", dirs["bulk"]}); code != 0 && c.name != "fixture with strays" {
				t.Errorf("counters verify of the bulk result: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// A store a migration left mid-way is the steps' to resume: --method bulk refuses it with exit
// 2, writing nothing.
func TestMigrateBulkRefusesMidway(t *testing.T) {
	src := filepath.Join(t.TempDir(), "store")
	makeFixture(t, src, format.Format2)
	writeTo(t, src, func(b *rocks.Batch) {
		b.Put(format.CFDefault, []byte(format.KeyMigrating3), format.MigrationCursor{Phase: format.MigPhaseDue}.Encode())
		b.Put(format.CFDefault, []byte(format.KeyMigrating3Now), format.EncodeU64(1))
		b.Put(format.CFDefault, []byte(format.KeyNextOrd), format.EncodeU32(format.FirstOrd))
	})
	before := storetest.TreeOf(t, src)
	for _, args := range [][]string{{"--no-backup"}, {"--dry-run"}} {
		args = append(append([]string{"migrate", "--method", "bulk"}, args...), src)
		if code, stdout, stderr := runCLI(t.Context(), args); code != 2 {
			t.Fatalf("%v: exit %d, want 2\n%s%s", args, code, stdout, stderr)
		}
	}
	storetest.SameTree(t, before, storetest.TreeOf(t, src))
}

// A dry run says which method would run, in its JSON and its summary: bulk when asked, and
// auto's choice for a store no migration has touched.
func TestMigrateDryRunSaysBulk(t *testing.T) {
	src := filepath.Join(t.TempDir(), "store")
	makeFixture(t, src, format.Format2)
	for _, method := range []string{"bulk", "auto"} {
		code, stdout, stderr := runCLI(t.Context(), []string{"migrate", "--dry-run", "--method", method, "-o", "json", src})
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		var res struct {
			Method string `json:"method"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Method != "bulk" {
			t.Errorf("--method %s: method %q (%v), want bulk\n%s", method, res.Method, err, stdout)
		}
		code, stdout, stderr = runCLI(t.Context(), []string{"migrate", "--dry-run", "--method", method, "-o", "tsv", src})
		if code != 0 || !strings.Contains(stdout, "\nmethod\tbulk\n") {
			t.Errorf("--method %s: exit %d, no method row:\n%s%s", method, code, stdout, stderr)
		}
	}
}

// What a bulk run says it staged: the joins' bytes in the temporary directory when they
// spilled, and that they stayed in memory when they did not, not "0 B in /tmp" (a small
// store's run, by the CLI, and the line for both).
func TestMigrateBulkSaysWhatItStaged(t *testing.T) {
	for _, c := range []struct {
		name string
		sum  migration.Summary
		want string
	}{
		{"spilled", migration.Summary{StagedRuns: 3 << 20, StagedTables: 1 << 20, StagedJoin: 5 << 20},
			"bulk: staged 4.0 MiB on the store's file system before the commit (sorted runs 3.0 MiB, table files 1.0 MiB), and 5.0 MiB in /tmp before that (the joins' sorted runs)"},
		{"in memory", migration.Summary{StagedRuns: 0, StagedTables: 1 << 20},
			"bulk: staged 1.0 MiB on the store's file system before the commit (sorted runs 0 B, table files 1.0 MiB); the joins' sorted runs stayed in memory"},
	} {
		if got := bulkStagedNote(c.sum, "/tmp"); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	dir := filepath.Join(t.TempDir(), "store")
	makeFixture(t, dir, format.Format2)
	code, stdout, stderr := runCLI(t.Context(), []string{"migrate", "--no-backup", "--now", migrateNow, "--method", "bulk", dir})
	if code != 0 {
		t.Fatalf("migrate --method bulk: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "; the joins' sorted runs stayed in memory") || strings.Contains(stderr, "0 B in ") {
		t.Errorf("a small store's bulk run says of its joins:\n%s", stderr)
	}
}
