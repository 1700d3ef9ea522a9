package migration

import (
	"context"
	"errors"
	"sync"
)

// errStopped is what a stage sees when another stage ended the pipeline.
var errStopped = errors.New("migration: pipeline stopped")

// firstCause is the run's error among errs (nil ones skipped), those of goroutines that
// cancel one another at their first failure: the first that is not a cancellation one of
// the others caused (a cancellation is the run's own when ctx is done), else the first.
func firstCause(ctx context.Context, errs []error) error {
	var first error
	for _, e := range errs {
		if e == nil {
			continue
		}
		if !errors.Is(e, context.Canceled) || ctx.Err() != nil {
			return e
		}
		if first == nil {
			first = e
		}
	}
	return first
}

// pipeline runs the steps: a scanner reads each step's keys in order, fetch
// workers read the hooks and delivery rows of several steps at once, a
// builder resolves ordinals and encodes the batches in step order, and the
// calling goroutine commits them in step order.
//
// Nothing a later step reads depends on an earlier step's writes (see
// scanner), and the builder keeps the ordinals of steps not yet committed in
// memory, so the overlap changes no byte of any batch: a run killed with
// steps in flight loses them whole, and the rerun builds them again the same.
type pipeline struct {
	scan    *scanner
	fetch   func(*step) error
	build   *builder
	workers int
	ahead   int // steps in flight, from scanned to committed

	mu        sync.Mutex
	cond      *sync.Cond
	committed int // number of the last committed step
	stopped   bool
}

// run commits steps until the finish, an error, or ctx is done. It checks ctx
// before each commit and after it, so cancellation stops the run after the
// step being committed and returns ctx's error; steps read or built ahead are
// dropped, uncommitted.
//
// An error met reading or building a step travels with that step, in order:
// every step before it is committed, none after, so a run that fails stops
// exactly before the step it cannot make, however far ahead it had read.
func (p *pipeline) run(ctx context.Context, commit func(*step) error) error {
	p.cond = sync.NewCond(&p.mu)
	inner, cancel := context.WithCancel(context.Background())
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	fail := func(err error) {
		once.Do(func() { firstErr = err })
		cancel()
	}

	tokens := make(chan struct{}, p.ahead)
	work := make(chan *step, p.ahead)
	// ordered holds one more than may be in flight: the step that carries a
	// scan error.
	ordered := make(chan *step, p.ahead+1)
	built := make(chan *step, 1)

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(ordered)
		num := 0
		err := p.scan.run(func(stp *step) bool {
			select {
			case tokens <- struct{}{}:
			case <-inner.Done():
				return false
			}
			num = stp.num
			stp.done = make(chan struct{})
			// Both channels hold at least p.ahead steps, as many as may be
			// in flight: these sends do not block.
			work <- stp
			ordered <- stp
			return true
		})
		if err != nil && err != errStopped {
			bad := &step{num: num + 1, err: err, done: make(chan struct{})}
			close(bad.done)
			ordered <- bad
		}
	}()

	for range p.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for stp := range work {
				if inner.Err() != nil {
					stp.err = errStopped
				} else {
					stp.err = p.fetch(stp)
				}
				close(stp.done)
			}
		}()
	}

	// The builder closes built when it stops, for whatever reason; the
	// committer commits what it was given before that.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(built)
		for stp := range ordered {
			select {
			case <-stp.done:
			case <-inner.Done():
				return
			}
			if stp.err == nil {
				stp.err = p.build.build(stp, p.waitCommitted)
			}
			if stp.err != nil {
				if stp.err != errStopped {
					once.Do(func() { firstErr = stp.err })
				}
				return
			}
			select {
			case built <- stp:
			case <-inner.Done():
				return
			}
		}
	}()

	if err := p.commitLoop(ctx, built, tokens, commit); err != nil {
		fail(err)
	}
	cancel()
	p.mu.Lock()
	p.stopped = true
	p.cond.Broadcast()
	p.mu.Unlock()
	wg.Wait()
	return firstErr
}

func (p *pipeline) commitLoop(ctx context.Context, built <-chan *step, tokens <-chan struct{}, commit func(*step) error) error {
	for stp := range built {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := commit(stp); err != nil {
			return err
		}
		if stp.batch != nil { // the bulk method's builder makes none
			batches.Put(stp.batch)
			stp.batch = nil
		}
		p.mu.Lock()
		p.committed = stp.num
		p.cond.Broadcast()
		p.mu.Unlock()
		<-tokens
		if stp.finish {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil // the builder stopped; its error, if any, is the run's
}

// waitCommitted returns once every step before num is committed.
func (p *pipeline) waitCommitted(num int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.committed < num-1 && !p.stopped {
		p.cond.Wait()
	}
	if p.committed < num-1 {
		return errStopped
	}
	return nil
}
