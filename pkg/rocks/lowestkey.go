package rocks

import (
	"bytes"

	"github.com/linxGnu/grocksdb"
)

// LowestKey is the lowest key family cf's data spans, and false when it holds nothing: the
// least of its table files' smallest keys (a point or range deletion's included: a file's
// range is what decides where an ingested file may go) and of its first live key (which may
// still be in the memtable). A file of keys all below it overlaps nothing the family holds,
// so an ingest can put it in the family's last level, where no compaction rewrites it.
func (d *DB) LowestKey(cf string) ([]byte, bool, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return nil, false, err
	}
	var low []byte
	found := false
	take := func(k []byte) {
		if !found || bytes.Compare(k, low) < 0 {
			low, found = append(low[:0], k...), true
		}
	}
	for _, lf := range d.db.GetLiveFilesMetaData() {
		if lf.ColumnFamilyName == cf {
			take(lf.SmallestKey)
		}
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetFillCache(false)
	it := d.db.NewIteratorCF(ro, f.h)
	defer it.Close()
	it.SeekToFirst()
	if it.Valid() {
		k := it.Key()
		take(k.Data())
		k.Free()
	}
	if err := it.Err(); err != nil {
		return nil, false, d.wrapStatus(err)
	}
	return low, found, nil
}

// FileLevels are the levels of family cf's table files, by the smallest key of each (in
// the MANIFEST's order): where an ingest or a compaction put them.
func (d *DB) FileLevels(cf string) ([]FileLevel, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if _, err := d.cf(cf); err != nil {
		return nil, err
	}
	var out []FileLevel
	for _, lf := range d.db.GetLiveFilesMetaData() {
		if lf.ColumnFamilyName == cf {
			out = append(out, FileLevel{Level: lf.Level, Smallest: lf.SmallestKey, Largest: lf.LargestKey, Size: lf.Size})
		}
	}
	return out, nil
}

// FileLevel is one table file of a family: its level, key range and bytes.
type FileLevel struct {
	Level             int
	Smallest, Largest []byte
	Size              int64
}
