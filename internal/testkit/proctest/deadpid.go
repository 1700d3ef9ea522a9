package proctest

import (
	"os/exec"
	"testing"
)

// DeadPid is the pid of a process that has run and exited, so that no process has it (until
// the kernel gives it again, after its whole pid range): what a killed run's pid is to the
// run after it.
func DeadPid(t testing.TB) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}
