package progress

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// screen is what a terminal of width columns shows of what it was sent: a character at the
// last column leaves the cursor there until the next one, which goes to the next line (as
// xterm's and the Linux console's autowrap do); a carriage return, a newline (the tty
// adds the return) and erase-to-end-of-line move and clear as they do on a terminal.
type screen struct {
	width   int
	rows    [][]rune
	r, c    int
	pending bool
}

func (s *screen) feed(out string) {
	for len(out) > 0 {
		switch {
		case strings.HasPrefix(out, "\033[K"):
			if s.r < len(s.rows) && s.c < len(s.rows[s.r]) {
				s.rows[s.r] = s.rows[s.r][:s.c]
			}
			s.pending = false
			out = out[3:]
			continue
		case out[0] == '\r':
			s.c, s.pending = 0, false
		case out[0] == '\n':
			s.r, s.c, s.pending = s.r+1, 0, false
		default:
			r := []rune(out)[0]
			if s.pending {
				s.r, s.c, s.pending = s.r+1, 0, false
			}
			for len(s.rows) <= s.r {
				s.rows = append(s.rows, nil)
			}
			for len(s.rows[s.r]) <= s.c {
				s.rows[s.r] = append(s.rows[s.r], ' ')
			}
			s.rows[s.r][s.c] = r
			if s.c == s.width-1 {
				s.pending = true
			} else {
				s.c++
			}
			out = out[len(string(r)):]
			continue
		}
		out = out[1:]
	}
}

func (s *screen) text() string {
	var lines []string
	for _, r := range s.rows {
		lines = append(lines, strings.TrimRight(string(r), " "))
	}
	return strings.Join(lines, "\n")
}

// Ctrl-C on a live line (issue 46): the terminal echoes "^C" after the line, and the line
// is then cleared for the summary. A line that left less than two columns free wrapped at
// the echo, the clear took only the next line, and the last live line stayed on screen
// above a summary that disagreed with it. At every width, nothing of it is left.
func TestInterruptLeavesNoLiveLine(t *testing.T) {
	label := "migrate /var/lib/ankusa/very/long/path/to/the/store: phase due"
	for _, width := range []int{40, 60, 80, 120, 200} {
		var out bytes.Buffer
		p := New(Stream{W: &out, Mode: TTY, Width: width}, label, "rows", 82829)
		p.Add(41000) // the first count is drawn at once
		s := &screen{width: width}
		s.feed(out.String())
		out.Reset()
		s.feed("^C") // the terminal's echo, before the process hears the signal
		p.Done()
		s.feed(out.String() + "interrupted: the store is mid-migration\n")
		if got := s.text(); got != "interrupted: the store is mid-migration\n" && got != "interrupted: the store is mid-migration" {
			t.Errorf("%d columns: the screen after Ctrl-C is\n%s", width, got)
		}
	}
}

// A line printed over the live line (a checkpoint's path) fits the terminal as every note
// does (issue 46: "checkpoint of the store before migrating: PATH" was 87 columns at 80).
func TestPrintFitsTheTerminal(t *testing.T) {
	var out bytes.Buffer
	p := New(Stream{W: &out, Mode: TTY, Width: 80}, "migrate store", "rows", 10)
	defer p.Done()
	p.Print("%s", "checkpoint of the store before migrating: /var/lib/ankusa/store.pre-migrate-20261130T100000Z")
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if w := ansi.StringWidth(ansi.Strip(l)); w > 80 {
			t.Errorf("a line of %d columns at 80: %q", w, l)
		}
	}
	if !strings.Contains(out.String(), "/var/lib/ankusa/store.pre-migrate-20261130T100000Z\n") {
		t.Errorf("the path is not whole:\n%s", out.String())
	}
}
