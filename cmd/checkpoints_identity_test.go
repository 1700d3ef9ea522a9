package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/proctest"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
)

// migratedStore is a format 2 fixture at base/data/s migrated with its checkpoint recorded
// elsewhere (base/bk/s.pre-v3, found through the store's record and its marker).
func migratedStore(t *testing.T) (base, store, cp string) {
	t.Helper()
	base = t.TempDir()
	store = filepath.Join(base, "data", "s")
	if err := os.MkdirAll(filepath.Dir(store), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(viewsFixture(t, 2, 50), store); err != nil {
		t.Fatal(err)
	}
	cp = filepath.Join(base, "bk", "s.pre-v3")
	if err := os.MkdirAll(filepath.Dir(cp), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t.Context(), []string{"migrate", "-q", "--backup", cp, store}); code != 0 {
		t.Fatalf("migrate: exit %d\n%s", code, errs)
	}
	return base, store, cp
}

// TestCheckpointsSameStoreAnySpelling (issue 44 item 6): the store named relative to the
// working directory, with ./, through a symlinked parent or by a symlink at it is the one
// store: status lists the same checkpoints, checkpoints ls the same and never says its record
// "names another store", and rm's preview finds the checkpoint by a relative path too.
func TestCheckpointsSameStoreAnySpelling(t *testing.T) {
	base, store, cp := migratedStore(t)
	if err := os.Symlink(filepath.Join(base, "data"), filepath.Join(base, "varlib")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(store, filepath.Join(base, "storelink")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(base, "data"))
	listed := func(t *testing.T, args ...string) []string {
		t.Helper()
		code, out, errs := runCLI(t.Context(), append(args[:len(args):len(args)], "-o", "json"))
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
		if strings.Contains(errs, "names another store") {
			t.Fatalf("%v: %s", args, errs)
		}
		var v struct {
			Checkpoints []struct {
				Path string `json:"path"`
			} `json:"checkpoints"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, c := range v.Checkpoints {
			paths = append(paths, c.Path)
		}
		return paths
	}
	for _, spelling := range []string{store, "s", "./s", "../data/s", filepath.Join(base, "varlib", "s"), filepath.Join(base, "storelink")} {
		for _, view := range [][]string{{"status"}, {"checkpoints", "ls"}} {
			t.Run(strings.Join(view, " ")+" "+spelling, func(t *testing.T) {
				got := listed(t, append(view, spelling)...)
				if !slices.Contains(got, cp) {
					t.Fatalf("%s lists %v, not the checkpoint %s", spelling, got, cp)
				}
			})
		}
	}
	t.Chdir(filepath.Join(base, "bk"))
	code, _, errs := runCLI(t.Context(), []string{"checkpoints", "rm", "s.pre-v3"})
	if code != exitcode.Usage || !strings.Contains(errs, "would remove") || !strings.Contains(errs, cp) {
		t.Fatalf("rm's preview by a relative path: exit %d\n%s", code, errs)
	}
}

// TestCheckpointsRmSetAsideIsOursOnlyByItsMarker: a directory named as a killed removal's
// set-aside directory is finished by rm only when it proves it was one: its marker there, or
// nothing in it but empty directories (what is left once the marker, last, is gone). One
// holding files and no marker is not ours, and is left alone.
func TestCheckpointsRmSetAsideIsOursOnlyByItsMarker(t *testing.T) {
	base, store, _ := migratedStore(t)
	data := filepath.Join(base, "data")
	pid := proctest.DeadPid(t)
	aside := func(name string) string { return filepath.Join(data, fmt.Sprintf(".%s.ankusa-removing-%d", name, pid)) }

	foreign := aside("foreign")
	if err := os.MkdirAll(filepath.Join(foreign, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "sub", "notes"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t.Context(), []string{"checkpoints", "rm", "--yes", filepath.Join(data, "foreign")})
	if code != exitcode.Usage || !strings.Contains(errs, "does not exist") {
		t.Fatalf("rm of a marker-less set-aside name holding files: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(foreign, "sub", "notes")); err != nil {
		t.Fatalf("a directory not proved ours was removed: %v", err)
	}

	emptied := aside("s.backup-20261130T100000.000Z")
	if err := os.MkdirAll(filepath.Join(emptied, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, errs := runCLI(t.Context(), []string{"checkpoints", "ls", store}); !strings.Contains(errs, "checkpoints rm --yes "+filepath.Join(data, "s.backup-20261130T100000.000Z")+" finishes it") {
		t.Fatalf("ls does not note the emptied set-aside directory:\n%s", errs)
	}
	code, _, errs = runCLI(t.Context(), []string{"checkpoints", "rm", "--yes", filepath.Join(data, "s.backup-20261130T100000.000Z")})
	if code != 0 || !strings.Contains(errs, "finished removing") {
		t.Fatalf("rm of an emptied set-aside directory: exit %d\n%s", code, errs)
	}
	if _, err := os.Lstat(emptied); !os.IsNotExist(err) {
		t.Fatalf("%s is still there: %v", emptied, err)
	}
}

// TestStatusNotesUnfinishedRemovals (issue 46 item 9): what a killed removal left set aside is
// said by status as checkpoints ls notes it, never "checkpoints none" alone; one whose pid a
// running process has is noted with its bytes too.
func TestStatusNotesUnfinishedRemovals(t *testing.T) {
	base, store, _ := migratedStore(t)
	data := filepath.Join(base, "data")
	mark, _ := json.Marshal(checkpoint.Marker{Store: store, StartedAtMS: 1})
	for _, pid := range []int{proctest.DeadPid(t), os.Getpid()} {
		a := filepath.Join(data, fmt.Sprintf(".s.old%s%d", ".ankusa-removing-", pid))
		if err := os.MkdirAll(a, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{checkpoint.MigrationMark: mark, "000009.sst": make([]byte, 3000)} {
			if err := os.WriteFile(filepath.Join(a, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	code, out, errs := runCLI(t.Context(), []string{"status", store})
	if code != 0 || strings.Count(out, "unfinished removal") != 2 || !strings.Contains(out, filepath.Join(data, "s.old")) {
		t.Fatalf("status: exit %d\n%s\n%s", code, out, errs)
	}
	_, _, errs = runCLI(t.Context(), []string{"checkpoints", "ls", store})
	if !strings.Contains(errs, fmt.Sprintf("by process %d, which is running", os.Getpid())) || !strings.Contains(errs, "finishes it") {
		t.Fatalf("checkpoints ls:\n%s", errs)
	}
}

// TestCheckpointsRmKeepsTheRecordsOtherLines: removing a checkpoint drops its lines from the
// store's record and nothing else: a line that does not decode, a path met twice, a long
// line, the last line without its newline are written back byte for byte.
func TestCheckpointsRmKeepsTheRecordsOtherLines(t *testing.T) {
	_, store, cp := migratedStore(t)
	rec := filepath.Join(store, checkpoint.RecordFile)
	mine, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	others := "not json at all\n" +
		`{"path":"/elsewhere/x","taken_by":"migrate","at_ms":1}` + "\n" +
		`{"path":"/elsewhere/x","taken_by":"migrate","at_ms":2}` + "\n" +
		`{"path":"` + strings.Repeat("y", 70000) + `"}` + "\n" +
		`{"future_field":true,"path":"/elsewhere/z"}` + "\n" +
		"{truncated"
	if err := os.WriteFile(rec, append([]byte(others[:16]), append(mine, others[16:]...)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t.Context(), []string{"checkpoints", "rm", "--yes", cp}); code != 0 {
		t.Fatalf("rm: exit %d\n%s", code, errs)
	}
	got, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != others {
		t.Fatalf("the record after rm is not the other lines as they were:\n%.300q", got)
	}
}

// TestCheckpointsRmCopiesAndMoves: a store and its checkpoint copied with cp -a, or moved with
// mv, are other directories (device and inode), whatever their markers say. The copy's record
// counts nothing of the original; rm of the copied checkpoint removes the copy alone; a moved
// checkpoint is removed at its new path; once its store is moved away, the checkpoint (maybe
// its only copy) is refused. Nothing outside the checkpoint named is removed.
func TestCheckpointsRmCopiesAndMoves(t *testing.T) {
	base, store, cp := migratedStore(t)
	storeFiles, cpFiles := storetest.TreeOf(t, store), storetest.TreeOf(t, cp)
	copyAll := func(src, dst string) {
		t.Helper()
		if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
			t.Fatalf("cp -a: %v\n%s", err, out)
		}
	}
	copyAll(filepath.Join(base, "data"), filepath.Join(base, "data2"))
	copyAll(filepath.Join(base, "bk"), filepath.Join(base, "bk2"))
	store2, cp2 := filepath.Join(base, "data2", "s"), filepath.Join(base, "bk2", "s.pre-v3")

	// The copy's record names the original checkpoint, whose marker names the original store.
	code, out, errs := runCLI(t.Context(), []string{"checkpoints", "ls", "-o", "tsv", store2})
	if code != 0 || strings.Contains(out, cp) || !strings.Contains(errs, "names another store") {
		t.Fatalf("ls of the copied store: exit %d\n%s\n%s", code, out, errs)
	}
	// The copied checkpoint is a checkpoint of the original store: removed, alone.
	if code, _, errs := runCLI(t.Context(), []string{"checkpoints", "rm", "--yes", cp2}); code != 0 {
		t.Fatalf("rm of the copied checkpoint: exit %d\n%s", code, errs)
	}
	if _, err := os.Lstat(cp2); !os.IsNotExist(err) {
		t.Fatalf("%s is still there: %v", cp2, err)
	}
	storetest.SameTree(t, cpFiles, storetest.TreeOf(t, cp))
	storetest.SameTree(t, storeFiles, storetest.TreeOf(t, store))

	// Moved: removed at its new path.
	moved := filepath.Join(base, "moved.pre-v3")
	if err := os.Rename(cp, moved); err != nil {
		t.Fatal(err)
	}
	copyAll(moved, cp)
	if code, _, errs := runCLI(t.Context(), []string{"checkpoints", "rm", "--yes", moved}); code != 0 {
		t.Fatalf("rm of the moved checkpoint: exit %d\n%s", code, errs)
	}
	if _, err := os.Lstat(moved); !os.IsNotExist(err) {
		t.Fatalf("rm of the moved checkpoint: %v", err)
	}
	storetest.SameTree(t, cpFiles, storetest.TreeOf(t, cp))

	// Its store moved away: refused, exit 2, nothing removed.
	if err := os.Rename(store, store+"-moved"); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t.Context(), []string{"checkpoints", "rm", "--yes", cp})
	if code != exitcode.Usage || !strings.Contains(errs, "not there") {
		t.Fatalf("rm of a checkpoint whose store moved away: exit %d\n%s", code, errs)
	}
	storetest.SameTree(t, cpFiles, storetest.TreeOf(t, cp))
}
