package faults

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// TestMigrateRefusesWithoutRoomForItsMethod: on a real tmpfs with room for the steps' or
// the bulk method's staging but not the other's, each run checks its own method's need
// before anything is written, and the dry run of each says the same: the bulk method,
// auto's choice here, needs less than the steps (no compaction of the old index), so a
// file system between the two figures takes a bulk run and refuses a steps run (exit 3,
// the numbers, every file as it was); one below the bulk figure refuses both.
func TestMigrateRefusesWithoutRoomForItsMethod(t *testing.T) {
	base := genStoreV2(t, t.TempDir(), 8000)
	need := func(method string) (needed int64) {
		r := run(t, "migrate", "--dry-run", "--no-backup", "--method", method, "-o", "json", "--now", migNow, base)
		expect(t, r, 0)
		var dry struct {
			Method string `json:"method"`
			Space  struct {
				Needed int64  `json:"needed_bytes"`
				Tables int64  `json:"tables_bytes"`
				Staged string `json:"staging"`
			} `json:"space"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &dry); err != nil || dry.Method != method {
			t.Fatalf("dry run of %s: method %q (%v)\n%s", method, dry.Method, err, r)
		}
		if (dry.Space.Tables > 0) != (method == "bulk") || (dry.Space.Staged != "") != (method == "bulk") {
			t.Fatalf("dry run of %s: tables %d staging %q", method, dry.Space.Tables, dry.Space.Staged)
		}
		return dry.Space.Needed
	}
	bulk, steps := need("bulk"), need("steps")
	if bulk >= steps {
		t.Fatalf("the bulk method's need %d is not under the steps' %d", bulk, steps)
	}
	t.Logf("needs: bulk %d, steps %d bytes", bulk, steps)
	// tmpfs rounds its size to pages, and the store's own files take their pages too.
	size := dirBytes(t, base) + 1<<20
	cases := []struct {
		name    string
		free    int64 // the room beside the store
		method  string
		refused bool
	}{
		{"between, auto", (bulk + steps) / 2, "auto", false},
		{"between, steps", (bulk + steps) / 2, "steps", true},
		{"under bulk, auto", bulk - 1<<20, "auto", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mnt := storetest.MountTmpfs(t, size+c.free)
			store := copyStore(t, base, filepath.Join(mnt, "store"))
			leaveFree(t, mnt, c.free)
			before := storetest.TreeOf(t, store)
			r := run(t, "migrate", "--no-backup", "--method", c.method, "--now", migNow, store)
			if !c.refused {
				expect(t, r, 0)
				return
			}
			expect(t, r, 3, "not enough free space for the migration: it needs about", "nothing was written")
			storetest.SameTree(t, before, storetest.TreeOf(t, store))
			if ents, _ := os.ReadDir(store); strings.Contains(names(ents), "ANKUSA-BULK-") {
				t.Fatalf("the refused run left its staging: %s", names(ents))
			}
		})
	}
}

func names(ents []os.DirEntry) string {
	var s []string
	for _, e := range ents {
		s = append(s, e.Name())
	}
	return strings.Join(s, " ")
}
