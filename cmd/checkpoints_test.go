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
)

// TestCheckRemovable: checkpoints rm removes only what the tool took, and never a store.
func TestCheckRemovable(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	mk := func(p string, files ...string) string {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(p, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	mark := func(p, name, of string) string {
		b, _ := json.Marshal(checkpoint.Marker{Store: of, StartedAtMS: 1})
		if err := os.WriteFile(filepath.Join(p, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The store is a real one that opens: a checkpoint of a store that does not is refused.
	if err := archive.ExtractArchive("../testdata/store-v3.tar.zst", store); err != nil {
		t.Fatal(err)
	}
	garbage := mk(filepath.Join(dir, "garbage"), "CURRENT", checkpoint.MigrationMark)
	brokenStore := filepath.Join(dir, "broken")
	mk(brokenStore, "CURRENT")
	ofBroken := mark(mk(filepath.Join(dir, "broken.pre-v3"), "CURRENT"), checkpoint.MigrationMark, brokenStore)
	ofGone := mark(mk(filepath.Join(dir, "gone.pre-v3"), "CURRENT"), checkpoint.MigrationMark, filepath.Join(dir, "gone"))
	marked := mark(mk(filepath.Join(dir, "elsewhere", "pre-v3"), "CURRENT"), checkpoint.MigrationMark, store)
	repair := mark(mk(filepath.Join(dir, "cp"), "CURRENT"), checkpoint.RepairMark, store)
	named := mk(store+".backup-20261130T100000.000Z", "CURRENT")
	namedN := mk(store+".pre-repair-20261130T100000Z-2", "CURRENT")
	namedEmpty := mk(store + ".backup-20261129T100000.000Z")
	restored := mark(mk(filepath.Join(dir, "restored"), "CURRENT"), checkpoint.MigrationMark, filepath.Join(dir, "restored"))
	plain := mk(filepath.Join(dir, "plain"), "CURRENT")
	midway := filepath.Join(dir, "midway")
	if err := archive.ExtractArchive("../testdata/migration/midway.tar.zst", midway); err != nil {
		t.Fatal(err)
	}
	midwayCP := mark(mk(filepath.Join(dir, "midway.pre-v3"), "CURRENT"), checkpoint.MigrationMark, midway)
	midwayNamed := mk(midway+".backup-20261130T100000.000Z", "CURRENT")
	midwayRepair := mark(mk(filepath.Join(dir, "midway.cp"), "CURRENT"), checkpoint.RepairMark, midway)
	file := filepath.Join(dir, "file")
	_ = os.WriteFile(file, nil, 0o644)
	env := &Env{Now: time.Now}

	for _, tc := range []struct {
		path string
		ok   bool
		why  string
	}{
		{marked, true, ""},
		{repair, true, ""},
		{named, true, ""},
		{namedN, true, ""},
		{namedEmpty, false, "not a checkpoint this tool took"},
		{restored, false, "restored as its store"},
		{plain, false, "not a checkpoint this tool took"},
		{store, false, "not a checkpoint this tool took"},
		{file, false, "not a directory"},
		{filepath.Join(dir, "nothing"), false, "nothing does not exist"},
		{midwayCP, false, "mid-migration"},
		{midwayNamed, false, "mid-migration"},
		{midwayRepair, false, "mid-migration"},
		{garbage, false, "does not decode"},
		{ofGone, false, "not there"},
	} {
		r, err := checkRemovable(tc.path, env)
		cp, of := r.Checkpoint, r.Store
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: refused: %v", tc.path, err)
		case tc.ok && (cp.Path != tc.path || (of != store && of != midway)):
			t.Errorf("%s: found as %s of %s, want of %s", tc.path, cp.Path, of, store)
		case !tc.ok && err == nil:
			t.Errorf("%s: not refused", tc.path)
		case !tc.ok && (exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tc.why)):
			t.Errorf("%s: %v (exit %d), want exit 2 saying %q", tc.path, err, exitcode.Of(err), tc.why)
		}
	}
	// A checkpoint of a store that does not open may be its only good copy: a store error.
	if _, err := checkRemovable(ofBroken, env); exitcode.Of(err) != exitcode.Store || !strings.Contains(err.Error(), "does not open") {
		t.Errorf("%s: %v (exit %d), want exit 3 saying the store does not open", ofBroken, err, exitcode.Of(err))
	}
	// The default store is never removed, whatever it holds.
	t.Setenv(storeEnv, named)
	if _, err := checkRemovable(named, env); err == nil || !strings.Contains(err.Error(), "$ANKUSA_STORE") {
		t.Errorf("the store $ANKUSA_STORE names is not refused: %v", err)
	}
}

// TestCheckpointSizeCountsLinksOnce: a file linked twice in a checkpoint is counted once;
// one linked from the store is shared and not freed by removing the checkpoint.
func TestCheckpointSizeCountsLinksOnce(t *testing.T) {
	dir := t.TempDir()
	store, cp := filepath.Join(dir, "s"), filepath.Join(dir, "s.backup-20261130T100000.000Z")
	for _, d := range []string{store, cp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, n int) {
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(store, "000007.sst"), 1000)
	write(filepath.Join(cp, "MANIFEST-000005"), 100)
	write(filepath.Join(cp, "000009.sst"), 10)
	if err := os.Link(filepath.Join(store, "000007.sst"), filepath.Join(cp, "000007.sst")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(cp, "000009.sst"), filepath.Join(cp, "copy.sst")); err != nil {
		t.Fatal(err)
	}
	cps := checkpoint.Find(store, nil, time.Now())
	if len(cps) != 1 {
		t.Fatalf("found %d checkpoints, want 1: %+v", len(cps), cps)
	}
	c := cps[0]
	if c.Bytes != 1110 || c.SharedBytes != 1000 || c.OwnBytes != 110 || c.Files != 4 {
		t.Errorf("bytes %d shared %d own %d files %d; want 1110, 1000, 110, 4", c.Bytes, c.SharedBytes, c.OwnBytes, c.Files)
	}
}

// exampleCheckpoint makes cp a checkpoint migrate took of store (a copy of its files, with
// migrate's marker and the store's record), for the examples of checkpoints rm.
func exampleCheckpoint(t *testing.T, store, cp string) {
	t.Helper()
	if err := os.CopyFS(cp, os.DirFS(store)); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.MarkMigration(cp, store, time.Now()); err != nil {
		t.Fatal(err)
	}
}
