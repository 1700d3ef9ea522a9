package cmd

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// Progress modes, as --progress names them.
const (
	progressAuto  = "auto"  // tty on a terminal, plain otherwise
	progressTTY   = "tty"   // one live line, redrawn in place
	progressPlain = "plain" // a start line, then a line every interval: for logs
	progressNone  = "none"
)

var progressModes = []string{progressAuto, progressTTY, progressPlain, progressNone}

// plainInterval is how often plain progress prints a line; a log then shows that a job
// lives. ANKUSA_STORE_PROGRESS_INTERVAL (a Go duration) overrides it, so tests need not wait.
const plainInterval = 10 * time.Second

const progressIntervalEnv = "ANKUSA_STORE_PROGRESS_INTERVAL"

// progressEnv sets --progress's default (for a whole CI job, or a test suite whose checks of
// stderr must not depend on how loaded the machine is).
const progressEnv = "ANKUSA_STORE_PROGRESS"

func progressDefault(s IOStreams) string {
	if v := s.getenv(progressEnv); slices.Contains(progressModes, v) {
		return v
	}
	return progressAuto
}

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

// Progress shows a Counter on stderr: a live line on a terminal, a start line and a line
// every interval in a log, nothing with --progress=none or -q. Notes printed through it
// do not collide with the live line.
type Progress struct {
	Counter
	env      *Env
	mode     string
	interval time.Duration
	width    int

	outMu   sync.Mutex // orders the live line, notes and plain lines
	drawn   bool       // a live line is on screen
	last    time.Time  // tty: when the line was last drawn
	counted bool       // tty: an Add has been drawn
	started bool       // plain: the start line was printed
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// Progress starts showing long work: label says what (and where), unit what total counts.
// Call Done when the work ends, before printing its result.
func (e *Env) Progress(label, unit string, total int64) *Progress {
	now := time.Now()
	p := &Progress{
		Counter:  Counter{label: label, unit: unit, total: total, start: now, phaseStart: now},
		env:      e,
		mode:     e.progressMode(),
		interval: progressInterval(),
		width:    e.IO.ErrWidth,
		stop:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	if p.mode == progressNone {
		close(p.stopped)
		return p
	}
	go p.loop()
	return p
}

// Add counts n more units; on a terminal the line follows at most five times a second.
func (p *Progress) Add(n int64) {
	p.Counter.Add(n)
	if p.mode != progressTTY {
		return
	}
	now := time.Now()
	p.outMu.Lock()
	// The first count is drawn at once (a line that said 0 must not stay on screen for a
	// short job), then at most five times a second.
	due := now.Sub(p.last) >= 200*time.Millisecond || !p.counted
	p.counted = true
	p.outMu.Unlock()
	if due {
		p.render(now)
	}
}

// NewProgress is Progress under its earlier name.
func (e *Env) NewProgress(label, unit string, total int64) *Progress {
	return e.Progress(label, unit, total)
}

// progressMode resolves --progress: -q silences it, auto follows stderr.
func (e *Env) progressMode() string {
	if e.Quiet {
		return progressNone
	}
	switch e.ProgressMode {
	case progressTTY, progressPlain, progressNone:
		return e.ProgressMode
	}
	if e.IO.ErrIsTerminal {
		return progressTTY
	}
	return progressPlain
}

func progressInterval() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(progressIntervalEnv)); err == nil && d > 0 {
		return d
	}
	return plainInterval
}

func (p *Progress) loop() {
	defer close(p.stopped)
	tick := 200 * time.Millisecond
	// A plain log gets its start line only once the work has run for a moment (short work
	// stays silent), then a line every interval.
	first := time.Second
	if p.mode == progressPlain {
		tick = p.interval
		first = min(p.interval, time.Second)
	}
	t := time.NewTimer(first)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.render(time.Now())
			t.Reset(tick)
		}
	}
}

