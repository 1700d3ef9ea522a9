package health

// The keys the joins' batches are sorted by (radix.Sort): the dead rows'
// batches are sorted in the dead scan, which the rows lane waits for.

// deadKey orders dead rows by (seq, sink) when every seq is below 2^48.
func deadKey(r *deadRow) uint64 { return r.seq<<16 | uint64(r.sink) }

func u64Key(k *uint64) uint64 { return *k }
