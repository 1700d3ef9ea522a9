package migration

import (
	"context"
	"os"
	"path/filepath"

	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// SpaceEstimate is what a run needs on the store's file system, worked out
// before it writes anything from the rows it has still to move.
//
// Per row moved a step writes its new key and value and deletes (or
// rewrites) the old one: at most about twice the row's key and value bytes,
// plus an active marker or a dead_by_tenant key and the counter operands
// (rowOverhead). Those bytes land twice before any of them is freed: in the
// WAL, then in the table files flushed from the memtables (the WAL goes once
// every family has flushed). The old rows stay until compaction drops them
// (tombstones included), and a compaction holds its inputs while it writes its
// outputs: up to the index family's table files once more. On top, a fixed
// slack for the MANIFEST, OPTIONS and LOG files and a half-full WAL block.
// The hook table's records (8 bytes a hook, in an unnamed file beside the
// store's: hookRecords) are counted too, as RocksDB estimates the hooks.
// Measured against real runs (see the report in docs/migration.md), the
// estimate is above what the migration took at its peak.
type SpaceEstimate struct {
	// Rows are the keys left to read, and RowBytes their keys' and values' bytes: counted
	// (EstimateSpace), or for the bulk method bounded by the index family's table files and
	// memtables where that bound is close (EstimateBulkSpace).
	Rows     int64 `json:"rows"`
	RowBytes int64 `json:"row_bytes"`
	// RowsBound says Rows and RowBytes are the bulk method's bound, not a count
	// (EstimateBulkSpace): a total to show as about so many.
	RowsBound bool `json:"rows_bound,omitempty"`
	// IndexBytes are the index family's table files now.
	IndexBytes int64 `json:"index_bytes"`
	// Migration is what the run needs on the store's file system, the
	// checkpoint not included (RunSpace adds it): the steps', or the bulk method's (Bulk).
	Migration int64 `json:"migration_bytes"`
	// Runs and Tables are the bulk method's staging (Bulk): its sorted runs and its table
	// files, in Migration; 0 for the steps.
	Runs   int64 `json:"runs_bytes,omitempty"`
	Tables int64 `json:"tables_bytes,omitempty"`
	// JoinTemp is the bulk method's joins' sorted runs in the temporary directory ($TMPDIR)
	// at their peak (Bulk): 0 for the steps, and where the joins keep their runs in memory.
	JoinTemp int64 `json:"join_temp_bytes,omitempty"`

	rowsLeft  [numRowPhases]int64
	hookBytes int64
}

const (
	rowOverhead = 64
	spaceSlack  = 8 << 20
)

// RowsLeft is the keys each row phase has left to read (rows and strays), indexed by
// Phase-1, as CountLeft counts them; none where the bulk method's estimate bounded the
// rows instead of counting them (EstimateBulkSpace: Rows is their bound).
func (e SpaceEstimate) RowsLeft() [numRowPhases]int64 { return e.rowsLeft }

// EstimateSpace scans the rows left after cursor c (keys and values, no
// lookups: a fraction of the migration's own reads) and estimates the space
// the rest of the migration needs.
func EstimateSpace(ctx context.Context, st *rocks.Store, c format.MigrationCursor) (SpaceEstimate, error) {
	rows, bytes, err := scanLeft(ctx, st, c)
	if err != nil {
		return SpaceEstimate{}, err
	}
	e := SpaceEstimate{rowsLeft: rows}
	for i := range rows {
		e.Rows += rows[i]
		e.RowBytes += bytes[i]
	}
	e.IndexBytes = indexTableBytes(st)
	written := 2*e.RowBytes + rowOverhead*e.Rows
	e.hookBytes = hookTableBytes(st)
	e.Migration = 2*written + e.IndexBytes + e.hookBytes + spaceSlack
	return e, nil
}

// RunSpace is the room a run of migrate checks before its first write: the
// migration's estimate plus the checkpoint the run takes. status and migrate
// --dry-run print this same figure and verdict (NeedSpace, Check), so that
// what they call enough is what migrate accepts. A checkpoint beside the store
// hard-links its table files and copies the rest (the WAL, MANIFEST and
// OPTIONS: every file but the tables); on another file system it copies
// every file there.
type RunSpace struct {
	SpaceEstimate
	// Checkpoint is the directory the run's checkpoint goes to; "" when the run
	// takes none (--no-backup, a resumed migration).
	Checkpoint string `json:"checkpoint"`
	// CheckpointBytes is the checkpoint's share on the store's file system (the
	// files it copies there), in Needed.
	CheckpointBytes int64 `json:"checkpoint_bytes"`
	// Needed is Migration + CheckpointBytes: what the store's file system must have free.
	Needed int64 `json:"needed_bytes"`
	// CheckpointElsewhereBytes is what a checkpoint on another file system
	// copies there (the whole store), checked on that file system; 0 otherwise.
	CheckpointElsewhereBytes int64 `json:"checkpoint_elsewhere_bytes,omitempty"`
	// TempDir is the temporary directory the bulk method's joins spill their runs to, when
	// they would (JoinTemp); their bytes are in Needed when it is on the store's file
	// system, else TempElsewhereBytes, checked on its own.
	TempDir            string `json:"temp_dir,omitempty"`
	TempElsewhereBytes int64  `json:"temp_elsewhere_bytes,omitempty"`

	dir string
	// freeOf reads a file system's free bytes (diskspace.Free when nil; a test's figures).
	freeOf func(path string) (int64, error)
}

// NeedSpace is the one computation of a run's room: est (EstimateSpace of the
// store in dir) plus the share of a checkpoint taken into cpDir ("" for none), checkpoint.Share.
func NeedSpace(est SpaceEstimate, dir, cpDir string) (RunSpace, error) {
	s := RunSpace{SpaceEstimate: est, Checkpoint: cpDir, Needed: est.Migration, dir: dir}
	if est.JoinTemp > 0 {
		s.TempDir = os.TempDir()
		same, err := diskspace.SameFS(dir, s.TempDir)
		if err != nil {
			return s, err
		}
		if same {
			s.Needed += est.JoinTemp
		} else {
			s.TempElsewhereBytes = est.JoinTemp
		}
	}
	if cpDir == "" {
		return s, nil
	}
	n, same, err := checkpoint.Share(dir, cpDir)
	if same {
		s.CheckpointBytes = n
		s.Needed += n
	} else {
		s.CheckpointElsewhereBytes = n
	}
	return s, err
}

// SpaceFree is the free bytes of each file system a run writes to, as RunSpace.Measure read
// them (once each), and the verdict on those same figures. A report that checks, then reads
// the free space again to print it, can print a figure the verdict was not made on: the
// store's file system is shared (a log rotating, a writer beside the stopped node).
type SpaceFree struct {
	// Store is the free bytes of the store's file system.
	Store int64
	// Temp is TempDir's, read only when the joins' runs go there (TempElsewhereBytes > 0).
	Temp int64
	// Checkpoint is the checkpoint's parent's, read only when it is on another file system
	// (CheckpointElsewhereBytes > 0).
	Checkpoint int64
	// Short is the refusal those figures give migrate (nil when every file system has the
	// room): the first place short of Check's order, the joins', the checkpoint's, the
	// store's.
	Short *diskspace.ShortError
}

// Measure reads the free bytes of every file system the run needs room on, once each, and
// judges them: migrate's verdict (Check), status's and the dry run's figures and verdict.
func (s RunSpace) Measure() (SpaceFree, error) {
	free := s.freeOf
	if free == nil {
		free = diskspace.Free
	}
	var f SpaceFree
	judge := func(what, where string, needed int64, n *int64) error {
		var err error
		if *n, err = free(where); err != nil {
			return err
		}
		if f.Short == nil {
			f.Short = diskspace.Judge(what, where, needed, *n)
		}
		return nil
	}
	if s.TempElsewhereBytes > 0 {
		if err := judge("the bulk method's joins", s.TempDir, s.TempElsewhereBytes, &f.Temp); err != nil {
			return f, err
		}
	}
	if s.CheckpointElsewhereBytes > 0 {
		if err := judge("the checkpoint", filepath.Dir(filepath.Clean(s.Checkpoint)), s.CheckpointElsewhereBytes, &f.Checkpoint); err != nil {
			return f, err
		}
	}
	if err := judge("the migration", s.dir, s.Needed, &f.Store); err != nil {
		return f, err
	}
	return f, nil
}

// Check is migrate's verdict: nil when every file system has the room, a
// *diskspace.ShortError (wrapping diskspace.ErrShort) naming the first that has not.
func (s RunSpace) Check() error {
	f, err := s.Measure()
	if err != nil {
		return err
	}
	if f.Short != nil {
		return f.Short
	}
	return nil
}

// indexTableBytes are the index family's table files' bytes (0 when RocksDB cannot say).
func indexTableBytes(st *rocks.Store) int64 {
	if v, ok, err := st.IntProperty(format.CFIndex, "rocksdb.total-sst-files-size"); err == nil && ok {
		return int64(v)
	}
	return 0
}

// hookTableBytes is what the hook table's records may take on the store's
// file system: RocksDB's estimate of the hooks, a record each.
func hookTableBytes(st *rocks.Store) int64 {
	return max(estimateKeys(st, format.CFHooks), 0) * hookRecordSize
}
