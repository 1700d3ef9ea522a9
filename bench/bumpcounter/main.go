// Command bumpcounter adds one to one tenant's pending counter (a merge
// operand, as the node writes it) in a format 3 store and flushes it, for
// bench/scale_bench.sh: the copy of a migrated store that diff must find to
// differ by exactly one key.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

func main() {
	dir := flag.String("dir", "", "the store")
	ord := flag.Uint("ord", 1, "the tenant ordinal whose pending counter is bumped")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "bumpcounter: -dir is required")
		os.Exit(2)
	}
	if err := bump(*dir, uint32(*ord)); err != nil {
		fmt.Fprintln(os.Stderr, "bumpcounter:", err)
		os.Exit(1)
	}
}

func bump(dir string, ord uint32) error {
	st, err := store.Open(dir, store.Options{Options: rocks.Options{Mode: rocks.ReadWrite}})
	if err != nil {
		return err
	}
	defer st.Close()
	b := rocks.NewBatch()
	b.Merge(format.CFCounters, format.CounterKeyBytes(ord, format.FieldPending), format.EncodeCounterOperand(1))
	if err := st.Write(b, true); err != nil {
		return err
	}
	return st.Flush(format.CFCounters)
}
