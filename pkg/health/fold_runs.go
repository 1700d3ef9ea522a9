package health

// The merge joins that must re-sort one side (the markers the due rows ask
// for, into the active index's order; the dead rows waiting for their
// delivery row's size, into the deliveries' order) collect it in a batch of
// at most a budget of elements, sort the batch and pack it into a run
// (internal/runs): each element as uvarint deltas from the one before, a few
// bytes where the batch holds 16. The join then scans the other side once,
// beside all the runs merged. Only runs that outgrow their byte budget
// (sizes.runBatches full batches' worth) make a join pass before the scan is
// done, so memory stays bounded whatever the store's size, while a store of
// 10^7 rows joins in one scan rather than one per million elements: each
// extra pass reread the deliveries or the active index, two fifths of
// verify's time at 10^7 rows.

// Past sizes.runs.SpillAfter bytes (runs.Limits), runs go to an unnamed file in the system's
// temporary directory instead: the page cache holds them, not the process,
// and they need no budget, so a store of 10^8 rows still joins in one scan
// with its memory flat. Where that file cannot be made or written (no
// unnamed files, no space), runs stay in memory under their budget (sizes.runBatches).
