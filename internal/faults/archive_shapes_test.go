package faults

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// runbookArchive is docs/migration.md's command for the off-machine copy of the
// checkpoint, as the runbook prints it (`tar -C /var/lib/ankusa -cf - store.pre-v3 | zstd >
// /mnt/offsite/store-pre-v3.tar.zst`), with its two directories put under the test's.
func runbookArchive(t *testing.T, lib, offsite string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(storetest.Testdata(), "..", "docs", "migration.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`(tar -C /var/lib/ankusa [^`]*\\| zstd [^`]*)`").FindAllSubmatch(doc, -1)
	if len(m) != 1 {
		t.Fatalf("docs/migration.md has %d tar | zstd commands for the off-machine copy, want 1", len(m))
	}
	cmd := string(m[0][1])
	if !strings.Contains(cmd, " > /mnt/offsite/") {
		t.Fatalf("the runbook's command %q does not write under /mnt/offsite", cmd)
	}
	return strings.NewReplacer("/var/lib/ankusa", lib, "/mnt/offsite", offsite).Replace(cmd)
}

func sh(t *testing.T, script string) {
	t.Helper()
	if out, err := exec.Command("sh", "-ec", script).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// TestArchiveShapes is issue 26's seventh case: the runbook's own off-machine copy of the
// checkpoint (its tar | zstd command, run as docs/migration.md prints it) gave "not an
// Ankusa store ... (no CURRENT file)" from counters verify and diff, and tar -C S -cf - .
// gave "entry ./ names the destination itself": a good backup called bad. Both are read as
// the store they hold (diff against the checkpoint itself: equal); two stores in one
// archive, or one directory holding none, are refused saying so, leaving nothing behind.
func TestArchiveShapes(t *testing.T) {
	work := t.TempDir()
	lib, offsite := filepath.Join(work, "var-lib-ankusa"), filepath.Join(work, "offsite")
	for _, d := range []string{lib, offsite} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	store := filepath.Join(lib, "store")
	copyStore(t, genStoreV2(t, t.TempDir(), 500), store)
	checkpoint := filepath.Join(lib, "store.pre-v3")
	expect(t, run(t, "migrate", "--backup", checkpoint, "--now", migNow, store), 0)

	runbook := runbookArchive(t, lib, offsite)
	sh(t, runbook)
	dot := filepath.Join(offsite, "dot.tar.zst")
	sh(t, "tar -C "+checkpoint+" -cf - . | zstd -q > "+dot)
	// After the migration: the store, a format 3 one, the same way.
	after := filepath.Join(offsite, "store-v3.tar.zst")
	sh(t, "tar -C "+lib+" -cf - store | zstd -q > "+after)

	for _, tc := range []struct{ archive, of string }{
		{filepath.Join(offsite, "store-pre-v3.tar.zst"), checkpoint},
		{dot, checkpoint},
		{after, store},
	} {
		t.Run(filepath.Base(tc.archive), func(t *testing.T) {
			expectOut(t, run(t, "counters", "verify", tc.archive), 0, "\nverdict\t\t\thealthy\t")
			expect(t, run(t, "diff", tc.of, tc.archive), 0)
			expectOut(t, run(t, "status", tc.archive), 0, "\nstore\t"+tc.archive+"\n")
		})
	}

	// Not one store: refused by name, exit 3, nothing left in the temporary directory.
	tmp := t.TempDir()
	noStore := filepath.Join(work, "nostore")
	if err := os.MkdirAll(filepath.Join(noStore, "store.pre-v3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(noStore, "store.pre-v3", "MANIFEST-000001"), []byte("m"), 0o644); err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(offsite, "two.tar.zst")
	// The checkpoint's tables are hard links to the store's: packed apart (a link entry is
	// refused before the archive's shape is looked at).
	sh(t, "tar -C "+lib+" --hard-dereference -cf - store.pre-v3 store | zstd -q > "+two)
	empty := filepath.Join(offsite, "nostore.tar.zst")
	sh(t, "tar -C "+noStore+" -cf - store.pre-v3 | zstd -q > "+empty)
	for _, tc := range []struct{ archive, says string }{
		{two, `not a store archive: no CURRENT file at its top, and 2 top-level entries ("store/", "store.pre-v3/")`},
		{empty, `not a store archive: its one top-level directory "store.pre-v3/" holds no CURRENT file`},
	} {
		for _, args := range [][]string{{"counters", "verify", tc.archive}, {"diff", checkpoint, tc.archive}} {
			c := exec.Command(bin, args...)
			c.Env = append(os.Environ(), "TMPDIR="+tmp)
			r := runCmd(t, c)
			expect(t, r, 3, "bad store archive "+tc.archive+": "+tc.says)
			if strings.Contains(r.Stderr, "no CURRENT file)") {
				t.Fatalf("the refusal is the store's, not the archive's:\n%s", r)
			}
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("the refused extractions left %v in the temporary directory", ents)
	}
}
