package migration

import (
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// ValueError is an index value the migration would have to rewrite but cannot
// read. The contract does not say what such a row is worth, so the migration
// stops at it instead of inventing a size or an id; the store stays resumable
// and the operator repairs or removes the row.
type ValueError struct {
	Phase Phase
	Key   []byte
	Err   error
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("%s: cannot migrate %s (key %s): %v", e.Phase, format.DecodeKey(format.CFIndex, e.Key), rocks.FmtKey(e.Key), e.Err)
}

func (e *ValueError) Unwrap() error { return e.Err }

// Is makes a ValueError a store corruption for exit codes and callers.
func (e *ValueError) Is(target error) bool { return target == rocks.ErrCorrupt }

// noCache reads without filling the block cache: each hook is read about
// once, so caching its block buys nothing; measured, filling it cost more CPU
// and 30 MiB of memory.
var noCache = rocks.ReadOpts{FillCache: false}

// fetch reads what a step's rows need besides their keys: one multi-get of
// the hooks (each seq once) for the tenants, one of the delivery rows of its
// dead rows for their sizes, and the values' own fields. It only reads
// families the migration never writes (hooks, deliveries) and the step's own
// keys, so steps fetch concurrently and ahead of the commits.
//
// With a hook table (not nil), the tenants come from it instead of the hooks
// family.
func fetch(st *rocks.Store, hooks *hookTable, stp *step, vr format.ValueReader) error {
	seqs := make(map[uint64]int32, len(stp.rows))
	var hookKeys, delivKeys [][]byte
	var dead []int
	kbuf := make([]byte, 0, len(stp.rows)*format.KeyLenDelivery*2)
	for i := range stp.rows {
		r := &stp.rows[i]
		if r.stray {
			continue
		}
		idx, ok := seqs[r.seq]
		if !ok {
			idx = int32(len(stp.tenants))
			seqs[r.seq] = idx
			if hooks == nil {
				off := len(kbuf)
				kbuf = format.HookKey{Seq: r.seq}.Append(kbuf)
				hookKeys = append(hookKeys, kbuf[off:len(kbuf):len(kbuf)])
			}
			stp.tenants = append(stp.tenants, hookTenant{seq: r.seq})
		}
		r.hook = idx
		if err := decodeValue(r, vr); err != nil {
			return err
		}
		if r.phase == PhaseDead {
			off := len(kbuf)
			kbuf = format.DeliveryKey{Seq: r.seq, Sink: r.sink}.Append(kbuf)
			delivKeys = append(delivKeys, kbuf[off:len(kbuf):len(kbuf)])
			dead = append(dead, i)
		}
	}
	if hooks != nil {
		for i := range stp.tenants {
			tenant, reason, name, err := hooks.lookup(stp.tenants[i].seq)
			if err != nil {
				return err
			}
			stp.tenants[i].tenant, stp.tenants[i].reason, stp.tenants[i].name = tenant, reason, name
		}
	} else if len(hookKeys) > 0 {
		vals, found, err := st.MultiGetOpts(format.CFHooks, hookKeys, noCache)
		if err != nil {
			return err
		}
		for i := range stp.tenants {
			stp.tenants[i].tenant, stp.tenants[i].reason = format.TenantOf(vals[i], found[i])
		}
	}
	if len(delivKeys) > 0 {
		vals, found, err := st.MultiGetOpts(format.CFDeliveries, delivKeys, noCache)
		if err != nil {
			return err
		}
		for j, i := range dead {
			r := &stp.rows[i]
			switch {
			case !found[j]:
				r.sizeBad = deliveryMissing
			default:
				d, err := vr.DecodeDelivery(vals[j])
				if err != nil {
					r.sizeBad = deliveryUndecodable
				} else {
					// Sizes above 2^63 wrap, as the counters' 64-bit arithmetic does.
					r.size = int64(d.Size)
				}
			}
		}
	}
	return nil
}

// decodeValue reads the fields of a row's value that the migration carries
// over: the size of a due, inflight or archive row, the ids of a dead row
// (read as vr reads it).
func decodeValue(r *row, vr format.ValueReader) error {
	switch r.phase {
	case PhaseDue, PhaseInflight, PhaseArchive:
		size, err := format.DecodeSize(r.val)
		if err != nil {
			return &ValueError{Phase: r.phase, Key: r.key, Err: err}
		}
		r.size = int64(size)
	case PhaseDead:
		// A value that already carries an ord (which no format 2 store holds)
		// gets the ord of its hook like any other.
		v, err := vr.DecodeDeadValue(r.val)
		if err != nil {
			return &ValueError{Phase: r.phase, Key: r.key, Err: err}
		}
		r.dead = v
	}
	return nil
}
