package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
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
	t.Setenv(progress.IntervalEnv, "1ms")
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
		// stdout and stderr in one buffer, in the order written, and stderr alone too.
		var both orderedBuffer
		streams, _, _, errOnly := iostreams.Test()
		streams.Out = &both
		streams.Err = writerFunc(func(p []byte) (int, error) {
			errOnly.Write(p)
			return both.Write(p)
		})
		// The steps' phases (the bulk method's stages: TestMigrateBulkProgressByStage).
		args := append(append([]string{}, tc.args...), "--method", "steps", "--backup", dir+".cp", dir)
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
		out, code := runOnTerminal(t, 80, []string{"TERM=dumb", progress.IntervalEnv + "=1ms"}, args...)
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
