package faults

import (
	"fmt"
	"io"
	"os"

	"github.com/ankusa/ankusa-store/internal/testkit/lockholder"
	"github.com/linxGnu/grocksdb"
)

// The "node" role is a node's own RocksDB opening its store, with nothing of this tool's
// between it and the files (lockholder.Open opens through pkg/rocks, which keeps the node's
// OPTIONS files as this tool does): it opens args[0] read-write with every column family and
// RocksDB's defaults, so RocksDB writes its OPTIONS file and drops the oldest, says "ready"
// on stdout once its files are at rest, and holds the store until its stdin closes.
func init() { roles["node"] = nodeRole }

func nodeRole(args []string) int {
	opts := grocksdb.NewDefaultOptions()
	names, err := grocksdb.ListColumnFamilies(opts, args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	cfOpts := make([]*grocksdb.Options, len(names))
	for i := range names {
		cfOpts[i] = grocksdb.NewDefaultOptions()
		// At rest once open, so that a case's snapshot of the held store stays true.
		cfOpts[i].SetDisableAutoCompactions(true)
	}
	db, handles, err := grocksdb.OpenDbColumnFamilies(opts, args[0], names, cfOpts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	// The files stop changing (the open's flush of the WAL it recovered, LOG's lines).
	lockholder.AtRest(args[0], nil)
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	for _, h := range handles {
		h.Destroy()
	}
	db.Close()
	return 0
}
