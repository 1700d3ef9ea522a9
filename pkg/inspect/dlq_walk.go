package inspect

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// unscoped walks `x` newest first. On format 3 the tenant comes from the
// ordinal in each value; on format 2 from the hook, which is also how a
// format 2 --tenant listing filters.
func (s *dlqScan) unscoped(ctx context.Context, storeFormat uint32) error {
	if storeFormat == format.Format2 && s.hooks == nil {
		s.hooks = newHookTenants(s.db)
	}
	hooks := s.hooks
	type cand struct {
		k format.DeadKey
		v []byte
		// what the walk had read when it met k (shownScanned)
		scanned, strays int64
	}
	w := walk.Range{Reverse: true, First: s.firstChunk(), ChunkBytes: s.opt.sizes.chunkBytes}
	err := walk.FamilyWith(s.db, format.FamDead, s.upper(format.FamDead.Prefix), w, func(chunk []walk.Entry) (bool, error) {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		var cands []cand
		done := false
		for _, e := range chunk {
			s.page.Scanned++
			dk, err := format.DecodeDeadKey(e.K)
			if err != nil {
				s.strays++
				continue
			}
			keep, below := s.keep(dk)
			if below {
				done = true
				break
			}
			if keep {
				cands = append(cands, cand{dk, e.V, s.page.Scanned, s.strays})
			}
		}
		if hooks != nil {
			seqs := make([]uint64, len(cands))
			for i, c := range cands {
				seqs[i] = c.k.Seq
			}
			if err := hooks.resolve(seqs); err != nil {
				return true, err
			}
		}
		for _, c := range cands {
			row := dlqNewRow(c.k)
			dlqFillFromValue(&row, c.v, storeFormat, s.opt.Values)
			if hooks != nil {
				row.Tenant = hooks.tenant(c.k.Seq)
				if !s.opt.Tenant.IsZero() && row.Tenant != s.opt.Tenant.ID {
					continue
				}
			}
			s.keys = append(s.keys, c.k)
			s.rows = append(s.rows, row)
			s.took(c.scanned, c.strays)
			if s.full() {
				// The page read up to the key that proves a next one, and no
				// further: the rest of the chunk is the next page's.
				s.page.Scanned, s.strays = c.scanned, c.strays
				return true, nil
			}
		}
		return done, nil
	})
	if err != nil {
		return err
	}
	if hooks == nil {
		if err := s.joinTenantNames(); err != nil {
			return err
		}
	}
	return s.joinDeliveries()
}

// hookNotes says what a format 2 walk read hooks for, once the walk (of one
// page, or of every page of an export, which found found rows) is over.
func (s *dlqScan) hookNotes(found int64) {
	if s.hooks == nil {
		return
	}
	if !s.opt.Tenant.IsZero() {
		s.notes.note("format 2 store: dead rows carry no tenant ordinal, so --tenant read the hook of every dead row it passed (%d %s read)",
			s.hooks.read, words.Plural(s.hooks.read, "hook", "hooks"))
		if found == 0 {
			// Format 2 keeps no list of tenants: an unknown tenant and one
			// with nothing dead look the same.
			s.notes.note("no dead letters of tenant %q in this range", s.opt.Tenant.ID)
		}
	}
	s.hooks.defaultedNote(&s.notes)
}

// dlqFillFromValue sets source id, hook id and (format 3) the ordinal from an
// `x` value, read as vr reads it.
func dlqFillFromValue(row *DLQRow, v []byte, storeFormat uint32, vr format.ValueReader) {
	dv, err := vr.DecodeDeadValue(v)
	if err != nil {
		row.Problems = append(row.Problems, "dead row value does not decode: "+err.Error())
		return
	}
	row.SourceID, row.HookID = string(dv.SourceID), string(dv.ID)
	switch {
	case dv.HasOrd && storeFormat == format.Format3:
		o := dv.Ord
		row.Ord = &o
	case storeFormat == format.Format3:
		row.Problems = append(row.Problems, "dead row value has no ordinal (a format 2 value left in a format 3 store)")
	case dv.HasOrd:
		row.Problems = append(row.Problems, fmt.Sprintf("dead row value carries ordinal %d in a format 2 store", dv.Ord))
	}
}

