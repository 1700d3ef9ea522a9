// Command gendocs writes docs/commands.md and, with -man, the man pages, from the cobra
// command tree. Run through `go generate ./cmd`; the release build runs it with -man,
// -version and -date (goreleaser's .Version and .CommitTimestamp).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/ankusa/ankusa-store/cmd"
)

func main() {
	commands := flag.String("commands", "", "write the commands reference (markdown) to this file")
	man := flag.String("man", "", "write man pages into this directory")
	version := flag.String("version", "dev", "the release the man pages document")
	date := flag.String("date", os.Getenv("SOURCE_DATE_EPOCH"), "the release's date for the man pages, in Unix seconds (default $SOURCE_DATE_EPOCH)")
	flag.Parse()
	if err := run(*commands, *man, *version, *date); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(commands, man, version, date string) error {
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
		// A page's date is its release's: without one given, the pages would say the day
		// they were generated, and two builds of one release would differ.
		if date == "" {
			return errors.New("-man needs -date (or $SOURCE_DATE_EPOCH): the release's date, in Unix seconds")
		}
		secs, err := strconv.ParseInt(date, 10, 64)
		if err != nil {
			return fmt.Errorf("-date %q: Unix seconds expected", date)
		}
		if err := os.MkdirAll(man, 0o755); err != nil {
			return err
		}
		return cmd.GenerateManPages(man, cmd.ManRelease{Version: version, Date: time.Unix(secs, 0)})
	}
	return nil
}
