package cmd

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A store to migrate both ways: how it is made, what the bulk run's tables must be and what
// both runs must end with.
type bulkEqualCase struct {
	name string
	make func(t *testing.T, dir string)
	// fv is the table format_version the write rule gives the store's node (0: not checked).
	fv int
	// oldReaders: Debian's RocksDB 7.8.3 must read what the bulk run wrote (a store of
	// format_version 5: the oldest node's). Each check runs a few dozen ldb and sst_dump
	// processes, so the scales, which add nothing to it, leave it out.
	oldReaders bool
	// exit is what both methods exit with; on a refusal (not 0) both name the same key and
	// the bulk run leaves the store as it was, where the steps may leave it mid-way.
	exit int
	// bulkRefuses is a store only the steps may touch (one a migration left mid-way): the
	// bulk method refuses it with exit 2 and writes nothing.
	bulkRefuses bool
}

// The same store migrated by --method steps and by --method bulk ends equal, whatever the
// store: every committed store of testdata (found by walking it, so a store added later is
// in), fixtures at several scales of seeds no other test uses, a fixture made as each node
// release with each codec its build has (table format_version 5, 6 and 7), and stores with
// stray keys, hooks missing and undecodable, dead rows without their delivery row, and a
// value no migration can carry over. Equal is: the same exit code; diff of the two results
// exit 0 and their logical contents the same key for key; migrate's JSON the same but for
// the method and the clock (counts, findings, tenants, default filing); counters verify's
// report on each the same. Only results are compared, never how either method got there.
func TestMigrateBulkEqualsSteps(t *testing.T) {
	var cases []bulkEqualCase
	cases = append(cases, committedStoreCases(t)...)
	cases = append(cases, fixtureScaleCases()...)
	cases = append(cases, nodeCodecCases()...)
	cases = append(cases, damagedStoreCases()...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "store")
			c.make(t, src)
			stepsDir, bulkDir := bulkEqualCopy(t, src, "steps"), bulkEqualCopy(t, src, "bulk")
			dryRunsAgree(t, stepsDir, c)
			stepsCode, stepsOut, stepsErr := runCLI(t.Context(), []string{"migrate", "--no-backup", "--now", migrateNow, "-o", "json", "--method", "steps", stepsDir})
			srcTree := storetest.TreeOf(t, src)
			var before storetest.Contents
			if c.exit != 0 || c.bulkRefuses {
				before = storetest.Dump(t, bulkDir)
			}
			bulkCode, bulkOut, bulkErr := runCLI(t.Context(), []string{"migrate", "--no-backup", "--now", migrateNow, "-o", "json", "--method", "bulk", bulkDir})
			if c.bulkRefuses {
				if stepsCode != 0 || bulkCode != exitcode.Usage {
					t.Fatalf("steps exit %d (want 0), bulk exit %d (want %d)\n%s%s", stepsCode, bulkCode, exitcode.Usage, bulkOut, bulkErr)
				}
				storetest.AssertSame(t, before, storetest.Dump(t, bulkDir))
				return
			}
			if stepsCode != c.exit || bulkCode != c.exit {
				t.Fatalf("steps exit %d, bulk exit %d, want %d for both\n--- steps\n%s%s\n--- bulk\n%s%s", stepsCode, bulkCode, c.exit, stepsOut, stepsErr, bulkOut, bulkErr)
			}
			if c.exit != 0 {
				if stepsKey, bulkKey := refusal(stepsErr, stepsDir), refusal(bulkErr, bulkDir); stepsKey == "" || stepsKey != bulkKey {
					t.Errorf("the refusals differ: steps %q, bulk %q\n--- steps\n%s--- bulk\n%s", stepsKey, bulkKey, stepsErr, bulkErr)
				}
				storetest.AssertSame(t, before, storetest.Dump(t, bulkDir))
				return
			}
			if s, b := sameButMethod(t, stepsOut), sameButMethod(t, bulkOut); s != b {
				t.Errorf("the JSON differs:\n--- steps\n%s\n--- bulk\n%s", s, b)
			}
			if strings.Contains(stepsOut, `"nothing_to_do": true`) {
				// A format 3 store: neither method may write a byte of it (one of these holds
				// a merge operand no reader merges, which only its files can be compared by).
				storetest.SameTree(t, srcTree, storetest.TreeOf(t, stepsDir))
				storetest.SameTree(t, srcTree, storetest.TreeOf(t, bulkDir))
				return
			}
			if code, stdout, stderr := runCLI(t.Context(), []string{"diff", stepsDir, bulkDir}); code != 0 {
				t.Errorf("diff steps bulk: exit %d\n%s%s", code, stdout, stderr)
			}
			storetest.AssertSame(t, storetest.Dump(t, stepsDir), storetest.Dump(t, bulkDir))
			if s, b := verifyReport(t, stepsDir), verifyReport(t, bulkDir); s != b {
				t.Errorf("counters verify differs:\n--- steps\n%s\n--- bulk\n%s", s, b)
			}
			if c.fv != 0 {
				wantTableVersion(t, bulkDir, c.fv)
			}
			if c.oldReaders {
				// The oldest node's RocksDB reads what the bulk run ingested.
				storetest.OldestNodeReadsIngested(t, bulkDir)
			}
		})
	}
}

