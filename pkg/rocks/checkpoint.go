package rocks

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/linxGnu/grocksdb"
	"golang.org/x/sys/unix"
)

// Checkpoint writes a consistent copy of the store to dir (which must not
// exist), hard-linking table files where it can and copying the WAL. It needs a
// ReadWrite instance: from a read-only or secondary one RocksDB 9.11 leaves the
// writes still in the WAL out of the copy, silently (TestCheckpointReadWriteOnly).
func (d *DB) Checkpoint(dir string) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	if d.mode != ReadWrite {
		return fmt.Errorf("rocks: checkpoint of %s: %w (a checkpoint needs the store opened for writing)", d.dir, ErrReadOnly)
	}
	// RocksDB says a directory it may not write only as strerror's text.
	if err := canAccess(filepath.Dir(filepath.Clean(dir)), unix.W_OK|unix.X_OK, true); err != nil {
		return fmt.Errorf("rocks: checkpoint to %s: %w", dir, err)
	}
	cp, err := d.db.NewCheckpoint()
	if err != nil {
		return fmt.Errorf("rocks: checkpoint: %w", err)
	}
	defer cp.Destroy()
	if err := cp.CreateCheckpoint(dir, 0); err != nil {
		return fmt.Errorf("rocks: checkpoint to %s: %w", dir, classify("checkpoint", d.dir, "", err))
	}
	// RocksDB copied the newest OPTIONS file, this build's own: the checkpoint gets the
	// node's instead, both of them, as the store will have them once this open closes
	// (optionsfile.go).
	if err := copyNodeOptions(d.dir, dir); err != nil {
		return fmt.Errorf("rocks: checkpoint to %s: %w", dir, err)
	}
	return nil
}

// Flush writes the family's memtable to a table file and waits for it. A
// merge that fails during the flush is returned as ErrCorrupt.
func (d *DB) Flush(cf string) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return err
	}
	if d.mode != ReadWrite {
		return ErrReadOnly
	}
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	_, failsBefore := d.merge.failure()
	if err := d.db.FlushCF(f.h, fo); err != nil {
		if key, fails := d.merge.failure(); fails != failsBefore {
			return &KeyError{CF: cf, Key: key, Corrupt: true, Err: fmt.Errorf("merge failed during flush (the store is now in background error): %v", err)}
		}
		return fmt.Errorf("rocks: flush %s: %w", cf, d.wrapStatus(err))
	}
	return nil
}

// CompactRange compacts the whole family. RocksDB's C API drops the status of
// a manual compaction, so a failure (a merge that fails during compaction
// puts the store into background error) is detected through the
// background-errors counter.
func (d *DB) CompactRange(cf string) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return err
	}
	if d.mode != ReadWrite {
		return ErrReadOnly
	}
	before := d.backgroundErrors()
	co := grocksdb.NewCompactRangeOptions()
	defer co.Destroy()
	co.SetExclusiveManualCompaction(true)
	d.db.CompactRangeCFOpt(f.h, grocksdb.Range{}, co)
	return d.checkBackground(cf, before)
}

// backgroundErrors is RocksDB's count of background errors so far.
func (d *DB) backgroundErrors() uint64 {
	n, _ := strconv.ParseUint(strings.TrimSpace(d.db.GetProperty("rocksdb.background-errors")), 10, 64)
	return n
}

func (d *DB) checkBackground(cf string, before uint64) error {
	if d.backgroundErrors() > before {
		if key, fails := d.merge.failure(); fails > 0 {
			return &KeyError{CF: cf, Key: key, Corrupt: true, Err: fmt.Errorf("merge failed during compaction; the store is in background error")}
		}
		return fmt.Errorf("%w: compaction of %s failed; the store is in background error", ErrCorrupt, cf)
	}
	return nil
}

// IntProperty returns an integer property of a family ("rocksdb.estimate-num-keys"); ok is
// false when RocksDB has none of that name for it.
func (d *DB) IntProperty(cf, name string) (v uint64, ok bool, err error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return 0, false, err
	}
	v, ok = d.db.GetIntPropertyCF(name, f.h)
	return v, ok, nil
}

// Property returns a RocksDB property of a family ("rocksdb.estimate-num-keys").
func (d *DB) Property(cf, name string) (string, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return "", err
	}
	return d.db.GetPropertyCF(name, f.h), nil
}

// WaitIdle waits until no flush or compaction is running or queued (RocksDB's
// WaitForCompact). For a fault point that must meet the store at rest: a compaction that
// finishes later deletes its inputs and frees space under a test that filled the disk.
func (d *DB) WaitIdle() error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	o := grocksdb.NewWaitForCompactOptions()
	defer o.Destroy()
	return d.wrapStatus(d.db.WaitForCompact(o))
}
