package scratch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isPartial(name string) bool { return strings.HasPrefix(name, "x-") }

// The kills themselves (kill -9 of the real binary) are in internal/faults; here each state a
// directory can be found in by a sweep, made by hand.
func TestSweep(t *testing.T) {
	parent := t.TempDir()

	live, err := New(parent, "x-", "a live run")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(live.Path, Marker)); err != nil || !strings.Contains(string(b), "a live run") {
		t.Fatalf("marker: %q, %v", b, err)
	}
	if !strings.HasPrefix(filepath.Base(live.Path), "x-"+strconv.Itoa(os.Getpid())+"-") {
		t.Fatalf("name %s does not carry the pid", live.Path)
	}
	if err := os.WriteFile(filepath.Join(live.Path, "data"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	// A dead owner: its lock is gone (the kernel drops it with the process), the rest stays.
	dead, err := New(parent, "x-", "a dead run")
	if err != nil {
		t.Fatal(err)
	}
	dead.lock.Close()
	dead.lock = nil

	// Not ours: no marker, not empty; an empty one whose pid is running (ours).
	foreign := filepath.Join(parent, "x-1-2")
	if err := os.MkdirAll(filepath.Join(foreign, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	emptyLive := filepath.Join(parent, "x-"+strconv.Itoa(os.Getpid())+"-7")
	if err := os.Mkdir(emptyLive, 0o755); err != nil {
		t.Fatal(err)
	}
	// An empty one whose pid is not running: its owner died before it wrote the marker.
	emptyDead := filepath.Join(parent, "x-"+strconv.Itoa(1<<22+12345)+"-7")
	if err := os.Mkdir(emptyDead, 0o755); err != nil {
		t.Fatal(err)
	}
	// Unmarked and not empty, its pid not running: someone else's files under a name
	// like ours (a dead pid says nothing of whose they are), left alone.
	foreignDead := filepath.Join(parent, "x-"+strconv.Itoa(1<<22+12345)+"-8")
	if err := os.MkdirAll(filepath.Join(foreignDead, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreignDead, "data", "f"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A marked one that the name does not match.
	other, err := New(parent, "y-", "another kind")
	if err != nil {
		t.Fatal(err)
	}
	other.lock.Close()
	other.lock = nil

	got := Sweep(parent, isPartial)
	want := map[string]bool{dead.Path: true, emptyDead: true}
	if len(got) != len(want) {
		t.Fatalf("swept %v, want %v", got, want)
	}
	for _, p := range got {
		if !want[p] {
			t.Fatalf("swept %s, want only %v", p, want)
		}
	}
	for _, p := range []string{live.Path, filepath.Join(live.Path, "data"), foreign, emptyLive, other.Path, filepath.Join(foreignDead, "data", "f")} {
		if !exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
	if exists(dead.Path) || exists(emptyDead) {
		t.Errorf("a dead run's directory is still there")
	}

	if err := live.Remove(); err != nil {
		t.Fatal(err)
	}
	if exists(live.Path) {
		t.Fatal("Remove left the directory")
	}
	if err := live.Remove(); err != nil {
		t.Fatalf("a second Remove: %v", err)
	}
}

func TestPidOf(t *testing.T) {
	for name, want := range map[string]int{
		"ankusa-store-archive-123-456": 123,
		".out.fixture-partial-9-1":     9,
		"x-1":                          0,
		"x--1":                         0,
		"x-a-1":                        0,
	} {
		pid, ok := pidOf(name)
		if want == 0 && ok || want != 0 && pid != want {
			t.Errorf("pidOf(%q) = %d, %v; want %d", name, pid, ok, want)
		}
	}
}
