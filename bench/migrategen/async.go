package main

import "sync/atomic"

// asyncBatch is the rows handed to a family's goroutine at a time.
const asyncBatch = 4096

// asyncTables encodes and writes one family's rows on a goroutine of its own, beside the
// stream: the ETF encoding of the hooks and the deliveries and RocksDB's table writes are
// half of the stream's CPU, which a second core takes. Rows go over in batches, at most two
// waiting, so memory stays a few batches whatever the rows.
type asyncTables[T any] struct {
	t      *tableStream
	encode func(*T) (k, v []byte)
	batch  []T
	ch     chan []T
	free   chan []T
	done   chan error
	// failed is the goroutine's error, seen by add before the rest of the stream is drawn
	// for nothing.
	failed atomic.Pointer[error]
	closed bool
}

func newAsyncTables[T any](t *tableStream, encode func(*T) (k, v []byte)) *asyncTables[T] {
	a := &asyncTables[T]{t: t, encode: encode, ch: make(chan []T, 2), free: make(chan []T, 4), done: make(chan error, 1)}
	a.batch = make([]T, 0, asyncBatch)
	go a.run()
	return a
}

func (a *asyncTables[T]) run() {
	var err error
	for rows := range a.ch {
		for i := 0; i < len(rows) && err == nil; i++ {
			k, v := a.encode(&rows[i])
			err = a.t.put(k, v)
		}
		if err != nil && a.failed.Load() == nil {
			a.failed.Store(&err)
		}
		clear(rows)
		select {
		case a.free <- rows[:0]:
		default:
		}
	}
	if err == nil {
		err = a.t.finish()
	}
	a.done <- err
}

func (a *asyncTables[T]) add(row T) error {
	a.batch = append(a.batch, row)
	if len(a.batch) < asyncBatch {
		return nil
	}
	if p := a.failed.Load(); p != nil {
		return *p
	}
	a.ch <- a.batch
	select {
	case a.batch = <-a.free:
	default:
		a.batch = make([]T, 0, asyncBatch)
	}
	return nil
}

// finish writes the rows left and completes the family's last file; the goroutine's error,
// if it had one.
func (a *asyncTables[T]) finish() error {
	if a.closed {
		return nil
	}
	if len(a.batch) > 0 {
		a.ch <- a.batch
		a.batch = nil
	}
	close(a.ch)
	a.closed = true
	return <-a.done
}

// close stops the goroutine, which writes what it was sent, and frees the file it was
// writing.
func (a *asyncTables[T]) close() {
	if !a.closed {
		a.batch = nil
		close(a.ch)
		a.closed = true
		<-a.done
	}
	a.t.close()
}
