package inspect

import (
	"context"
	"strings"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/sortjoin"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// DeadRefs lists the dead letters whose ref (SEQ:SINK, what dlq show takes) starts with
// prefix, newest first, at most limit, each with its tenant and hook id: what completion
// offers for dlq show. It walks the whole dead-letter set (x), not a page of it, since a
// ref's seq says nothing of when it went dead; the walk reads keys and values of x alone
// until ctx ends it, then names the tenants of what it found (format 3: one multi-get of t
// rows; format 2: of their hooks). complete is false when ctx ended the walk before the end
// of the set (or before limit rows): the rows are those found until then.
func DeadRefs(ctx context.Context, st *rocks.Store, prefix string, limit int) (rows []DLQRow, complete bool, err error) {
	if err := refuseMidMigration(st); err != nil {
		return nil, false, err
	}
	s := &dlqScan{db: st.DB, opt: DLQOptions{Limit: limit}, page: &DLQPage{Format: st.Format}, reads: sortjoin.StoreReads{DB: st.DB}}
	complete = true
	err = walk.Family(s.db, format.FamDead, nil, true, walk.FirstChunk, func(chunk []walk.Entry) (bool, error) {
		if ctx.Err() != nil {
			complete = false
			return true, nil
		}
		for _, e := range chunk {
			dk, err := format.DecodeDeadKey(e.K)
			if err != nil || !strings.HasPrefix(dlqRefOf(dk.Seq, dk.Sink), prefix) {
				continue
			}
			row := dlqNewRow(dk)
			dlqFillFromValue(&row, e.V, st.Format, s.opt.Values)
			s.keys, s.rows = append(s.keys, dk), append(s.rows, row)
			if len(s.rows) >= limit {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, false, err
	}
	if st.Format == format.Format2 {
		h := newHookTenants(s.db)
		seqs := make([]uint64, len(s.rows))
		for i, r := range s.rows {
			seqs[i] = r.Seq
		}
		if err := h.resolve(seqs); err != nil {
			return nil, false, err
		}
		for i := range s.rows {
			s.rows[i].Tenant = h.tenant(s.rows[i].Seq)
		}
	} else if err := s.joinTenantNames(); err != nil {
		return nil, false, err
	}
	return s.rows, complete, nil
}
