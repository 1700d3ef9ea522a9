package inspect

import (
	"bytes"
	"context"
	"encoding/binary"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// CountDLQ counts the dead letters opt selects (Limit and After aside) from
// their index keys alone, as ScanDLQ's walks filter them (--since, --until,
// --sink): the exact total an export's progress line shows, read beside it
// at the cost of the keys. known is false where the count would need each
// row's hook (a tenant on format 2, whose index keys carry no tenant).
func CountDLQ(ctx context.Context, st *rocks.Store, opt DLQOptions) (n int64, known bool, err error) {
	s := &dlqScan{db: st.DB, opt: DLQOptions{Since: opt.Since, Until: opt.Until, Sink: opt.Sink}}
	var prefix, end []byte
	decode := func(k []byte) (format.DeadKey, bool) {
		dk, err := format.DecodeDeadKey(k)
		return dk, err == nil
	}
	switch {
	case opt.Tenant.IsZero():
		prefix, end = format.FamDead.Prefix, format.FamDead.PrefixEnd()
	case st.Format == format.Format3 && opt.Tenant.HasOrd():
		prefix, end = format.FamDeadByTenant.TenantSpan(opt.Tenant.Ord)
		decode = func(k []byte) (format.DeadKey, bool) {
			tk, err := format.DecodeDeadByTenantKey(k)
			return tk.DeadKey(), err == nil
		}
	default:
		return 0, false, nil
	}
	lo := prefix
	if !opt.Since.IsZero() {
		lo = binary.BigEndian.AppendUint64(bytes.Clone(prefix), uint64(opt.Since.UnixMilli()))
	}
	hi := s.upper(prefix)
	if hi == nil {
		hi = end
	}
	_, err = walk.Chunks(st.DB, walk.Range{CF: format.CFIndex, Lo: lo, Hi: hi, First: walk.MaxChunk, Held: true}, func(chunk []walk.Entry) (bool, error) {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		for _, e := range chunk {
			if e.Err != nil {
				return true, e.Err
			}
			dk, ok := decode(e.K)
			if !ok {
				continue // a sentinel or a stray: not a dead letter
			}
			if keep, _ := s.keep(dk); keep {
				n++
			}
		}
		return false, nil
	})
	if err != nil {
		return 0, false, err
	}
	return n, true, nil
}
