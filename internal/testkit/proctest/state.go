package proctest

import (
	"fmt"
	"os"
	"strings"
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
