package progress

import "testing"

// --progress resolved: -q silences every mode, auto follows stderr, and a dumb terminal
// never gets the live line, even asked for by name.
func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		flag                string
		quiet, isTerm, dumb bool
		want                string
	}{
		{Auto, false, true, false, TTY},
		{Auto, false, false, false, Plain},
		{Auto, false, true, true, Plain},
		{TTY, false, false, false, TTY},
		{TTY, false, true, true, Plain},
		{Plain, false, true, false, Plain},
		{None, false, true, false, None},
		{TTY, true, true, false, None},
		{Auto, true, true, false, None},
	} {
		if got := Resolve(tc.flag, tc.quiet, tc.isTerm, tc.dumb); got != tc.want {
			t.Errorf("Resolve(%q, quiet %v, terminal %v, dumb %v) = %q, want %q", tc.flag, tc.quiet, tc.isTerm, tc.dumb, got, tc.want)
		}
	}
}
