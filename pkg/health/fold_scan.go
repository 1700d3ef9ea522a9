package health

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// famRead is one read of a key family.
type famRead struct {
	fam format.Family
	// lo and hi bound a range inside the family (one tenant's keys); both nil
	// read all of it, and then the read is a fold: it must start at the lo
	// sentinel and reach the hi sentinel (a family without sentinels, such
	// as deliveries, is read whole).
	lo, hi []byte
	// row is called for every key that is not a sentinel; returning true
	// pauses the read after that key.
	row func(k, v []byte) (pause bool)
	// pause runs while the read is paused, outside the scan: a scan callback
	// must not read the store (it holds the store's read lock).
	pause func() error
	// failedKey is told of a key whose read failed on its own (a merge
	// that failed on a bad operand); the read goes on past it.
	failedKey func(k []byte)
	// lane is the goroutine the read runs on (laneIndex or laneRows).
	lane int
}

// tickEvery is how many keys pass between checks of the context and calls
// of the progress.
const tickEvery = 4096

func (e *foldEngine) tick(lane int) error {
	t := &e.ticks[lane]
	t.n++
	if t.n&(tickEvery-1) == 0 {
		e.progress.Add(tickEvery)
		return e.ctx.Err()
	}
	return nil
}

// famCounter returns the key counter of a family. Each family is read by
// one lane, so only the counter's creation needs the lock.
func (e *foldEngine) famCounter(name, cf string) *FamilyKeys {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range e.famKeys {
		if f.Family == name && f.CF == cf {
			return f
		}
	}
	f := &FamilyKeys{Family: name, CF: cf}
	e.famKeys = append(e.famKeys, f)
	return f
}

// read runs r. Corruption is recorded in the report, and the family marked
// broken when the read could not go on; the error is only for what stops
// the whole run (a canceled context, a failed read that is not corruption).
func (e *foldEngine) read(r famRead) error {
	if r.lane == laneIndex {
		e.forget()
	}
	if err := e.ctx.Err(); err != nil {
		return err
	}
	f := r.fam
	fk := e.famCounter(f.Name, f.CF)
	// Counted here and added at the end: the other lane's counters may
	// share fk's cache line.
	var keys int64
	defer func() { fk.Keys += keys }()
	whole := r.lo == nil && r.hi == nil && r.fam.Lo != nil
	start, end := r.lo, r.hi
	if whole {
		end = f.PrefixEnd()
		if len(f.Prefix) > 0 {
			start = f.Lo
		}
	}
	var (
		seenLo, seenHi bool
		last           []byte // the last row read, to say where a fold stopped
		tickErr        error
	)
	for {
		var resume []byte
		err := e.st.Scan(f.CF, start, end, e.ro, func(k, v []byte) error {
			keys++
			if tickErr = e.tick(r.lane); tickErr != nil {
				return tickErr
			}
			if whole {
				switch c := bytes.Compare(k, f.Hi); {
				case c == 0:
					seenHi = true
					return nil
				case c > 0:
					e.badKey(f, k, "lies past the family's hi sentinel")
					return nil
				}
				switch c := bytes.Compare(k, f.Lo); {
				case c == 0:
					seenLo = true
					return nil
				case c < 0:
					e.badKey(f, k, "lies before the family's lo sentinel")
					return nil
				}
				last = append(last[:0], k...)
			}
			if r.row(k, v) {
				resume = format.Successor(k)
				return rocks.Stop
			}
			return nil
		})
		if tickErr != nil {
			return tickErr
		}
		if err != nil {
			var ke *rocks.KeyError
			switch {
			case errors.As(err, &ke) && ke.Corrupt && !ke.After && ke.Key != nil:
				// One key failed (a merge on a bad operand); the keys
				// after it can still be read.
				e.corrupt(f, ke.Key, "reading it failed: "+ke.Err.Error())
				if r.failedKey != nil {
					r.failedKey(ke.Key)
				}
				start = format.Successor(ke.Key)
				continue
			case isCorrupt(err):
				var key []byte
				if ke != nil {
					key = ke.Key
				}
				e.corrupt(f, key, corruptDetail(err))
				e.setBroken(f.Name)
				return nil
			}
			return fmt.Errorf("reading family %s (%s): %w", f.Name, f.CF, err)
		}
		if resume == nil {
			break
		}
		if r.pause != nil {
			if err := r.pause(); err != nil {
				return err
			}
		}
		start = resume
	}
	if whole {
		if !seenLo {
			// The rows were all read (the scan starts at the prefix), so the
			// fold is complete; but sentinels are written with the family
			// and only corruption or a stray delete removes one.
			e.corrupt(f, f.Lo, "its lo sentinel is missing")
		}
		if !seenHi {
			msg := "its hi sentinel was not reached, so the fold may have been cut short (the sentinel is gone, or the scan ended early)"
			if last != nil {
				msg += "; the last row read was " + keyRef(f.CF, last).Key
			}
			e.corrupt(f, f.Hi, msg)
			e.setBroken(f.Name)
		}
	}
	return nil
}

