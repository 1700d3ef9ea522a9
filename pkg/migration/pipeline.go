package migration

import (
	"context"
	"errors"
	"sync"
)

// errStopped is what a stage sees when another stage ended the pipeline.
var errStopped = errors.New("migration: pipeline stopped")

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
	ordered := make(chan *step, p.ahead)
	built := make(chan *step, 1)

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(ordered)
		err := p.scan.run(func(stp *step) bool {
			select {
			case tokens <- struct{}{}:
			case <-inner.Done():
				return false
			}
			stp.done = make(chan struct{})
			// Both channels hold p.ahead steps, as many as may be in flight:
			// these sends do not block.
			work <- stp
			ordered <- stp
			return true
		})
		if err != nil && err != errStopped {
			fail(err)
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
			if stp.err != nil {
				fail(stp.err)
				return
			}
			if err := p.build.build(stp, p.waitCommitted); err != nil {
				fail(err)
				return
			}
			select {
			case built <- stp:
			case <-inner.Done():
				return
			}
		}
	}()

	if err := p.commitLoop(ctx, inner, built, tokens, commit); err != nil {
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

func (p *pipeline) commitLoop(ctx, inner context.Context, built <-chan *step, tokens <-chan struct{}, commit func(*step) error) error {
	for {
		var stp *step
		select {
		case <-inner.Done():
			return nil // a stage failed; its error is the run's
		case s, ok := <-built:
			if !ok {
				return nil
			}
			stp = s
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := commit(stp); err != nil {
			return err
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
