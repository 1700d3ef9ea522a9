package inspect

import (
	"bytes"
	"context"
	"encoding/binary"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// CountDLQ counts the dead letters opt selects (Limit and After aside) from
// their index keys alone, as ScanDLQ's walks filter them (--since, --until,
// --sink): the exact total an export's progress line shows, read beside it
// at the cost of the keys. known is false where the count would need each
// row's hook (a tenant on format 2, whose index keys carry no tenant).
func CountDLQ(ctx context.Context, st *rocks.Store, opt DLQOptions) (n int64, known bool, err error) {
	s := &dlqScan{db: st.DB, opt: DLQOptions{Since: opt.Since, Until: opt.Until, Sink: opt.Sink}}
	var prefix []byte
	decode := func(k []byte) (format.DeadKey, bool) {
		dk, err := format.DecodeDeadKey(k)
		return dk, err == nil
	}
	switch {
	case opt.Tenant == "":
		prefix = []byte{format.PrefixDead}
	case st.Format == format.Format3:
		v, ok, err := st.DB.Get(format.CFTenants, format.OrdByTenantKey{Tenant: opt.Tenant}.Encode())
		if err != nil || !ok {
			return 0, err == nil, err
		}
		ord, err := format.DecodeU32(v)
		if err != nil {
			return 0, false, nil // ScanDLQ says what is wrong with it
		}
		prefix = binary.BigEndian.AppendUint32([]byte{format.PrefixDeadByTenant}, ord)
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
		hi = prefixEnd(prefix)
	}
	_, err = walkChunks(st.DB, walkRange{CF: format.CFIndex, Lo: lo, Hi: hi, First: walkMaxChunk, Held: true}, func(chunk []walkEntry) (bool, error) {
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

// prefixEnd is the first key after every key that starts with p (nil: none is:
// p is all 0xff).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
