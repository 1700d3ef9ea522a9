package faults

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
)

// spaceFigures is what status and migrate --dry-run say of the room a migration needs.
type spaceFigures struct {
	dryNeeded, statusNeeded int64
	dryEnough, statusEnough bool
}

func readSpaceFigures(t *testing.T, store string) spaceFigures {
	t.Helper()
	r := run(t, "migrate", "--dry-run", "-o", "json", "--now", migNow, store)
	expect(t, r, 0)
	var dry struct {
		Space *struct {
			Needed int64 `json:"needed_bytes"`
		} `json:"space"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &dry); err != nil || dry.Space == nil {
		t.Fatalf("migrate --dry-run -o json: %v\n%s", err, r)
	}
	// The verdict as the TSV row says it (piped, the plan is TSV: migrate --help).
	r = run(t, "migrate", "--dry-run", "--now", migNow, store)
	expect(t, r, 0)
	_, row, ok := strings.Cut(r.Stdout, "\nspace\tneeded_bytes="+strconv.FormatInt(dry.Space.Needed, 10)+" ")
	if !ok {
		t.Fatalf("the dry run's space row is not its JSON's %d:\n%s", dry.Space.Needed, r)
	}
	row, _, _ = strings.Cut(row, "\n")
	r = run(t, "status", "-o", "json", store)
	expect(t, r, 0)
	var st struct {
		Upgrade *struct {
			Need   int64 `json:"need_bytes"`
			Enough *bool `json:"enough"`
		} `json:"upgrade"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st.Upgrade == nil || st.Upgrade.Enough == nil {
		t.Fatalf("status -o json: %v\n%s", err, r)
	}
	return spaceFigures{dryNeeded: dry.Space.Needed, statusNeeded: st.Upgrade.Need, dryEnough: strings.HasSuffix(row, " enough=true"),
		statusEnough: *st.Upgrade.Enough}
}

// leaveFree fills the file system of dir with one file (filler, made anew) until free
// bytes are left, to the page.
func leaveFree(t *testing.T, dir string, free int64) {
	t.Helper()
	p := filepath.Join(dir, "filler")
	os.Remove(p)
	have, err := diskspace.Free(dir)
	if err != nil {
		t.Fatal(err)
	}
	if have < free {
		t.Fatalf("%d bytes free, fewer than the %d to leave", have, free)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := have - free; n > 0 {
		if err := syscall.Fallocate(int(f.Fd()), 0, 0, n); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := diskspace.Free(dir); got < free-8192 || got > free+8192 {
		t.Fatalf("%d bytes free, want %d", got, free)
	}
}

// TestSpaceFigureIsMigratesCheck is issue 26's sixth case: on a disk with 46 MiB free,
// migrate --dry-run and status said "enough; needs about 37.8 MiB", then migrate refused
// ("needs about 77.3 MiB"): the checkpoint's copy of the WAL was in migrate's check only.
// On a real small disk (tmpfs) left just short of the figure and then just above it, the
// dry run and status print the figure migrate checks (the same bytes, and the same MiB as
// migrate's refusal), and call it short exactly when migrate refuses.
func TestSpaceFigureIsMigratesCheck(t *testing.T) {
	base := genStoreV2(t, t.TempDir(), 8000)
	// Room for two copies of the store and its migration, whatever the estimate is.
	mnt := storetest.MountTmpfs(t, 3*dirBytes(t, base)+128<<20)
	store := copyStore(t, base, filepath.Join(mnt, "store"))
	before := storetest.TreeOf(t, store)

	fig := readSpaceFigures(t, store)
	if fig.dryNeeded != fig.statusNeeded || !fig.dryEnough || !fig.statusEnough {
		t.Fatalf("with room to spare: %+v", fig)
	}
	// What a checkpoint beside the store copies (every file but the tables) must be more
	// than the margins below, or leaving out its share would go unseen.
	var share int64
	for name, f := range before {
		if !strings.HasSuffix(name, ".sst") {
			share += f.Size
		}
	}
	if share < 1<<20 {
		t.Fatalf("the store's files besides its tables are %d bytes: too few to tell the checkpoint's share from the margin", share)
	}
	needed := fig.dryNeeded
	const margin = 256 << 10

	t.Run("just short", func(t *testing.T) {
		leaveFree(t, mnt, needed-margin)
		got := readSpaceFigures(t, store)
		if got.dryNeeded != needed || got.statusNeeded != needed {
			t.Fatalf("the figures moved: %+v, want %d", got, needed)
		}
		if got.dryEnough || got.statusEnough {
			t.Fatalf("%d bytes free of the %d needed, and the dry run or status says enough: %+v", needed-margin, needed, got)
		}
		r := run(t, "status", store)
		expect(t, r, 0, "warning: migrate would refuse: not enough free space for the migration: it needs about "+words.Bytes(needed))
		r = run(t, "migrate", "--now", migNow, store)
		expect(t, r, 3, "not enough free space for the migration: it needs about "+words.Bytes(needed)+",", "nothing was written")
		storetest.SameTree(t, before, storetest.TreeOf(t, store))
		if ents, _ := os.ReadDir(mnt); len(ents) != 2 {
			t.Fatalf("the refused run left %v beside the store", ents)
		}
	})
	t.Run("just above", func(t *testing.T) {
		leaveFree(t, mnt, needed+margin)
		got := readSpaceFigures(t, store)
		if got.dryNeeded != needed || got.statusNeeded != needed || !got.dryEnough || !got.statusEnough {
			t.Fatalf("%d bytes free of the %d needed: %+v", needed+margin, needed, got)
		}
		r := run(t, "migrate", "--now", migNow, store)
		expect(t, r, 0)
		if strings.Contains(r.Stderr, "not enough free space") {
			t.Fatalf("migrate refused what the dry run and status called enough:\n%s", r)
		}
		expect(t, run(t, "counters", "verify", store), 0)
	})
}
