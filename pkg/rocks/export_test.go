package rocks

// StashForTest makes dir's stash of OPTIONS files as a read-write open does before RocksDB
// opens the store, under the store's LOCK, and marks it OPENED when opened is set, as the
// open does once RocksDB has the store: what a run killed at that point leaves.
func StashForTest(dir string, opened bool) error {
	lk, err := lockStore(dir)
	if err != nil {
		return err
	}
	defer lk.Unlock()
	if err := stashOptions(dir); err != nil {
		return err
	}
	if opened {
		return markStashOpened(dir)
	}
	return nil
}
