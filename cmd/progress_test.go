package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ankusa/ankusa-store/internal/storetest"
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

// Piped (systemd, nohup, CI), migrate says that it lives: a start line naming the store
// and the checkpoint, then a plain progress line every interval, before its summary; none
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
		if !strings.Contains(all[start:], "checkpoint "+dir+".cp") || strings.Contains(errOnly.String(), "\r") {
			t.Errorf("%v: the start line names no checkpoint, or plain lines hold a carriage return:\n%s", tc.args, errOnly.String())
		}
	}
}
