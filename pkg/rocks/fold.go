package rocks

import (
	"bytes"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// Fold calls fn for every row of a key family, in key order, between its
// sentinels. The lo sentinel must be the first key and the hi sentinel must
// be reached: RocksDB can report corruption as a plain end of iteration, so a
// fold that does not end at hi was cut short and fails with a *CutShortError
// naming the family (errors.Is ErrCorrupt), as does an iterator error (its
// Err is a *KeyError naming the key). Sentinels are not passed to fn. k and v
// are only valid during fn; fn may return Stop to end the fold early.
func (d *DB) Fold(f format.Family, ro ReadOpts, fn func(k, v []byte) error) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	fam, err := d.cf(f.CF)
	if err != nil {
		return err
	}
	_, failsBefore := d.merge.failure()
	// The upper bound is the immediate successor of hi, so hi itself is the
	// last key the iterator can yield.
	bound := make([]byte, len(f.Hi)+1)
	copy(bound, f.Hi)
	it, err := newCIter(d, fam, f.Lo, bound, ro, false)
	if err != nil {
		return err
	}
	defer it.close()

	k, _, ok := it.next()
	if !ok || !bytes.Equal(k, f.Lo) {
		cs := &CutShortError{Family: f.Name, CF: f.CF, Missing: "lo"}
		if msg := it.errMsg(); msg != "" {
			cs.Err = d.iterError(f.CF, nil, failsBefore, msg)
		}
		return cs
	}
	last := k
	hi := f.Hi
	for {
		k, v, ok := it.next()
		if !ok {
			break
		}
		if bytes.Equal(k, hi) {
			// Nothing lies between hi and the bound; still, end here.
			return nil
		}
		last = k // the buffer keeps it when iteration ends
		if err := fn(k, v); err != nil {
			if err == Stop {
				return nil
			}
			return err
		}
	}
	cs := &CutShortError{Family: f.Name, CF: f.CF, Missing: "hi", LastKey: append([]byte(nil), last...)}
	if msg := it.errMsg(); msg != "" {
		cs.Err = d.iterError(f.CF, last, failsBefore, msg)
	}
	return cs
}
