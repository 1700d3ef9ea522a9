package cmd

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// A TAB's cost, measured two ways. Wall time, from the keys sent to the line the shell then
// holds, is what an operator waits; on a machine whose CPUs other work holds (CI runs every
// package's tests at once on 2 cores), it also holds the time every process of the TAB
// waited for a CPU, which is the machine's, not the completion's. CPU time, the shell's and
// that of the processes it ran and reaped (the __complete process, zsh's forks), is the
// completion's work whatever the load: a completion that lists thousands or forks per value
// spends it (zsh's 30 s were forks). So a TAB is held to the bound in CPU time always, and in
// wall time too unless the machine was measurably contended during it (cpuContended).

// tabCost is what one TAB took.
type tabCost struct {
	wall, cpu time.Duration
	// stalled is the share of the TAB's wall time in which some task of the machine waited
	// for a CPU (/proc/pressure/cpu "some"), or -1 when the kernel does not say.
	stalled float64
}

func (c tabCost) String() string {
	s := fmt.Sprintf("%s (CPU %s", c.wall.Round(time.Millisecond), c.cpu.Round(time.Millisecond))
	if c.stalled >= 0 {
		s += fmt.Sprintf(", a CPU waited for %.0f%% of it", 100*c.stalled)
	}
	return s + ")"
}

// contendedShare is the share of a TAB's wall time with a task waiting for a CPU from which
// the wall time is the machine's: measured idle, a TAB shows 0-3%; beside the other packages'
// tests, 60-99%.
const contendedShare = 0.25

// contended reports whether the machine's load, not the completion, may have held the TAB
// back: its CPU stall share, or where the kernel has no pressure file, a load above the CPUs.
func (c tabCost) contended() bool {
	if c.stalled >= 0 {
		return c.stalled >= contendedShare
	}
	return loadAboveCPUs()
}

// processCPU is the CPU time of process pid and of its children it has waited for
// (/proc/PID/stat utime, stime, cutime, cstime: in USER_HZ, 100 a second on Linux).
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// After the command's name in parentheses (which may hold spaces): state is field 3,
	// utime field 14.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	var ticks int64
	for _, i := range []int{14, 15, 16, 17} {
		n, _ := strconv.ParseInt(f[i-3], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100)
}

// cpuStall is the machine's total time with some task waiting for a CPU, or -1.
func cpuStall() time.Duration {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return -1
	}
	line, _, _ := strings.Cut(string(b), "\n")
	i := strings.Index(line, "total=")
	if !strings.HasPrefix(line, "some ") || i < 0 {
		return -1
	}
	us, err := strconv.ParseInt(strings.TrimSpace(line[i+len("total="):]), 10, 64)
	if err != nil {
		return -1
	}
	return time.Duration(us) * time.Microsecond
}

// loadAboveCPUs reports whether the last minute's load average is above the CPUs.
func loadAboveCPUs() bool {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	load, err := strconv.ParseFloat(f[0], 64)
	return err == nil && load > float64(runtime.NumCPU())
}

// timed is complete, with what the TAB cost.
func (b *bashShell) timed(line string, tabs int) (string, string, tabCost) {
	b.t.Helper()
	cpu0, stall0, start := processCPU(b.pid), cpuStall(), time.Now()
	l, printed := b.complete(line, tabs)
	c := tabCost{wall: time.Since(start), cpu: processCPU(b.pid) - cpu0, stalled: -1}
	if stall1 := cpuStall(); stall0 >= 0 && stall1 >= 0 && c.wall > 0 {
		c.stalled = float64(stall1-stall0) / float64(c.wall)
	}
	return l, printed, c
}
