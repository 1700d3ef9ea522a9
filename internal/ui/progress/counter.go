package progress

import (
	"sync"
	"time"
)

// Counter is the state of long work, apart from how it is shown (restic's progress.Counter):
// what is being done, how much of how much, since when. Safe for concurrent use.
type Counter struct {
	mu    sync.Mutex
	label string
	unit  string
	done  int64
	total int64 // 0: unknown
	// approx: total is RocksDB's estimate, shown as "~N".
	approx bool
	// The rate and ETA are those of the current phase: phases run at different speeds.
	phaseStart time.Time
	phaseDone  int64
	start      time.Time
}

type counterSnap struct {
	approx            bool
	label, unit       string
	done, total       int64
	phaseDone         int64
	elapsed, phaseAge time.Duration
}

func (c *Counter) snap(now time.Time) counterSnap {
	c.mu.Lock()
	defer c.mu.Unlock()
	return counterSnap{approx: c.approx, label: c.label, unit: c.unit, done: c.done, total: c.total, phaseDone: c.done - c.phaseDone,
		elapsed: now.Sub(c.start), phaseAge: now.Sub(c.phaseStart)}
}

// Add counts n more units.
func (c *Counter) Add(n int64) {
	c.mu.Lock()
	c.done += n
	c.mu.Unlock()
}

// SetTotal changes the expected total (0: unknown).
func (c *Counter) SetTotal(total int64) {
	c.mu.Lock()
	c.total = total
	c.mu.Unlock()
}

// SetUnit changes what the total counts ("" while there is nothing to count yet).
func (c *Counter) SetUnit(unit string) {
	c.mu.Lock()
	c.unit = unit
	c.mu.Unlock()
}

// Approx marks the total as an estimate.
func (c *Counter) Approx() {
	c.mu.Lock()
	c.approx = true
	c.mu.Unlock()
}

// SetLabel changes what is being done without starting a new phase.
func (c *Counter) SetLabel(label string) {
	c.mu.Lock()
	c.label = label
	c.mu.Unlock()
}

// Stage starts a stage of work counted in a unit of its own (a bulk migration reads rows,
// then writes bytes): a new label, unit and total, the count from zero, the rate and ETA
// measured from here.
func (c *Counter) Stage(label, unit string, total int64) {
	c.mu.Lock()
	c.label, c.unit, c.total, c.approx = label, unit, total, false
	c.done, c.phaseDone, c.phaseStart = 0, 0, time.Now()
	c.mu.Unlock()
}

// Phase starts a phase: a new label, and the rate and ETA measured from here.
func (c *Counter) Phase(label string) {
	c.mu.Lock()
	if label != c.label {
		c.label = label
		c.phaseStart = time.Now()
		c.phaseDone = c.done
	}
	c.mu.Unlock()
}
