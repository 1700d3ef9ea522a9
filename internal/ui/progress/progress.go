package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
)

// Progress shows a Counter on stderr: a live line on a terminal, a start line and a line
// every interval in a log, nothing with --progress=none or -q. Notes printed through it
// do not collide with the live line.
type Progress struct {
	Counter
	w        io.Writer // stderr
	quiet    bool      // -q: no notes
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

// Stream is where progress is shown and how: stderr, the resolved mode (Resolve), -q,
// and stderr's width (0: unlimited).
type Stream struct {
	W     io.Writer
	Mode  string
	Quiet bool
	Width int
}

// New starts showing long work on s: label says what (and where), unit what total counts.
// Call Done when the work ends, before printing its result.
func New(s Stream, label, unit string, total int64) *Progress {
	now := time.Now()
	p := &Progress{
		Counter:  Counter{label: label, unit: unit, total: total, start: now, phaseStart: now},
		w:        s.W,
		quiet:    s.Quiet,
		mode:     s.Mode,
		interval: progressInterval(),
		width:    s.Width,
		stop:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	if p.mode == None {
		close(p.stopped)
		return p
	}
	go p.loop()
	return p
}

// Mode is the mode the progress is shown in.
func (p *Progress) Mode() string { return p.mode }

// Add counts n more units; on a terminal the line follows at most five times a second.
func (p *Progress) Add(n int64) {
	p.Counter.Add(n)
	if p.mode != TTY {
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

// Stage starts a stage of work counted in a unit of its own (Counter.Stage); on a terminal
// its first count is drawn at once, as the work's first is: a stage's line that said 0 must
// not stay on screen for a short stage.
func (p *Progress) Stage(label, unit string, total int64) {
	p.Counter.Stage(label, unit, total)
	p.outMu.Lock()
	p.counted = false
	p.outMu.Unlock()
}

func progressInterval() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(IntervalEnv)); err == nil && d > 0 {
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
	if p.mode == Plain {
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
	s.label = ui.SafeLine(s.label) // it names the store, whose path may hold anything
	p.outMu.Lock()
	defer p.outMu.Unlock()
	w := p.w
	switch p.mode {
	case TTY:
		line := fitProgressLine(s, p.width-echoRoom)
		select {
		case <-p.stop:
			return // Done has cleared the line; a late Add must not draw it again
		default:
		}
		fmt.Fprintf(w, "\r\033[K%s", line)
		p.drawn = true
		p.last = now
	case Plain:
		if !p.started {
			p.started = true
			fmt.Fprintf(w, "progress: started %s\n", startLine(s))
			return
		}
		fmt.Fprintf(w, "progress: %s\n", progressLine(s, lineStyle{elapsed: true, rate: true}))
	}
}

// echoRoom is the columns the live line leaves free at its end: the terminal echoes a
// Ctrl-C as "^C" after it, and a line that left less room wrapped there, so that clearing
// the line cleared only the "C" on the next one and left the last live line on screen
// above the summary (issue 46).
const echoRoom = 3

// fitProgressLine is the live line in width columns (0: any). What goes, in order, when
// it is too wide: the elapsed time; the store path, cut from its left (its end names the
// store), then dropped (the operator typed it); the rate; the digits of the counts
// (1.5M for 1,500,000); the percentage; the ETA; then the command's name. What it is doing
// (the phase, "backlog pass") and done/total are what the line is for, and stay whole
// down to a line narrower than they are.
func fitProgressLine(s counterSnap, width int) string {
	fits := func(l string) bool { return width <= 0 || ansi.StringWidth(l) <= width }
	over := func(st lineStyle) int {
		return ansi.StringWidth(progressLine(s, st)) - width
	}
	st := lineStyle{elapsed: true, rate: true}
	line := progressLine(s, st)
	if fits(line) {
		return line
	}
	st.elapsed = false
	for _, step := range []func(){
		func() {},
		func() { s.label = cutPath(s.label, over(st)) },
		func() { s.label = dropPath(s.label) },
		func() { st.rate = false },
		func() { st.compact = true },
		func() { st.noPct = true },
		func() { st.noETA = true },
		// What the command is doing (the phase, after the label's last ": ") stays whole;
		// the command's name goes, the operator typed it.
		func() { s.label = phaseOnly(s.label) },
	} {
		step()
		if line = progressLine(s, st); fits(line) {
			return line
		}
	}
	return ui.TruncateWidth(line, width)
}

// phaseOnly is what a label says is being done, without the command before it:
// "counters verify: backlog pass" is "backlog pass".
func phaseOnly(label string) string {
	if i := strings.LastIndex(label, ": "); i >= 0 {
		return label[i+2:]
	}
	return label
}

// pathWord is the index of the longest word of label with a slash in it (a store path),
// or -1.
func pathWord(words []string) int {
	best := -1
	for i, w := range words {
		if strings.Contains(w, "/") && (best < 0 || ansi.StringWidth(w) > ansi.StringWidth(words[best])) {
			best = i
		}
	}
	return best
}

// cutPath shortens the path in label by over columns from its left, to "…" and its
// last 8 columns at least.
func cutPath(label string, over int) string {
	words := strings.Split(label, " ")
	best := pathWord(words)
	if best < 0 || over <= 0 {
		return label
	}
	w := words[best]
	keep := max(ansi.StringWidth(w)-over-1, 8) // columns kept after the "…"
	if keep >= ansi.StringWidth(w) {
		return label
	}
	words[best] = ansi.TruncateLeft(w, ansi.StringWidth(w)-keep, "…")
	return strings.Join(words, " ")
}

// dropPath removes the path from label, keeping a colon that ended it:
// "migrate …/store: phase dead" is "migrate: phase dead".
func dropPath(label string) string {
	words := strings.Split(label, " ")
	best := pathWord(words)
	if best <= 0 {
		return label
	}
	if strings.HasSuffix(words[best], ":") {
		words[best-1] += ":"
	}
	return strings.Join(append(words[:best:best], words[best+1:]...), " ")
}

// lineStyle is what a progress line holds besides the label and done/total.
type lineStyle struct {
	elapsed, rate bool
	compact       bool // counts as 1.5M, not 1,500,000
	noPct, noETA  bool
}

// compactCount is n in three significant figures at most (12.3k, 1.5M): for a line with
// no room for every digit.
func compactCount(n int64) string {
	switch v := float64(n); {
	case n < 10_000:
		return words.Group(n)
	case n < 1_000_000:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	case n < 1_000_000_000:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	default:
		return strconv.FormatFloat(v/1e9, 'f', 1, 64) + "G"
	}
}

// startLine says what runs and how much of it there is.
func startLine(s counterSnap) string {
	if s.total > 0 && s.approx {
		return fmt.Sprintf("%s: about %s %s (RocksDB's estimate)", s.label, words.Group(s.total), s.unit)
	}
	if s.total > 0 {
		return fmt.Sprintf("%s: %s %s", s.label, words.Group(s.total), s.unit)
	}
	return s.label
}

// progressLine is done/total, rate and ETA, e.g.
// "migrate S: phase dead  41,000/82,829 rows (49%)  40,100 rows/s  ETA 1s  elapsed 1s".
func progressLine(s counterSnap, st lineStyle) string {
	count := words.Group
	if st.compact {
		count = compactCount
	}
	var b strings.Builder
	b.WriteString(s.label)
	if s.unit != "" {
		b.WriteString("  ")
		b.WriteString(count(s.done))
		switch pct := s.done * 100 / max(s.total, 1); {
		case s.total > 0 && s.approx && s.done < s.total:
			// RocksDB's estimate of the keys, not a count: "of ~N", and no percentage
			// (a store with many deletions ended at 67%); the start line says whose.
			fmt.Fprintf(&b, " of ~%s %s", count(s.total), s.unit)
		case s.total > 0 && s.approx:
			b.WriteString(" " + s.unit) // past the estimate: only the count is true
		case s.total > 0 && st.noPct:
			fmt.Fprintf(&b, "/%s %s", count(s.total), s.unit)
		case s.total > 0:
			fmt.Fprintf(&b, "/%s %s (%d%%)", count(s.total), s.unit, min(pct, 100))
		default:
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
			if st.rate {
				fmt.Fprintf(&b, "  %s %s/s", count(int64(rate)), s.unit)
			}
			if s.total > s.done && !st.noETA {
				eta := time.Duration(float64(s.total-s.done) / rate * float64(time.Second))
				about := ""
				if s.approx {
					about = "~"
				}
				if eta < time.Second {
					b.WriteString("  ETA " + about + "<1s")
				} else {
					b.WriteString("  ETA " + about + words.Age(eta.Milliseconds()))
				}
			}
		}
	}
	if st.elapsed || s.unit == "" {
		elapsed := "0s"
		if s.elapsed >= time.Second {
			elapsed = words.Age(s.elapsed.Truncate(time.Second).Milliseconds())
		}
		b.WriteString("  elapsed " + elapsed)
	}
	return b.String()
}

// clearLocked removes the live line so that other text starts at column 0.
func (p *Progress) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// Show draws the line now (the plain start line included) rather than after the first
// second: for work known to be long before it starts.
func (p *Progress) Show() {
	if p.mode != None {
		p.render(time.Now())
	}
}

// Note prints a note on stderr (not with -q), above the live line, through the one
// printer of notes (ui.Notes).
func (p *Progress) Note(format string, args ...any) {
	ui.Notes{Quiet: p.quiet, Width: p.lineWidth(), Above: p.Above}.Notef(format, args...)
}

// Above writes s, finished lines, on stderr above the live line: the line is cleared first
// and drawn again at its next tick. ui.Notes writes a command's notes and warnings through
// it while a live line is drawn.
func (p *Progress) Above(s string) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	p.clearLocked()
	fmt.Fprint(p.w, s)
}

// lineWidth is what a line above the live one fits: the terminal's on the terminal the
// line is drawn on, else whole lines.
func (p *Progress) lineWidth() int {
	if p.mode == TTY {
		return p.width
	}
	return 0
}

// Print prints a line on stderr whatever -q says (a checkpoint's path, a warning), above
// the live line: it is what an operator needs in scrollback if the box dies.
func (p *Progress) Print(format string, args ...any) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	p.clearLocked()
	line := ui.SafeLines(fmt.Sprintf(format, args...))
	if p.mode == TTY {
		// On the terminal the live line is drawn on, the line fits it, as every note does.
		fmt.Fprint(p.w, ui.WrapTo(line, p.width))
		return
	}
	fmt.Fprintln(p.w, line)
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