// dryRunsAgree checks that the dry run of each method (the bulk method's by its joins and
// reads, the steps' by theirs) says the same of the store in dir, and changes none of it:
// the same exit, the same JSON but for the method, its estimate of the time and its figure
// of the space (each method's own), or the same refusal.
func dryRunsAgree(t *testing.T, dir string, c bulkEqualCase) {
	t.Helper()
	before := storetest.TreeOf(t, dir)
	dry := func(method string) (int, string, string) {
		return runCLI(t.Context(), []string{"migrate", "--dry-run", "--now", migrateNow, "-o", "json", "--method", method, dir})
	}
	stepsCode, stepsOut, stepsErr := dry("steps")
	bulkCode, bulkOut, bulkErr := dry("bulk")
	storetest.SameTree(t, before, storetest.TreeOf(t, dir))
	switch {
	case c.bulkRefuses:
		if stepsCode != 0 || bulkCode != exitcode.Usage {
			t.Errorf("dry runs: steps exit %d (want 0), bulk exit %d (want %d)\n%s", stepsCode, bulkCode, exitcode.Usage, bulkErr)
		}
	case stepsCode != bulkCode:
		t.Errorf("dry runs: steps exit %d, bulk exit %d\n--- steps\n%s--- bulk\n%s", stepsCode, bulkCode, stepsErr, bulkErr)
	case stepsCode != 0:
		if s, b := refusal(stepsErr, dir), refusal(bulkErr, dir); s == "" || s != b {
			t.Errorf("the dry runs' refusals differ: steps %q, bulk %q", s, b)
		}
	default:
		drop := func(doc string) string {
			return dropJSONFields(t, timeless(t, []string{"migrate", "--dry-run", "-o", "json"}, doc), "method", "estimated_duration_ms", "space")
		}
		if s, b := drop(stepsOut), drop(bulkOut); s != b {
			t.Errorf("the dry runs' JSON differs:\n--- steps\n%s\n--- bulk\n%s", s, b)
		}
	}
}

