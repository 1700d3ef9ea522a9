package faults

import (
	"fmt"
	"io"
	"os"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The "hold" role is a node holding its store: it opens args[0] read-write (taking the LOCK
// as the node does), says "ready" on stdout, and holds it until its stdin closes.
func init() { roles["hold"] = holdRole }

func holdRole(args []string) int {
	db, err := rocks.Open(args[0], rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hold:", err)
		return 1
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	db.Close()
	return 0
}
