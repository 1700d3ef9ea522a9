package rocks

// A reader on a goroutine of its own, ahead of the consumer of what it reads
// (the views' joins, diff), used to copy every entry out of the batched
// iterator's buffer into chunks it could hand on: at 10^6 tenants that copy
// was a sixth of `tenants ls`. ScanFills hands the buffer itself on
// instead, one fill at a time, and the iterator fills a new one.

// Fill is one fill of a scan: its entries in the buffer they were filled in,
// in scan order. It is its reader's until Release.
type Fill struct {
	bufp *[]byte // the pool's buffer, nil for a private one
	buf  []byte
	n    int // entries
	last int // offset of the last entry
}

// Len is the number of entries in b.
func (b *Fill) Len() int { return b.n }

// Size is the bytes b's entries take in its buffer.
func (b *Fill) Size() int { return len(b.buf) }

// Entry returns the entry at byte offset off (0 is the first) and the offset
// of the next; k and v are valid until Release.
func (b *Fill) Entry(off int) (k, v []byte, next int) { return entryAt(b.buf, off) }

// Last returns the last entry of b.
func (b *Fill) Last() (k, v []byte) {
	k, v, _ = b.Entry(b.last)
	return k, v
}

// Release gives b's buffer back for another fill; b and every entry of it
// must not be used after.
func (b *Fill) Release() {
	if b.bufp != nil {
		fillBufs.Put(b.bufp)
	}
	b.bufp, b.buf, b.n = nil, nil, 0
}

// Detach keeps b's entries in a buffer of their own size and gives the
// pool's buffer back: a fill held for long (the t rows tenants ls counts,
// then lists from memory) then costs its entries' bytes, not a whole
// buffer of the pool's (a fill of small entries uses a fraction of one).
func (b *Fill) Detach() {
	if b.bufp == nil {
		return
	}
	buf := make([]byte, len(b.buf))
	copy(buf, b.buf)
	fillBufs.Put(b.bufp)
	b.bufp, b.buf = nil, buf
}

// ScanFills is Scan fill by fill: fn gets each fill of the iterator whole
// (never empty) and owns it; it may keep it past its return and must Release
// it once done, or leave it to the garbage collector. Errors are Scan's: a
// failed iteration is a *KeyError naming the key after the last one handed
// on, or the key whose merge failed.
func (d *DB) ScanFills(cf string, lo, hi []byte, ro ReadOpts, fn func(b *Fill) error) error {
	return d.iterate(cf, lo, hi, ro, false, func(it *cIter) ([]byte, error) {
		var last []byte
		for !it.done && it.fill() {
			b := it.take()
			k, _ := b.Last()
			last = append(last[:0], k...) // b is fn's from here on
			if err := fn(b); err != nil {
				return last, err
			}
		}
		return last, nil
	})
}
