package rocks

import (
	"strconv"
	"strings"
)

// RawValues is what a family's values take before compression, as its
// tables recorded them when they were written (rocksdb.aggregated-table-
// properties: "# entries" and "raw value size"), with the memtable's bytes
// (a read-only open's replayed WAL) counted as values. A copy of the values
// (a sorted join's file) takes this, where the tables' size on disk may be a
// hundredth of it.
type RawValues struct {
	Entries, Bytes uint64
}

// Average is the bytes of an entry's value; 0 for a family with none.
func (r RawValues) Average() uint64 {
	if r.Entries == 0 {
		return 0
	}
	return r.Bytes / r.Entries
}

// RawValues reads cf's RawValues.
func (d *DB) RawValues(cf string) (RawValues, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return RawValues{}, err
	}
	r := parseTableProperties(d.db.GetPropertyCF("rocksdb.aggregated-table-properties", f.h))
	if mem, ok := d.db.GetIntPropertyCF("rocksdb.cur-size-all-mem-tables", f.h); ok {
		r.Bytes += mem
		if n, ok := d.db.GetIntPropertyCF("rocksdb.num-entries-active-mem-table", f.h); ok {
			r.Entries += n
		}
		if n, ok := d.db.GetIntPropertyCF("rocksdb.num-entries-imm-mem-tables", f.h); ok {
			r.Entries += n
		}
	}
	return r, nil
}

// parseTableProperties reads the entries and raw value bytes out of
// TableProperties::ToString's "name=value; name=value" text.
func parseTableProperties(s string) RawValues {
	var r RawValues
	for _, kv := range strings.Split(s, ";") {
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(name) {
		case "# entries":
			r.Entries = n
		case "raw value size":
			r.Bytes = n
		}
	}
	return r
}