// setBroken marks a family that could not be read to its end.
func (e *foldEngine) setBroken(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.broken[name] = true
}

// corrupt records a read that failed.
// corruptDetail is what a corruption entry says of err: a key's error without
// its class (the entry is listed under corruption already).
func corruptDetail(err error) string {
	if ke, ok := err.(*rocks.KeyError); ok {
		return ke.Detail()
	}
	return err.Error()
}

func (e *foldEngine) corrupt(f format.Family, key []byte, detail string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := Corruption{Family: f.Name, CF: f.CF, Detail: detail}
	if key != nil {
		k := keyRef(f.CF, key)
		c.Key = &k
	}
	e.rep.Corruption = append(e.rep.Corruption, c)
}

// finding records a finding, or counts it once its check has listed
// MaxFindingsPerCheck.
func (e *foldEngine) finding(check string, tenant *TenantRef, key KeyRef, related []KeyRef, detail string) {
	if !e.checks {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.perCheck[check] >= MaxFindingsPerCheck {
		e.rep.FindingsOmitted[check]++
		return
	}
	e.perCheck[check]++
	if related == nil {
		related = []KeyRef{}
	}
	e.rep.Findings = append(e.rep.Findings, Finding{
		Check: check, Invariant: checkInvariant[check], Tenant: tenant, Key: key, Related: related, Detail: detail,
	})
}

// omitted counts n findings of check past the ones listed.
func (e *foldEngine) omitted(check string, n int64) {
	if !e.checks || n == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rep.FindingsOmitted[check] += n
}

func (e *foldEngine) badKey(f format.Family, k []byte, detail string) {
	e.finding(CheckBadKey, nil, keyRef(f.CF, k), nil, fmt.Sprintf("a key in the range of family %s that %s", f.Name, detail))
}

// badKeyErr reports a key that does not decode; its KeyRef says why.
func (e *foldEngine) badKeyErr(f format.Family, k []byte, _ error) {
	e.finding(CheckBadKey, nil, keyRef(f.CF, k), nil, fmt.Sprintf("a key in the range of family %s that does not decode, so no check counts it", f.Name))
}

func (e *foldEngine) badValue(cf string, k, v []byte, tenant *TenantRef, err error) {
	e.finding(CheckBadValue, tenant, keyRef(cf, k), nil, fmt.Sprintf("its value (%d bytes) does not decode: %v", len(v), err))
}

// multiGet reads keys of one family at the snapshot. A key whose read fails
// as corruption is recorded and reads as absent.
func (e *foldEngine) multiGet(f format.Family, keys [][]byte) ([][]byte, []bool, error) {
	vals, found, err := e.st.MultiGetOpts(f.CF, keys, e.ro)
	if err != nil {
		if !isCorrupt(err) || vals == nil {
			return nil, nil, fmt.Errorf("reading %s: %w", f.CF, err)
		}
		var ke *rocks.KeyError
		if asKeyError(err, &ke) {
			e.corrupt(f, ke.Key, corruptDetail(err))
		} else {
			e.corrupt(f, nil, corruptDetail(err))
		}
	}
	return vals, found, nil
}

func asKeyError(err error, ke **rocks.KeyError) bool { return errors.As(err, ke) }

func (e *foldEngine) notChecked(check, reason string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range e.rep.NotChecked {
		if n.Check == check {
			return
		}
	}
	e.rep.NotChecked = append(e.rep.NotChecked, NotChecked{Check: check, Reason: reason})
}
