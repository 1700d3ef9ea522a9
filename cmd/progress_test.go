package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// orderedBuffer is stdout and stderr in one, in the order they were written: it shows
// whether progress came before the summary.
type orderedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *orderedBuffer) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *orderedBuffer) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// Piped (systemd, nohup, CI), migrate says that it lives: a start line naming the store,
// the checkpoint's line, then a plain progress line every interval, before its summary; none
// with --progress=none or -q. The interval is shortened through its environment variable
// so that the test waits for no clock.
func TestMigratePlainProgressWhenPiped(t *testing.T) {
	t.Setenv(progressIntervalEnv, "1ms")
	src := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, src, 6000, 50, 3)
	for _, tc := range []struct {
		args  []string
		lines bool
	}{
		{[]string{"migrate"}, true},
		{[]string{"migrate", "--progress=none"}, false},
		{[]string{"migrate", "-q"}, false},
	} {
		dir := storetest.CopyStore(t, src)
		var both orderedBuffer
		var errOnly bytes.Buffer
		streams := IOStreams{In: strings.NewReader(""), Out: &both, Err: writerFunc(func(p []byte) (int, error) {
			errOnly.Write(p)
			return both.Write(p)
		})}
		args := append(append([]string{}, tc.args...), "--backup", dir+".cp", dir)
		if code := Execute(context.Background(), streams, BuildInfo{Version: "test"}, args); code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.args, code, both.String())
		}
		all := both.String()
		summary := strings.Index(all, "\nresult\tfinished=true ") // the summary, TSV when piped
		start := strings.Index(all, "progress: started migrate "+dir)
		line := strings.Index(all, "progress: migrate "+dir+": phase ")
		if summary < 0 {
			t.Fatalf("%v: no summary:\n%s", tc.args, all)
		}
		if !tc.lines {
			if strings.Contains(errOnly.String(), "progress:") {
				t.Errorf("%v: progress lines on stderr:\n%s", tc.args, errOnly.String())
			}
			continue
		}
		if start < 0 || line < 0 || line > summary || start > line {
			t.Errorf("%v: want a start line and a progress line before the summary:\n%s", tc.args, all)
			continue
		}
		// The checkpoint's path once on stderr, on its own line (issue 29: it was in the
		// start line too), and once in the summary on stdout.
		if n := strings.Count(errOnly.String(), dir+".cp"); n != 1 || !strings.Contains(errOnly.String(), "checkpoint of the store before migrating: "+dir+".cp\n") || strings.Contains(errOnly.String(), "\r") {
			t.Errorf("%v: the checkpoint's path %d times on stderr (want its one line), or plain lines hold a carriage return:\n%s", tc.args, n, errOnly.String())
		}
	}
}

// At 80 columns the live line keeps what it is for (issue 21): the command, what it is
// doing (the phase), done/total and the ETA; the store path goes first, then the rate,
// then the digits of the counts. Wider, the path's end and the rate come back. At 60
// the phase text stays whole (issue 29: "backlog p…"): the percentage, the ETA and the
// command's name go first. A total that is RocksDB's estimate says so, with no
// percentage (issue 29: "~1.1M keys" while 737,115 were read).
func TestProgressLineKeepsWhatMatters(t *testing.T) {
	long := "/var/lib/ankusa/very/long/path/to/the/stores/of/this/node/store"
	for _, tc := range []struct {
		s                 counterSnap
		at60, at80, at120 []string
	}{
		{counterSnap{label: "migrate " + long + ": phase dead", unit: "rows", done: 41000, total: 82829, phaseDone: 41000,
			elapsed: 3 * time.Second, phaseAge: 3 * time.Second},
			[]string{"migrate: phase dead", "41,000/82,829 rows"},
			[]string{"migrate", ": phase dead", "41,000/82,829 rows (49%)", "13,666 rows/s", "ETA "},
			[]string{"migrate …", "/node/store: phase dead", "41,000/82,829 rows (49%)", "13,666 rows/s", "ETA "}},
		{counterSnap{label: "tenants ls " + long + ": backlog pass (format 2)", unit: "rows", done: 12345, total: 20000,
			phaseDone: 12345, elapsed: 2 * time.Second, phaseAge: 2 * time.Second},
			[]string{"backlog pass (format 2)", "12.3k/20.0k rows"},
			[]string{"tenants ls: backlog pass (format 2)", "12,345/20,000 rows (61%)", "ETA "},
			[]string{"tenants ls …", "/store: backlog pass (format 2)", "12,345/20,000 rows (61%)", "6,172 rows/s", "ETA "}},
		{counterSnap{label: "counters verify " + long + ": reading due + deliveries", unit: "keys", done: 1500000, total: 3000000, approx: true,
			phaseDone: 1500000, elapsed: 9 * time.Second, phaseAge: 9 * time.Second},
			[]string{"reading due + deliveries", "1.5M of ~3.0M keys"},
			[]string{"counters verify: reading due + deliveries", "1.5M of ~3.0M keys", "ETA ~9s"},
			[]string{"counters verify …", "/store: reading due + deliveries", "1,500,000 of ~3,000,000 keys", "166,666 keys/s", "ETA ~9s"}},
		{counterSnap{label: "counters verify " + long + ": reading due + deliveries", unit: "keys", done: 3100000, total: 3000000, approx: true,
			phaseDone: 3100000, elapsed: 9 * time.Second, phaseAge: 9 * time.Second},
			[]string{"reading due + deliveries", "3,100,000 keys"},
			[]string{"counters verify: reading due + deliveries", "3,100,000 keys"},
			[]string{"counters verify …", "/store: reading due + deliveries", "3,100,000 keys", "344,444 keys/s"}},
	} {
		for width, wants := range map[int][]string{59: tc.at60, 79: tc.at80, 119: tc.at120} {
			got := fitProgressLine(tc.s, width)
			if w := ansi.StringWidth(got); w > width {
				t.Errorf("%d: %d columns: %q", width, w, got)
			}
			for _, w := range strings.Fields(got) {
				if strings.Contains(w, "…") && !strings.Contains(w, "/") {
					t.Errorf("%d: %q cuts the line's text (only the store path may be cut)", width, got)
				}
			}
			if tc.s.approx && strings.Contains(got, "%") {
				t.Errorf("%d: %q: a percentage of an estimate", width, got)
			}
			for _, w := range wants {
				if !strings.Contains(got, w) {
					t.Errorf("%d: %q lacks %q", width, got, w)
				}
			}
		}
	}
}

// A dumb terminal (TERM=dumb) gets no live line (issue 21): no carriage return, no erase
// sequence, only plain lines, in counters verify and migrate.
func TestDumbTerminalGetsNoLiveLine(t *testing.T) {
	src := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, src, 20000, 200, 5)
	for _, args := range [][]string{
		{"counters", "verify", src},
		{"migrate", "--dry-run", src},
		{"migrate", "--progress", "tty", "--dry-run", src},
		{"migrate", "--no-backup", src},
	} {
		out, code := runOnTerminal(t, 80, []string{"TERM=dumb", progressIntervalEnv + "=1ms"}, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
		if strings.Contains(out, "\x1b") || strings.Contains(strings.ReplaceAll(out, "\r\n", "\n"), "\r") {
			t.Errorf("%v: a live line on a dumb terminal:\n%q", args, out)
		}
		if !strings.Contains(out, "progress: ") {
			t.Errorf("%v: no plain progress line:\n%s", args, out)
		}
	}
}
