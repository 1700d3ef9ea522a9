package rocks

import "github.com/ankusa/ankusa-store/internal/pausepoint"

// OptionsPauseEnv names the environment variable that makes the keeping of the node's
// OPTIONS files (optionsfile.go) stop its own process (SIGSTOP, internal/pausepoint) at one
// named point, so that the fault suite kills it there (kill -9), or starts a node there, on
// every run. Nothing else
// reads it; unset or unknown, it does nothing.
const OptionsPauseEnv = "ANKUSA_STORE_OPTIONS_PAUSE"

// The points, in the order a read-write open and its close reach them.
const (
	// The stash holds the node's files, RocksDB not opened yet (the store's LOCK held by
	// this process).
	OptionsPauseStashed = "stashed"
	// RocksDB has the store open and the stash's OPTIONS file (optionsstash.go) is created,
	// its content not written yet: a kill here leaves it empty.
	OptionsPauseMarking = "marking"
	// At the close: RocksDB has closed the store, and with it dropped the LOCK, before this
	// process takes it again to put the stash back.
	OptionsPauseClosed = "closed"
	// At the close: the first of the files RocksDB's open wrote is removed, the node's not
	// all put back yet.
	OptionsPauseRestoring = "restoring"
	// At the close: the node's files are back, the stash set aside and one of its files
	// removed.
	OptionsPauseUnstashing = "unstashing"
)

var optionsPauses = pausepoint.FromEnv(OptionsPauseEnv)

func optionsPauseAt(point string) { optionsPauses.Stop(point) }
