package fuzzcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// The encoding is go test's own: these are the lines it writes for the same
// values (internal/fuzz.marshalCorpusFile), and go test refuses a corpus
// file it cannot parse, so every committed seed is checked on every run.
func TestMarshal(t *testing.T) {
	got := string(Marshal([]byte{131, 0, 'a', 0xff}, "k\n", int64(-5), uint8(7)))
	want := "go test fuzz v1\n[]byte(\"\\x83\\x00a\\xff\")\nstring(\"k\\n\")\nint64(-5)\nuint8(7)\n"
	if got != want {
		t.Fatalf("Marshal =\n%s\nwant\n%s", got, want)
	}
}

func TestWriteIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	in := [][]byte{Marshal([]byte("a")), Marshal([]byte("b")), Marshal([]byte("a"))}
	if n, err := Write(dir, "FuzzX", in); err != nil || n != 2 {
		t.Fatalf("Write = %d, %v; want 2 new", n, err)
	}
	if n, err := Write(dir, "FuzzX", in); err != nil || n != 0 {
		t.Fatalf("second Write = %d, %v; want 0 new", n, err)
	}
	files, _ := os.ReadDir(filepath.Join(dir, "FuzzX"))
	if len(files) != 2 {
		t.Fatalf("%d files", len(files))
	}
}
