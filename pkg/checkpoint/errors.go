package checkpoint

// The two refusals a caller must tell from a failure of the store or the file system (cmd
// maps them to exit 2 and exit 4; everything else this package returns is the store's or the
// file system's, exit 3). Their text is the wrapped error's, unchanged.

// Refused: the arguments name something that may not be used or removed (a place that is
// taken or missing, a directory that is not a checkpoint this tool took, a live store).
// Nothing was touched.
type Refused struct{ Err error }

func (e *Refused) Error() string { return e.Err.Error() }
func (e *Refused) Unwrap() error { return e.Err }

// InUse: a process holds the LOCK of the directory named (a node, or a paused migrate, runs
// on it). Nothing was touched.
type InUse struct{ Err error }

func (e *InUse) Error() string { return e.Err.Error() }
func (e *InUse) Unwrap() error { return e.Err }
