// Command pendingbytes prints the compaction debt a store is left with: RocksDB's
// rocksdb.estimate-pending-compaction-bytes summed over every column family, for
// bench/scale_bench.sh (what a migration leaves the node's first minutes to compact). The
// store is opened read-only, so asking changes nothing; the estimate is the MANIFEST's, which
// a read-only open recovers as a read-write one would.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

func main() {
	dir := flag.String("dir", "", "the store")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "pendingbytes: -dir is required")
		os.Exit(2)
	}
	st, err := store.Open(*dir, store.Options{Options: rocks.Options{Mode: rocks.ReadOnly}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "pendingbytes:", err)
		os.Exit(1)
	}
	defer st.Close()
	var total uint64
	for _, cf := range st.Families() {
		v, ok, err := st.IntProperty(cf, "rocksdb.estimate-pending-compaction-bytes")
		if err != nil || !ok {
			fmt.Fprintf(os.Stderr, "pendingbytes: %s: no estimate (%v)\n", cf, err)
			os.Exit(1)
		}
		total += v
	}
	fmt.Println(total)
}
