package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/pkg/archive"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// A dry run names the checkpoint the run it stands for would take, as that run resolves it
// (checkpoint.Policy): the default beside the store for a new migration, none with
// --no-backup or on resuming one, and, where the default place is taken, the same place
// with the refusal that run gives. Each case runs the dry run, then the real run, on one
// store, with the same flags and clock.
func TestMigrateDryRunNamesTheRunsCheckpoint(t *testing.T) {
	now, err := time.Parse(time.RFC3339, migrateNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags []string
		// midway: the store is one a migration started at migrateNow left mid-way; taken: the
		// default place (of a new migration, or of the resumed one's start) exists.
		midway, taken bool
		// none: neither run takes a checkpoint; refused: the run refuses.
		none, refused bool
	}{
		{name: "new migration"},
		{name: "no-backup", flags: []string{"--no-backup"}, none: true},
		{name: "resumed", midway: true, none: true},
		{name: "resumed no-backup", flags: []string{"--no-backup"}, midway: true, none: true},
		{name: "resumed default place taken", midway: true, taken: true, none: true},
		{name: "default place taken", taken: true, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "store")
			if tc.midway {
				if err := archive.ExtractArchive("../testdata/migration/midway.tar.zst", src); err != nil {
					t.Fatal(err)
				}
			} else {
				makeFixture(t, src, format.Format2)
			}
			want := ""
			if !tc.none {
				want = checkpoint.BackupName(src, now)
			}
			if tc.taken {
				if err := os.Mkdir(checkpoint.BackupName(src, now), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			args := append(append([]string{"--now", migrateNow, "-o", "json"}, tc.flags...), src)

			code, out, errs := runCLI(t.Context(), append([]string{"migrate", "--dry-run"}, args...))
			if code != exitcode.OK {
				t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
			}
			var dry struct {
				Space *struct {
					Checkpoint string `json:"checkpoint"`
				} `json:"space"`
			}
			if err := json.Unmarshal([]byte(out), &dry); err != nil || dry.Space == nil {
				t.Fatalf("dry run: no space in %s (%v)", out, err)
			}

			code, out, realErrs := runCLI(t.Context(), append([]string{"migrate"}, args...))
			if tc.refused {
				// The run refuses; the dry run named its place and said its refusal.
				refusal := "backup directory " + want + " exists"
				if code != exitcode.Usage || !strings.Contains(realErrs, refusal) {
					t.Fatalf("run: exit %d, %q; want exit %d and %q", code, realErrs, exitcode.Usage, refusal)
				}
				if dry.Space.Checkpoint != want || !strings.Contains(errs, "a migration now would refuse: "+refusal) {
					t.Errorf("dry run names %q and says %q; want %q and the run's refusal %q", dry.Space.Checkpoint, errs, want, refusal)
				}
				return
			}
			if code != exitcode.OK {
				t.Fatalf("run: exit %d\n%s%s", code, out, realErrs)
			}
			var run struct {
				Backup string `json:"backup"`
			}
			if err := json.Unmarshal([]byte(out), &run); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			if dry.Space.Checkpoint != run.Backup || run.Backup != want {
				t.Errorf("dry run names %q, the run took %q; want both %q", dry.Space.Checkpoint, run.Backup, want)
			}
		})
	}
}
