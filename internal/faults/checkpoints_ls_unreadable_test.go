package faults

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkpoints ls run by a user who cannot read what it needs (the store's parent, where the
// name rules look; the store's record of its checkpoints) says so, exit 3, and never "no
// checkpoints": as uid 65534, on a store root migrated with a checkpoint.
func TestCheckpointsLsUnreadableAsNobody(t *testing.T) {
	nobodyBin, data, store := migratedForNobody(t, 1500)
	if out, err := exec.Command("chmod", "-R", "o+rX", data).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	// Readable by all: nobody lists the checkpoint as root does.
	expectOut(t, runCmd(t, asNobody(nobodyBin, "checkpoints", "ls", "-o", "tsv", store)), 0, store+".pre-v3\t")

	for _, c := range []struct {
		name, path string
		mode       os.FileMode
		msg        string
	}{
		{"parent not listable", data, 0o711, "cannot list the checkpoints of " + store},
		{"record unreadable", filepath.Join(store, "ANKUSA-CHECKPOINTS"), 0o600, "cannot read the store's record of its checkpoints"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fi, err := os.Stat(c.path)
			if err != nil {
				t.Fatal(err)
			}
			chmod(t, c.path, c.mode)
			defer chmod(t, c.path, fi.Mode().Perm())
			r := runCmd(t, asNobody(nobodyBin, "checkpoints", "ls", store))
			expect(t, r, 3, c.msg, "permission denied")
			if strings.Contains(r.Stdout+r.Stderr, "no checkpoints") {
				t.Fatalf("says no checkpoints where it could not look:\n%s", r)
			}
		})
	}
}
