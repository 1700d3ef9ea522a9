package rocks

// scanAheadFills is how many fills ScanAhead's reader may hold ready for its consumer: a
// fill is 256 KiB (or one larger entry), so about a MiB.
const scanAheadFills = 4

// ScanAhead is Scan with RocksDB's side on a goroutine of its own: the iterator fills its
// buffers (ScanFills) up to scanAheadFills ahead of fn, which gets each entry on the
// caller's goroutine, in order. A consumer about as costly as the iteration then runs beside
// it: the bulk migration's deliveries join, a merge of runs beside one scan, read alone on one
// core for the last seconds of its stage (3 s at 10^8 rows) once the hooks' join, on three
// goroutines, was done. The calls of fn and the errors are Scan's: Stop from fn ends the
// scan without error, fn's other errors are returned as they are, and a failed iteration is
// a *KeyError naming the key after the last one fn was given (every fill handed over is
// given to fn before the reader's error is returned). k and v are valid until fn returns.
func (d *DB) ScanAhead(cf string, lo, hi []byte, ro ReadOpts, fn func(k, v []byte) error) error {
	fills := make(chan *Fill, scanAheadFills)
	quit := make(chan struct{})
	var readErr error
	go func() {
		defer close(fills)
		readErr = d.ScanFills(cf, lo, hi, ro, func(f *Fill) error {
			select {
			case fills <- f:
				return nil
			case <-quit:
				f.Release()
				return Stop
			}
		})
	}()
	var err error
	for f := range fills {
		for i, off := 0, 0; err == nil && i < f.Len(); i++ {
			var k, v []byte
			k, v, off = f.Entry(off)
			err = fn(k, v)
		}
		f.Release()
		if err != nil && quit != nil {
			// The reader stops at its next fill; the fills it sent before are released above.
			close(quit)
			quit = nil
		}
	}
	// fills is closed: the reader's scan has returned, and readErr is its error.
	switch {
	case err == Stop:
		return nil
	case err != nil:
		return err
	}
	return readErr
}
