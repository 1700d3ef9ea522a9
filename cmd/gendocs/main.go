// Command gendocs writes docs/commands.md and, with -man, the man pages, from the cobra
// command tree. Run through `go generate ./cmd`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/ankusa/ankusa-store/cmd"
)

func main() {
	commands := flag.String("commands", "", "write the commands reference (markdown) to this file")
	man := flag.String("man", "", "write man pages into this directory")
	flag.Parse()
	if err := run(*commands, *man); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(commands, man string) error {
	if commands != "" {
		var b bytes.Buffer
		if err := cmd.GenerateCommandsMarkdown(&b); err != nil {
			return err
		}
		if err := os.WriteFile(commands, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if man != "" {
		if err := os.MkdirAll(man, 0o755); err != nil {
			return err
		}
		return cmd.GenerateManPages(man)
	}
	return nil
}