// bulkEqualCopy copies the store in src to <tmp>/method/store: both copies end in the same
// name, so that what each run says of its store reads the same.
func bulkEqualCopy(t *testing.T, src, method string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), method, "store")
	if err := storetest.CopyTree(src, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// refusal is what a refusal of the store in dir says, from the key it could not carry over
// on ("cannot migrate ..."), or the whole error line; the store's path as STORE. The steps
// say before it where they stopped, which the bulk method, having changed nothing, cannot.
func refusal(stderr, dir string) string {
	for line := range strings.Lines(stderr) {
		if rest, ok := strings.CutPrefix(line, "Error: "); ok {
			if i := strings.Index(rest, "cannot migrate "); i >= 0 {
				rest = rest[i:]
			}
			return strings.TrimSpace(strings.ReplaceAll(rest, dir, "STORE"))
		}
	}
	return ""
}

// verifyReport is counters verify's exit code and JSON on the store in dir, without its clock
// and path: a damaged store's findings and refusals included.
func verifyReport(t *testing.T, dir string) string {
	t.Helper()
	args := []string{"counters", "verify", "-o", "json", dir}
	code, stdout, _ := runCLI(t.Context(), args)
	return fmt.Sprintf("exit %d\n%s", code, timeless(t, args, strings.ReplaceAll(stdout, dir, "STORE")))
}

// committedStoreCases is every store archive committed under testdata (the damaged archives
// of testdata/archive aside: they are no store), as it is.
func committedStoreCases(t *testing.T) []bulkEqualCase {
	t.Helper()
	root := storetest.Testdata()
	var out []bulkEqualCase
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && rel == "archive" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".tar.zst") {
			return nil
		}
		c := bulkEqualCase{name: "committed " + rel, make: func(t *testing.T, dir string) {
			if err := storetest.CopyTree(storetest.Extract(t, rel), dir); err != nil {
				t.Fatal(err)
			}
		}}
		switch rel {
		case "migration/midway.tar.zst":
			c.bulkRefuses = true
		case "health/verify-migrating.tar.zst": // m:migrating:3 without its clock: corrupt
			c.exit = exitcode.Store
		case "store-v2.tar.zst":
			c.fv, c.oldReaders = 5, true
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 8 {
		t.Fatalf("found %d committed stores under %s: the walk is broken", len(out), root)
	}
	return out
}

// bulkFixture is a format 2 fixture with the given flags on top of fixed seed, clock and sizes.
func bulkFixture(args ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		all := append([]string{"fixture", "--format", "2", "--now", "2026-11-30T10:00:00Z", "-q", "--dir"}, args...)
		if code, stdout, stderr := runCLI(t.Context(), append(all, dir)); code != 0 {
			t.Fatalf("fixture %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
}

// fixtureScaleCases is the fixture from the fewest tenants and hooks it takes to thousands of
// each (the sizes where the bulk runs spill and merge are bench/bulk_equal.sh's), on seeds no other test uses (so nothing was tuned to them).
func fixtureScaleCases() []bulkEqualCase {
	scales := []struct{ seed, tenants, hooks int }{
		{7001, 5, 15}, {7002, 6, 37}, {7003, 40, 800}, {7004, 1500, 2000}, {7005, 300, 3000},
	}
	var out []bulkEqualCase
	for _, s := range scales {
		out = append(out, bulkEqualCase{
			name: fmt.Sprintf("fixture seed %d, %d tenants, %d hooks", s.seed, s.tenants, s.hooks),
			make: bulkFixture("--seed", fmt.Sprint(s.seed), "--tenants", fmt.Sprint(s.tenants), "--hooks", fmt.Sprint(s.hooks)),
			fv:   5,
		})
	}
	return out
}

// nodeCodecCases is a fixture made as each node release run (rocks.BindingReleases: RocksDB
// 7.7, 9.10, 10.7, 10.10, 11.1.1, 11.1.2), with each codec its build has and none: the bulk
// run's tables must be what that node writes and reads.
func nodeCodecCases() []bulkEqualCase {
	var out []bulkEqualCase
	for i, r := range rocks.BindingReleases {
		node := r.Releases[len(r.Releases)-1]
		for j, codec := range append([]string{"none"}, r.CodecList()...) {
			out = append(out, bulkEqualCase{
				name: fmt.Sprintf("node %s (RocksDB %s, fv%d) %s", node, r.RocksDB, r.WritesTableFormat, codec),
				make: bulkFixture("--node", node, "--compression", codec, "--seed", fmt.Sprint(7100+10*i+j), "--tenants", "9", "--hooks", "60"),
				fv:   r.WritesTableFormat,
				// The oldest release's stores, whatever their codec.
				oldReaders: r.WritesTableFormat == 5,
			})
		}
	}
	return out
}

// damagedStoreCases is a fixture with what a node's disk, an old bug or a hand can leave:
// stray keys in every old family, hooks missing and undecodable and dead rows without their
// delivery row (a tenth of each), both at once, and a value no migration carries over.
func damagedStoreCases() []bulkEqualCase {
	base := bulkFixture("--seed", "7201", "--tenants", "30", "--hooks", "600")
	return []bulkEqualCase{
		{name: "strays", fv: 5, oldReaders: true, make: func(t *testing.T, dir string) {
			base(t, dir)
			storetest.AddStrays(t, dir)
		}},
		{name: "missing and undecodable rows", fv: 5, oldReaders: true, make: func(t *testing.T, dir string) {
			base(t, dir)
			storetest.DamageRows(t, dir, 10)
		}},
		{name: "strays, missing and undecodable rows, node 3.1.2 zstd", fv: 7, make: func(t *testing.T, dir string) {
			bulkFixture("--seed", "7202", "--tenants", "30", "--hooks", "600", "--node", "3.1.2", "--compression", "zstd")(t, dir)
			storetest.DamageRows(t, dir, 3)
			storetest.AddStrays(t, dir)
		}},
		{name: "an unreadable index value", exit: exitcode.Store, make: func(t *testing.T, dir string) {
			base(t, dir)
			writeTo(t, dir, func(b *rocks.Batch) {
				b.Put(format.CFIndex, format.InflightV2Key{Seq: 1 << 40, Sink: 1}.Encode(), []byte{1, 2}) // not <<size::32>>
			})
		}},
	}
}

// The walk of testdata finds the committed stores it is meant to (a rename of the tree or of
// the archives' suffix would otherwise leave the test comparing nothing).
func TestBulkEqualFindsTheCommittedStores(t *testing.T) {
	var names []string
	for _, c := range committedStoreCases(t) {
		names = append(names, c.name)
	}
	for _, want := range []string{"committed store-v2.tar.zst", "committed store-v3.tar.zst", "committed migration/midway.tar.zst"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("%q not among %v", want, names)
		}
	}
	if _, err := os.Stat(filepath.Join(storetest.Testdata(), "archive")); err != nil {
		t.Errorf("testdata/archive: %v", err)
	}
}
