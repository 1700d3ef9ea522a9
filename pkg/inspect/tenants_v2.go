package inspect

import (
	"context"
	"strings"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// A format 2 store keeps no ordinals and no counters: a hook's tenant lives
// only in its envelope. Listing tenants therefore folds the due, inflight,
// dead and archive families and reads the hook behind every row (and the
// delivery row behind every dead row, for its size): a pass over the whole
// backlog, which the listing says it cost.

// tenantAcc accumulates one tenant of the format 2 pass.
type tenantAcc struct {
	row    TenantRow
	oldest uint64
	hasDue bool
}

func listTenants2(ctx context.Context, db *rocks.DB, opt TenantsOptions) (*TenantList, error) {
	var notes viewNotes
	notes.note("format 2 store: no ordinals or counters, so this read the whole backlog and the hook behind every row (a pass over the backlog)")
	hooks := newHookTenants(db)
	accs := map[string]*tenantAcc{}
	acc := func(tenant string) *tenantAcc {
		a := accs[tenant]
		if a == nil {
			a = &tenantAcc{row: TenantRow{Tenant: tenant}}
			accs[tenant] = a
		}
		return a
	}
	backlog := &Backlog2{}
	var strays, badValues int64
	nowMS := uint64(max(opt.Now.UnixMilli(), 0))

	type fold struct {
		fam format.Family
		row func(k, v []byte) (seq uint64, apply func(a *tenantAcc), ok bool)
	}
	folds := []fold{
		{format.FamDueV2, func(k, v []byte) (uint64, func(*tenantAcc), bool) {
			dk, err := format.DecodeDueV2Key(k)
			if err != nil {
				strays++
				return 0, nil, false
			}
			size, err := format.DecodeSize(v)
			if err != nil {
				badValues++
			}
			return dk.Seq, func(a *tenantAcc) {
				// As the migration files a row it moves: scheduled when its
				// at lies after the moment of the reading.
				if dk.At > nowMS {
					a.row.Scheduled++
				} else {
					a.row.Pending++
				}
				a.row.Bytes += int64(size)
				if !a.hasDue || dk.At < a.oldest {
					a.oldest, a.hasDue = dk.At, true
				}
			}, true
		}},
		{format.FamInflightV2, func(k, v []byte) (uint64, func(*tenantAcc), bool) {
			fk, err := format.DecodeInflightV2Key(k)
			if err != nil {
				strays++
				return 0, nil, false
			}
			size, err := format.DecodeSize(v)
			if err != nil {
				badValues++
			}
			return fk.Seq, func(a *tenantAcc) { a.row.Inflight++; a.row.Bytes += int64(size) }, true
		}},
		{format.FamArchive, func(k, _ []byte) (uint64, func(*tenantAcc), bool) {
			ak, err := format.DecodeArchiveKey(k)
			if err != nil {
				strays++
				return 0, nil, false
			}
			return ak.Seq, func(a *tenantAcc) { a.row.ArchivePending++ }, true
		}},
	}
	for _, f := range folds {
		err := walk.Family(db, f.fam, nil, false, walk.MaxChunk, func(chunk []walk.Entry) (bool, error) {
			if err := ctx.Err(); err != nil {
				return true, err
			}
			seqs := make([]uint64, 0, len(chunk))
			applies := make([]func(*tenantAcc), 0, len(chunk))
			for _, e := range chunk {
				seq, apply, ok := f.row(e.K, e.V)
				if ok {
					seqs = append(seqs, seq)
					applies = append(applies, apply)
				}
			}
			if err := hooks.resolve(seqs); err != nil {
				return true, err
			}
			for i, s := range seqs {
				applies[i](acc(hooks.tenant(s)))
			}
			backlog.RowsRead += int64(len(chunk))
			if opt.Progress != nil {
				opt.Progress.Add(int64(len(chunk)))
			}
			return false, nil
		})
		if err != nil {
			return nil, err
		}
	}
	// Dead rows also need their delivery row, for the size the bytes counter
	// would hold.
	err := walk.Family(db, format.FamDead, nil, false, walk.MaxChunk, func(chunk []walk.Entry) (bool, error) {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		var keys []format.DeadKey
		for _, e := range chunk {
			dk, err := format.DecodeDeadKey(e.K)
			if err != nil {
				strays++
				continue
			}
			keys = append(keys, dk)
		}
		seqs := make([]uint64, len(keys))
		dkeys := make([][]byte, len(keys))
		for i, k := range keys {
			seqs[i] = k.Seq
			dkeys[i] = format.DeliveryKey{Seq: k.Seq, Sink: k.Sink}.Encode()
		}
		if err := hooks.resolve(seqs); err != nil {
			return true, err
		}
		vals, found, err := db.MultiGet(format.CFDeliveries, dkeys)
		if err != nil {
			return true, err
		}
		for i, k := range keys {
			a := acc(hooks.tenant(k.Seq))
			a.row.Dead++
			if !found[i] {
				backlog.MissingDeliveries++
				continue
			}
			d, err := opt.Values.DecodeDelivery(vals[i])
			if err != nil {
				backlog.MissingDeliveries++
				continue
			}
			a.row.Bytes += int64(d.Size)
		}
		backlog.RowsRead += int64(len(chunk))
		if opt.Progress != nil {
			opt.Progress.Add(int64(len(chunk)))
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}

	backlog.HooksRead = hooks.read
	if len(hooks.defaulted) > 0 {
		backlog.Defaulted = hooks.defaulted
	}
	hooks.defaultedNote(&notes)
	if backlog.MissingDeliveries > 0 {
		notes.warn("%d dead %s no readable delivery row and %s 0 bytes", backlog.MissingDeliveries,
			words.Plural(backlog.MissingDeliveries, "row has", "rows have"), words.Plural(backlog.MissingDeliveries, "counts", "count"))
	}
	if strays > 0 {
		notes.warn("%d index %s did not decode as %s family's key and %s skipped", strays,
			words.Plural(strays, "key", "keys"), words.Plural(strays, "its", "their"), words.Plural(strays, "was", "were"))
	}
	if badValues > 0 {
		notes.warn("%d due or inflight %s a value that is not <<size::32>> and %s 0 bytes", badValues,
			words.Plural(badValues, "row has", "rows have"), words.Plural(badValues, "counts", "count"))
	}

	rows := make([]TenantRow, 0, len(accs))
	for _, a := range accs {
		if opt.Prefix != "" && !strings.HasPrefix(a.row.Tenant, opt.Prefix) {
			continue
		}
		if a.hasDue {
			a.row.setOldestDue(a.oldest, opt.Now)
		}
		rows = append(rows, a.row)
	}
	l := &TenantList{Backlog: backlog, Notes: notes}
	l.Tenants, l.Matched = tenantSelect(rows, opt)
	return l, nil
}