// joinTenantNames names the ordinals of the page's rows with one multi-get of
// their `t` rows.
func (s *dlqScan) joinTenantNames() error {
	n := s.pageLen()
	var ords []uint32
	for i := 0; i < n; i++ {
		if o := s.rows[i].Ord; o != nil {
			ords = append(ords, *o)
		}
	}
	slices.Sort(ords)
	ords = slices.Compact(ords)
	if len(ords) == 0 {
		return nil
	}
	keys := make([][]byte, len(ords))
	for i, o := range ords {
		keys[i] = format.TenantByOrdKey{Ord: o}.Encode()
	}
	vals, found, err := s.reads.Get(format.CFTenants, keys)
	if err != nil || s.reads.Plans() {
		return err
	}
	// One string a tenant, which its rows share: a copy a row was a page of
	// 4,096 copies of a tenant id that may be a MiB.
	names := make([]string, len(ords))
	for j := range ords {
		if found[j] {
			names[j] = string(vals[j])
		}
	}
	for i := 0; i < n; i++ {
		r := &s.rows[i]
		if r.Ord == nil {
			continue
		}
		j, _ := slices.BinarySearch(ords, *r.Ord)
		switch {
		case !found[j]:
			r.Problems = append(r.Problems, fmt.Sprintf("no tenant row for ordinal %d", *r.Ord))
		case len(vals[j]) == 0:
			r.Problems = append(r.Problems, fmt.Sprintf("tenant ordinal %d is erased", *r.Ord))
		default:
			r.Tenant = names[j]
		}
	}
	return nil
}

// scoped3 reads one tenant's dead letters on format 3: one reverse range of
// `X` under its ordinal, one multi-get of the `x` values. No hook is read.
func (s *dlqScan) scoped3(ctx context.Context) error {
	ord := s.opt.Tenant.Ord
	s.page.Ord = &ord
	prefix, end := format.FamDeadByTenant.TenantSpan(ord)
	hi := s.upper(prefix)
	if hi == nil {
		hi = end
	}
	// The range is exactly the tenant's keys (from --since on): the iterator
	// reads nothing of other tenants, so a page costs the same however many
	// dead rows the others have. An iterator error is still an error (the
	// binding reports its status); only a fold needs the sentinels as proof.
	lo := prefix
	if !s.opt.Since.IsZero() {
		lo = binary.BigEndian.AppendUint64(bytes.Clone(prefix), uint64(s.opt.Since.UnixMilli()))
	}
	_, err := walk.Chunks(s.db, walk.Range{CF: format.CFIndex, Lo: lo, Hi: hi, Reverse: true, First: s.firstChunk(), ChunkBytes: s.opt.sizes.chunkBytes}, func(chunk []walk.Entry) (bool, error) {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		for _, e := range chunk {
			s.page.Scanned++
			if e.Err != nil {
				return true, e.Err
			}
			k, err := format.DecodeDeadByTenantKey(e.K)
			if err != nil {
				s.strays++
				continue
			}
			dk := k.DeadKey()
			if keep, _ := s.keep(dk); !keep {
				continue
			}
			row := dlqNewRow(dk)
			row.Tenant = s.opt.Tenant.ID
			o := ord
			row.Ord = &o
			s.keys = append(s.keys, dk)
			s.rows = append(s.rows, row)
			s.took(s.page.Scanned, s.strays)
			if s.full() {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	if err := s.joinDeadValues(ord); err != nil {
		return err
	}
	return s.joinDeliveries()
}

// joinDeadValues reads the `x` rows behind the page's `X` keys.
func (s *dlqScan) joinDeadValues(ord uint32) error {
	n := s.pageLen()
	if n == 0 {
		return nil
	}
	keys := make([][]byte, n)
	for i := 0; i < n; i++ {
		keys[i] = s.keys[i].Encode()
	}
	vals, found, err := s.db.MultiGet(format.CFIndex, keys)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		r := &s.rows[i]
		if !found[i] {
			r.Problems = append(r.Problems, "no dead row (x) behind this dead-by-tenant key")
			continue
		}
		dlqFillFromValue(r, vals[i], format.Format3, s.opt.Values)
		if r.Ord == nil {
			o := ord
			r.Ord = &o
		} else if *r.Ord != ord {
			r.Problems = append(r.Problems, fmt.Sprintf("dead row carries ordinal %d, its dead-by-tenant key %d", *r.Ord, ord))
			o := ord
			r.Ord = &o
		}
	}
	return nil
}
