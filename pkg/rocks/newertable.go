package rocks

import (
	"errors"
	"fmt"
)

// ErrNewerTable: the store holds a table file of a format_version this build's RocksDB
// does not read. It is not damage: the store is refused before RocksDB opens it (which would
// report Corruption), with nothing written. Exit 3, like any store error.
var ErrNewerTable = errors.New("store holds table files newer than this tool's RocksDB reads")

// NewerTableError names the first such table file and what the store says of its writer.
type NewerTableError struct {
	Dir           string
	File          string // e.g. 000041.sst
	Version       uint32 // its format_version
	FutureFeature bool   // its footer marks a feature newer than its version
	More          int    // how many other table files are newer too
	// OptionsFile and WriterVersion: the newest OPTIONS file and the RocksDB it names
	// ("" when the store has none).
	OptionsFile, WriterVersion string
}

func (e *NewerTableError) Error() string {
	what := fmt.Sprintf("%s is a table of format_version %d", e.File, e.Version)
	if e.FutureFeature {
		what += " with a feature newer than that version"
	}
	if e.More > 0 {
		what += fmt.Sprintf(" (and %d more table files like it)", e.More)
	}
	writer := "the store has no OPTIONS file naming its writer's RocksDB"
	if e.OptionsFile != "" {
		v := e.WriterVersion
		if v == "" {
			v = "no version"
		}
		writer = fmt.Sprintf("the store's %s names RocksDB %s", e.OptionsFile, v)
	}
	return fmt.Sprintf("%s: %s: %s; this tool's RocksDB %s reads table format_version up to %d; %s. "+
		"The store is not damaged and nothing was written; this tool cannot read it",
		ErrNewerTable, e.Dir, what, LibraryVersion(), MaxTableFormatVersion, writer)
}

func (e *NewerTableError) Is(target error) bool { return target == ErrNewerTable }

// describeWriter fills in what the store's newest OPTIONS file says of its writer.
func (e *NewerTableError) describeWriter() {
	if ofs := readOptionsFiles(e.Dir); len(ofs) > 0 {
		e.OptionsFile, e.WriterVersion = ofs[0].Name, ofs[0].RocksDBVersion
	}
}