func (p *Progress) render(now time.Time) {
	s := p.snap(now)
	p.outMu.Lock()
	defer p.outMu.Unlock()
	w := p.env.IO.Err
	switch p.mode {
	case progressTTY:
		line := progressLine(s, true)
		if p.width > 0 && ansi.StringWidth(line) > p.width-1 {
			line = progressLine(s, false) // the elapsed time goes first
		}
		if p.width > 0 && ansi.StringWidth(line) > p.width-1 {
			// Cut the label, not the numbers: they are what the line is for.
			nums := strings.TrimPrefix(line, s.label)
			room := max(p.width-1-ansi.StringWidth(nums), 12)
			line = truncateWidth(truncateWidth(s.label, room)+nums, p.width-1)
		}
		select {
		case <-p.stop:
			return // Done has cleared the line; a late Add must not draw it again
		default:
		}
		fmt.Fprintf(w, "\r\033[K%s", line)
		p.drawn = true
		p.last = now
	case progressPlain:
		if !p.started {
			p.started = true
			fmt.Fprintf(w, "progress: started %s\n", startLine(s))
			return
		}
		fmt.Fprintf(w, "progress: %s\n", progressLine(s, true))
	}
}

// startLine says what runs and how much of it there is.
func startLine(s counterSnap) string {
	if s.total > 0 {
		return fmt.Sprintf("%s: %s %s", s.label, groupDigits(s.total), s.unit)
	}
	return s.label
}

// progressLine is done/total, rate and ETA, e.g.
// "migrate S: phase dead  41,000/82,829 rows (49%)  40,100 rows/s  ETA 1s  elapsed 1s".
func progressLine(s counterSnap, withElapsed bool) string {
	var b strings.Builder
	b.WriteString(s.label)
	if s.unit != "" {
		b.WriteString("  ")
		b.WriteString(groupDigits(s.done))
		if s.total > 0 {
			pct := s.done * 100 / max(s.total, 1)
			tilde := ""
			if s.approx {
				tilde = "~"
			}
			fmt.Fprintf(&b, "/%s%s %s (%d%%)", tilde, groupDigits(s.total), s.unit, min(pct, 100))
		} else {
			b.WriteString(" " + s.unit)
		}
		// The rate of the phase once it has run a second (phases run at different
		// speeds); before that, of the whole run.
		done, secs := s.phaseDone, s.phaseAge.Seconds()
		if secs < 1 {
			done, secs = s.done, s.elapsed.Seconds()
		}
		if secs > 0 && done > 0 {
			rate := float64(done) / secs
			fmt.Fprintf(&b, "  %s %s/s", groupDigits(int64(rate)), s.unit)
			if s.total > s.done {
				eta := time.Duration(float64(s.total-s.done) / rate * float64(time.Second))
				if eta < time.Second {
					b.WriteString("  ETA <1s")
				} else {
					b.WriteString("  ETA " + humanAge(eta.Milliseconds()))
				}
			}
		}
	}
	if withElapsed || s.unit == "" {
		elapsed := "0s"
		if s.elapsed >= time.Second {
			elapsed = humanAge(s.elapsed.Truncate(time.Second).Milliseconds())
		}
		b.WriteString("  elapsed " + elapsed)
	}
	return b.String()
}

// clearLocked removes the live line so that other text starts at column 0.
func (p *Progress) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.env.IO.Err, "\r\033[K")
		p.drawn = false
	}
}

// Show draws the line now (the plain start line included) rather than after the first
// second: for work known to be long before it starts.
func (p *Progress) Show() {
	if p.mode != progressNone {
		p.render(time.Now())
	}
}

// Note prints a note on stderr (not with -q), above the live line.
func (p *Progress) Note(format string, args ...any) {
	if p.env.Quiet {
		return
	}
	p.Print("note: "+format, args...)
}

// Print prints a line on stderr whatever -q says (a checkpoint's path, a warning), above
// the live line: it is what an operator needs in scrollback if the box dies.
func (p *Progress) Print(format string, args ...any) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	p.clearLocked()
	fmt.Fprintf(p.env.IO.Err, format+"\n", args...)
}

// Done stops drawing and clears the live line. It is safe to call more than once.
func (p *Progress) Done() {
	p.once.Do(func() {
		close(p.stop)
		<-p.stopped
		p.outMu.Lock()
		p.clearLocked()
		p.outMu.Unlock()
	})
}
