// Command compactstore compacts whole column families of a store, for
// bench/atrest_bench.sh: it measures whether compacting a migrated store's
// index family (the emptied d and f ranges, the rewritten x and a rows) pays
// for itself at the node's first scans. It prints the seconds it took.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

func main() {
	dir := flag.String("dir", "", "the store")
	families := flag.String("families", "index", "comma-separated column families to compact")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "compactstore: -dir is required")
		os.Exit(2)
	}
	st, err := store.Open(*dir, store.Options{Options: rocks.Options{Mode: rocks.ReadWrite}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "compactstore:", err)
		os.Exit(1)
	}
	began := time.Now()
	for _, cf := range strings.Split(*families, ",") {
		if err := st.CompactRange(cf); err != nil {
			st.Close()
			fmt.Fprintln(os.Stderr, "compactstore:", err)
			os.Exit(1)
		}
	}
	took := time.Since(began)
	st.Close()
	fmt.Printf("%.2f\n", took.Seconds())
}
