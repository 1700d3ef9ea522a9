package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// An archive is opened from a copy extracted to a scratch directory that Close removes;
// read-write it is refused before anything is extracted (ErrArchiveWrite).
func TestOpenExtractsAnArchive(t *testing.T) {
	path := filepath.Join(storetest.Testdata(), "store-v3.tar.zst")
	for _, tc := range []struct {
		name    string
		mode    rocks.Mode
		wantErr error
	}{
		{"read-only", rocks.ReadOnly, nil},
		{"read-write, refused", rocks.ReadWrite, ErrArchiveWrite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Open(path, Options{Options: rocks.Options{Mode: tc.mode}})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.HasPrefix(err.Error(), path+" is an archive") {
					t.Fatalf("opened %s read-write: %v, want %v naming it", path, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Format != 3 || h.Dir == path {
				t.Errorf("opened %s as format %d from %s, want format 3 from an extracted copy", path, h.Format, h.Dir)
			}
			extracted := h.Dir
			h.Close()
			if _, err := os.Stat(extracted); !os.IsNotExist(err) {
				t.Errorf("the extracted copy %s is left after Close: %v", extracted, err)
			}
		})
	}
}

// A failed open says what the store's files say of a newer RocksDB that wrote them: the
// message an operator can act on, where RocksDB's own is generic (issue 47: every command,
// not status alone).
func TestOpenSaysANewerRocksDB(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    string // "" when the error adds nothing
	}{
		{"12.0.0", "(the store's OPTIONS-000077 names RocksDB 12.0.0, newer than this tool's " + rocks.LibraryVersion() + ")"},
		{rocks.LibraryVersion(), ""},
	} {
		t.Run(tc.version, func(t *testing.T) {
			// A directory the node's files were copied to in part: the OPTIONS file and no store.
			dir := t.TempDir()
			opts := "[Version]\n  rocksdb_version=" + tc.version + "\n  options_file_version=1.1\n"
			if err := os.WriteFile(filepath.Join(dir, "OPTIONS-000077"), []byte(opts), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir, Options{Options: rocks.Options{Mode: rocks.ReadOnly}})
			if !errors.Is(err, rocks.ErrNotStore) {
				t.Fatalf("opened %s: %v, want %v", dir, err, rocks.ErrNotStore)
			}
			if got := strings.Contains(err.Error(), "newer than this tool"); got != (tc.want != "") || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("the open said %q, want it to end %q", err, tc.want)
			}
		})
	}
}

// waits records the waits an open shows.
type waits struct{ labels, done []string }

func (w *waits) Wait(label string) Waiting {
	w.labels = append(w.labels, label)
	return waitDone{w, label}
}

type waitDone struct {
	w     *waits
	label string
}

func (d waitDone) Done() { d.w.done = append(d.w.done, d.label) }

// The WAL replay is said before the open and ended after it, from Options.WALShown bytes of
// WAL, for a reopen too; Close closes what was reopened first, and the closing hook sees each.
func TestOpenShowsTheWALReplay(t *testing.T) {
	dir := storetest.Extract(t, "store-v3.tar.zst")
	wal := WALBytes(dir)
	if wal == 0 {
		t.Fatal("the sample store has no WAL")
	}
	for _, shown := range []int64{wal, wal + 1} {
		var w waits
		var closed []bool
		h, err := Open(dir, Options{Options: rocks.Options{Mode: rocks.ReadOnly}, Progress: &w, WALShown: shown,
			Closing: func(st *rocks.Store) { closed = append(closed, st.DB.IndexOnHeap("deliveries")) }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Reopen(rocks.Options{Mode: rocks.ReadOnly, RandomLookups: true}); err != nil {
			t.Fatal(err)
		}
		h.Close()
		var want []string
		if shown <= wal {
			line := "opening " + dir + " (replaying "
			if len(w.labels) != 2 || !strings.HasPrefix(w.labels[0], line) || !strings.HasSuffix(w.labels[0], " of WAL)") {
				t.Errorf("%d bytes of WAL shown from %d: the waits said %q, want two %q...", wal, shown, w.labels, line)
			}
			want = w.labels
		} else if len(w.labels) != 0 {
			t.Errorf("%d bytes of WAL shown from %d: the waits said %q, want none", wal, shown, w.labels)
		}
		if strings.Join(w.done, "|") != strings.Join(want, "|") {
			t.Errorf("waits ended: %q, want %q", w.done, want)
		}
		if len(closed) != 2 || !closed[0] || closed[1] {
			t.Errorf("closing saw index-on-heap %v, want the reopen's (true) then the first open's (false)", closed)
		}
	}
}
