package migration

import (
	"github.com/ankusa/ankusa-store/pkg/format"
)

// feedSteps is the steps a runFeed holds at once: one being taken, the rest waiting or
// being built. A step's writes are some 2 000 of about 40 bytes, so four are a few hundred
// KiB; more would only let the builder run further ahead of a feed that is behind.
const feedSteps = 4

// stepWrites is one step's writes and counter deltas, as the builder leaves them.
type stepWrites struct {
	ops    opBuf
	deltas format.Deltas
}

// runFeed takes the builder's steps into the runs on a goroutine of its own, so that the
// copy of each write into the run's arena, the counters' sums and each full run's sort
// and spill use the second core while the builder makes the next steps (at 10^6 rows
// they were a third of a bulk run's CPU, all on the builder's goroutine). The runs are
// the feed's alone until close returns: nothing else touches them meanwhile.
//
// The builder hands its buffers over and gets empty ones back (send), so no write is
// copied twice; the steps are taken in the order they were sent, which the runs need (the
// last put of a key wins).
type runFeed struct {
	runs   *bulkRuns
	full   chan *stepWrites // sent, in step order
	free   chan *stepWrites // taken, for the builder to fill again
	failed chan struct{}    // closed when the feed met an error: err says which
	done   chan struct{}    // closed when the goroutine has returned
	err    error            // the first error of takeStep; read after failed or done
}

func newRunFeed(runs *bulkRuns) *runFeed {
	f := &runFeed{
		runs:   runs,
		full:   make(chan *stepWrites, feedSteps),
		free:   make(chan *stepWrites, feedSteps),
		failed: make(chan struct{}),
		done:   make(chan struct{}),
	}
	for range feedSteps - 1 { // the builder holds the last one
		f.free <- &stepWrites{}
	}
	go f.loop()
	return f
}

// loop takes every step sent until close. After an error it takes none, but keeps handing
// the buffers back, so that a send never waits on a feed that has stopped.
func (f *runFeed) loop() {
	defer close(f.done)
	for w := range f.full {
		if f.err == nil {
			if err := f.runs.takeStep(&w.ops, &w.deltas); err != nil {
				f.err = err
				close(f.failed)
			}
		}
		f.free <- w
	}
}

// send hands a step's writes (ops) and counter deltas (d) to the feed, leaving empty
// buffers in their place, and returns the feed's error if it has met one (a run that
// could not be spilled: the disk full). The builder resets both before its next step.
func (f *runFeed) send(ops *opBuf, d *format.Deltas) error {
	var w *stepWrites
	select {
	case w = <-f.free:
	case <-f.failed:
		return f.err
	}
	w.ops, *ops = *ops, w.ops
	w.deltas, *d = *d, w.deltas
	// full holds as many as there are buffers: this send never waits.
	f.full <- w
	return nil
}

// close waits until every step sent is taken (or dropped after an error) and returns the
// feed's error. The runs are the caller's again once it returns. It may be called again.
func (f *runFeed) close() error {
	select {
	case <-f.done:
	default:
		close(f.full)
		<-f.done
	}
	return f.err
}
