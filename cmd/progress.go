package cmd

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress draws one updating line on stderr for long work. It draws nothing unless stderr is
// a terminal and neither --quiet nor -o json was given, so logs and pipes stay clean.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	label   string
	unit    string
	total   int64
	done    int64
	start   time.Time
	last    time.Time
	drawn   bool
	minStep time.Duration
}

// NewProgress starts a counter of total units (0 if unknown).
func (e *Env) NewProgress(label, unit string, total int64) *Progress {
	return &Progress{
		w:       e.IO.Err,
		on:      e.IO.ErrIsTerminal && !e.Quiet && !e.JSON(),
		label:   label,
		unit:    unit,
		total:   total,
		start:   time.Now(),
		minStep: 200 * time.Millisecond,
	}
}

// SetLabel changes what is being counted (a new phase) without resetting the rate.
func (p *Progress) SetLabel(label string) {
	p.mu.Lock()
	p.label = label
	p.mu.Unlock()
}

// SetTotal changes the expected total.
func (p *Progress) SetTotal(total int64) {
	p.mu.Lock()
	p.total = total
	p.mu.Unlock()
}

// Add counts n more units and redraws at most five times a second.
func (p *Progress) Add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if !p.on {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < p.minStep {
		return
	}
	p.last = now
	p.draw(now)
}

// Done clears the line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *Progress) draw(now time.Time) {
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.done) / elapsed
	}
	line := fmt.Sprintf("%s  %s", p.label, groupDigits(p.done))
	if p.total > 0 {
		line += fmt.Sprintf("/%s %s (%d%%)", groupDigits(p.total), p.unit, p.done*100/max(p.total, 1))
	} else {
		line += " " + p.unit
	}
	line += fmt.Sprintf("  %s %s/s", groupDigits(int64(rate)), p.unit)
	if p.total > p.done && rate > 0 {
		eta := time.Duration(float64(p.total-p.done)/rate) * time.Second
		line += "  ETA " + eta.Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
	p.drawn = true
}
