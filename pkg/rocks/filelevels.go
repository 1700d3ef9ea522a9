package rocks

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
			out = append(out, FileLevel{Name: lf.Name, Level: lf.Level, Smallest: lf.SmallestKey, Largest: lf.LargestKey, Size: lf.Size})
		}
	}
	return out, nil
}

// FileLevel is one table file of a family: its name in the store, level, key range and bytes.
type FileLevel struct {
	Name              string
	Level             int
	Smallest, Largest []byte
	Size              int64
}
