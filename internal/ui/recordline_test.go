package ui

import (
	"testing"
)

// RecordLine wraps a value beside its name only when at least 11 columns are left for it;
// narrower, the value stays on one line rather than one word a line.
func TestRecordLineRoom(t *testing.T) {
	for _, tc := range []struct {
		width int
		want  string
	}{
		{0, "key:     one two three\n"},
		{19, "key:     one two three\n"},
		{20, "key:     one two\n         three\n"},
	} {
		if got := RecordLine("key:", "one two three", 8, tc.width); got != tc.want {
			t.Errorf("width %d: got %q, want %q", tc.width, got, tc.want)
		}
	}
}
