package tenantjoin

import (
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// CountersByGet reads the six counters of each of ords, and of the aggregate
// with its shards, with batched multi-gets: for a few tenants (a --prefix, a
// tenants show, status), where Run would read the whole family. add gets
// each counter found, or whose read failed (the entry's Err: a failed read
// is the counter's, never the call's), with the index of its ordinal in
// ords, -1 for the aggregate.
func CountersByGet(db *rocks.DB, ords []uint32, add func(i int, k format.CounterKey, e walk.Entry)) {
	type target struct {
		key format.CounterKey
		i   int
	}
	var ts []target
	for _, f := range format.Fields {
		ts = append(ts, target{format.CounterKey{Ord: 0, Field: f, Shard: format.Unsharded}, -1})
		for s := 0; s < format.AggregateShards; s++ {
			ts = append(ts, target{format.CounterKey{Ord: 0, Field: f, Shard: s}, -1})
		}
	}
	for i, ord := range ords {
		for _, f := range format.Fields {
			ts = append(ts, target{format.CounterKey{Ord: ord, Field: f, Shard: format.Unsharded}, i})
		}
	}
	const batch = 4096
	for len(ts) > 0 {
		n := min(batch, len(ts))
		keys := make([][]byte, n)
		for i := range keys {
			keys[i] = ts[i].key.Encode()
		}
		vals, found, err := db.MultiGet(format.CFCounters, keys)
		if err != nil {
			// One failed merge fails the batch's call; read the batch one
			// key at a time so that only that counter shows the error.
			vals, found = make([][]byte, n), make([]bool, n)
			for i, k := range keys {
				v, ok, gerr := db.Get(format.CFCounters, k)
				if gerr != nil {
					add(ts[i].i, ts[i].key, walk.Entry{K: k, Err: gerr})
					continue
				}
				vals[i], found[i] = v, ok
			}
		}
		for i := 0; i < n; i++ {
			if found[i] {
				add(ts[i].i, ts[i].key, walk.Entry{K: keys[i], V: vals[i]})
			}
		}
		ts = ts[n:]
	}
}
