package faults

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// opensPerCommand is how many times each read-only command opens the store beside the
// churning writer: 6 commands x 120 runs, two at a time, take about a minute on two cores,
// and before the fix about one run in thirteen failed (60 of 750; the issue: 16 of 300).
const opensPerCommand = 120

// TestChurn: read-only commands beside a writer that flushes and compacts without pause
// report no false corruption (a table or WAL file deleted between RocksDB's listing and its
// open is retried, not reported), and create, rename or delete no file in the store: every
// file that appears while they run is one a writer makes (a table file or a WAL).
func TestChurn(t *testing.T) {
	dir := extract(t, "store-v3", t.TempDir())
	baseline := map[string]int{}
	for _, args := range roCommands {
		baseline[strings.Join(args, " ")] = run(t, append(args, dir)...).Code
	}

	c, in, out := startRole(t, "churn", dir)
	stopped := false
	stop := func() string {
		if stopped {
			return ""
		}
		stopped = true
		in.Close()
		rest, _ := io.ReadAll(out)
		if err := c.Wait(); err != nil {
			t.Errorf("churn role: %v", err)
		}
		return string(rest)
	}
	t.Cleanup(func() { stop() })
	br := bufio.NewReader(out)
	if line, _ := br.ReadString('\n'); strings.TrimSpace(line) != "ready" {
		t.Fatalf("churn role did not start: %q", line)
	}
	out = io.NopCloser(br)

	w := watch(t, dir)

	type failure struct {
		args []string
		r    result
	}
	var (
		mu       sync.Mutex
		failures []failure
		runs     int
	)
	jobs := make(chan []string)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for args := range jobs {
				r := run(t, append(args, dir)...)
				mu.Lock()
				runs++
				if r.Signaled || r.Code != baseline[strings.Join(args, " ")] {
					failures = append(failures, failure{args, r})
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < opensPerCommand; i++ {
		for _, args := range roCommands {
			jobs <- args
		}
	}
	close(jobs)
	wg.Wait()
	events := w.stop()
	t.Logf("%d read-only runs beside the writer; writer: %s", runs, strings.TrimSpace(stop()))

	for i, f := range failures {
		if i == 5 {
			t.Errorf("... and %d more", len(failures)-5)
			break
		}
		t.Errorf("%v beside a churning writer (want exit %d): %s", f.args, baseline[strings.Join(f.args, " ")], f.r)
	}
	writerFile := regexp.MustCompile(`^[0-9]+\.(sst|log)$`)
	var strange []string
	for _, e := range events {
		if !writerFile.MatchString(e) {
			strange = append(strange, e)
		}
	}
	if len(strange) > 0 {
		t.Errorf("files created, renamed or deleted in the store that no writer's flush or compaction makes: %v", strange)
	}

	// The writer gone, the read-only commands leave the store byte-identical.
	before := storetest.TreeOf(t, dir)
	for _, args := range roCommands {
		r := run(t, append(args, dir)...)
		if r.Signaled || r.Code != baseline[strings.Join(args, " ")] {
			t.Errorf("%v after the writer stopped: %s", args, r)
		}
		storetest.SameTree(t, before, storetest.TreeOf(t, dir))
	}
}

// watcher records the names of files created, moved or deleted in a directory (inotify).
type watcher struct {
	f     *os.File
	done  chan struct{}
	mu    sync.Mutex
	names []string
}

func watch(t *testing.T, dir string) *watcher {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO|unix.IN_DELETE); err != nil {
		t.Fatal(err)
	}
	w := &watcher{f: os.NewFile(uintptr(fd), "inotify"), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := w.f.Read(buf)
			if err != nil {
				return
			}
			for p := 0; p+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[p]))
				name := buf[p+unix.SizeofInotifyEvent : p+unix.SizeofInotifyEvent+int(ev.Len)]
				w.mu.Lock()
				w.names = append(w.names, string(bytes.TrimRight(name, "\x00")))
				w.mu.Unlock()
				p += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}()
	return w
}

func (w *watcher) stop() []string {
	w.f.Close()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.names
}
