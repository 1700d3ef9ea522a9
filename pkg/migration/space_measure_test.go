package migration

import (
	"errors"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/diskspace"
)

// Measure reads each file system once and judges the figures it read: the free bytes a dry
// run and status print are those the verdict was made on. The free space here shrinks by a
// MiB at every read (a writer beside the run), so a figure read again after the verdict
// would not be the one judged.
func TestMeasureJudgesTheFiguresItReads(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name      string
		free      map[string]int64 // the first read of each path
		wantShort string           // the place short, "" for none
	}{
		{"room everywhere", map[string]int64{"/store": 100 * mib, "/tmp": 100 * mib, "/cp": 100 * mib}, ""},
		{"the joins' file system short", map[string]int64{"/store": 100 * mib, "/tmp": 5 * mib, "/cp": 100 * mib}, "/tmp"},
		{"the checkpoint's short", map[string]int64{"/store": 100 * mib, "/tmp": 100 * mib, "/cp": 5 * mib}, "/cp"},
		{"the store's short", map[string]int64{"/store": 50 * mib, "/tmp": 100 * mib, "/cp": 100 * mib}, "/store"},
		{"the store's just enough", map[string]int64{"/store": 60 * mib, "/tmp": 100 * mib, "/cp": 100 * mib}, ""},
		{"two short: Check's order", map[string]int64{"/store": 5 * mib, "/tmp": 5 * mib, "/cp": 5 * mib}, "/tmp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reads := map[string]int{}
			free := func(path string) (int64, error) {
				reads[path]++
				return tc.free[path] - int64(reads[path]-1)*mib, nil
			}
			s := RunSpace{Needed: 60 * mib, TempDir: "/tmp", TempElsewhereBytes: 10 * mib,
				Checkpoint: "/cp/store.backup", CheckpointElsewhereBytes: 10 * mib, dir: "/store", freeOf: free}
			f, err := s.Measure()
			if err != nil {
				t.Fatal(err)
			}
			if f.Store != tc.free["/store"] || f.Temp != tc.free["/tmp"] || f.Checkpoint != tc.free["/cp"] {
				t.Errorf("figures store %d, temp %d, checkpoint %d; the first reads were %v", f.Store, f.Temp, f.Checkpoint, tc.free)
			}
			for path, n := range reads {
				if n != 1 {
					t.Errorf("%s read %d times, want once", path, n)
				}
			}
			switch {
			case tc.wantShort == "" && f.Short != nil:
				t.Errorf("short: %v", f.Short)
			case tc.wantShort != "" && (f.Short == nil || f.Short.Where != tc.wantShort || f.Short.Free != tc.free[tc.wantShort]):
				t.Errorf("short %+v, want %s with its figure %d", f.Short, tc.wantShort, tc.free[tc.wantShort])
			}
			// Check gives the same verdict on a reading of its own, of the same figures.
			clear(reads)
			var short *diskspace.ShortError
			err = s.Check()
			if got := errors.As(err, &short); got != (tc.wantShort != "") || (got && short.Where != tc.wantShort) {
				t.Errorf("Check: %v, want short at %q", err, tc.wantShort)
			}
		})
	}
	// A file system whose free space cannot be read is the error, not a verdict.
	boom := errors.New("statfs: input/output error")
	s := RunSpace{Needed: 1, dir: "/store", freeOf: func(string) (int64, error) { return 0, boom }}
	if _, err := s.Measure(); !errors.Is(err, boom) {
		t.Errorf("Measure with an unreadable file system: %v", err)
	}
}
