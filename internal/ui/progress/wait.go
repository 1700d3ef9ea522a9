package progress

// Wait shows label on s until the returned Done: for a wait that says nothing until it
// ends (RocksDB replaying a store's WAL inside its open), drawn at once rather than after
// the first second. It is how pkg/store's opener shows its wait (store.Progress) without
// knowing the UI.
func (s Stream) Wait(label string) interface{ Done() } {
	p := New(s, label, "", 0)
	p.Show()
	return p
}
