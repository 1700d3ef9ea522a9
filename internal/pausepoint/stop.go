package pausepoint

import (
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// Here stops the process with SIGSTOP sent to the calling thread: the kernel stops it before
// the call returns, where a signal to the process may be taken by another thread while this
// one goes on for a moment (having, say, preallocated a table file before the test filled
// the disk). It returns once the process is sent SIGCONT.
func Here() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), syscall.SIGSTOP)
}

// Die sends the process SIGKILL: no deferred call, no cleanup, as kill -9. It does not
// return.
func Die() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}
