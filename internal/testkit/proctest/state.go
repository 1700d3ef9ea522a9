package proctest

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// State is the process's state letter in /proc (R, S, D, T for stopped, Z), 0 once it is
// gone.
func State(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) S ...: comm may hold spaces and parentheses; the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0
	}
	return s[i+2]
}

// WaitStopped waits until the process is stopped (true) or has exited (false), which
// done tells by being closed, so that the caller's own wait still sees it. A run that
// never reaches its pause point ends, sooner or later, so there is no clock here; the
// test's own timeout is the bound.
func WaitStopped(pid int, done <-chan struct{}) bool {
	for {
		if State(pid) == 'T' {
			return true
		}
		select {
		case <-done:
			return false
		case <-time.After(time.Millisecond):
		}
	}
}
