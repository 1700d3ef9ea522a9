package cmd

import (
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
)

// The one list of commands is kept by name, as help lists them and docs/commands.md is
// generated, so that where a command goes in it is never a question.
func TestCommandsAreListedByName(t *testing.T) {
	var names []string
	for _, c := range commands(&Env{IO: iostreams.IOStreams{}}) {
		names = append(names, c.Name())
	}
	if !slices.IsSorted(names) {
		t.Errorf("commands() lists %q; keep it by name", names)
	}
	if len(names) != len(slices.Compact(slices.Clone(names))) {
		t.Errorf("commands() lists a command twice: %q", names)
	}
}
