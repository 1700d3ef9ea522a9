package inspect

import (
	"context"
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenantjoin"
)

// StatusSchema is the version of Status's JSON encoding; it changes only
// when a field is renamed or removed or changes meaning.
const StatusSchema = 1

// StatusOptions says what StoreStatus reads.
type StatusOptions struct {
	// Exact counts the keys of every column family by reading them all
	// (O(rows)); without it the counts are RocksDB's estimates.
	Exact bool
	// TenantsMax is the node's tenants.max, which the tenant count is held against.
	TenantsMax uint32
	Now        time.Time
}

// Status is what a store is, as far as RocksDB's own bookkeeping and a
// constant number of point reads can tell: the first thing to look at.
type Status struct {
	Schema int    `json:"schema"`
	Format uint32 `json:"format"`
	// State is "format 2", "format 3" or "mid-migration": words for people.
	State string `json:"state" jsondoc:"deprecated: prose; use state_id; removed in a later release"`
	// StateID is the same as an enum, for scripts.
	StateID  string         `json:"state_id" jsondoc:"one of format_2, format_3, mid_migration"`
	RocksDB  StatusRocksDB  `json:"rocksdb"`
	Families []StatusFamily `json:"families"`
	Totals   StatusTotals   `json:"totals"`
	// Tenants, Aggregate and OldestDue are read on format 3 (Tenants also
	// mid-migration: the ordinals handed out so far).
	Tenants   *StatusTenants  `json:"tenants"`
	Aggregate *TenantCounters `json:"aggregate"`
	// AggregateErrors names aggregate counters whose merge failed.
	AggregateErrors []string         `json:"aggregate_errors,omitempty"`
	OldestDue       *StatusOldestDue `json:"oldest_due"`
	Notes           []ViewNote       `json:"notes"`
}

// StatusRocksDB is which RocksDB wrote the store's files, against the one
// this tool is built with.
type StatusRocksDB struct {
	// Tool is the RocksDB this binary is linked with.
	Tool string `json:"tool"`
	rocks.FileVersions
	// Newer: the store's newest OPTIONS file names a RocksDB newer than Tool. It reads
	// the store all the same while every table is of a format_version Tool reads (a store
	// holding one it does not read is refused before it opens).
	Newer bool `json:"newer"`
	// Writes is how a command that writes into this store (migrate, repair) writes its
	// tables, and why: the write rule of docs/format.md.
	Writes string `json:"writes"`
	// WrittenBy is which erlang-rocksdb releases could have written the store, from the
	// RocksDB its OPTIONS file names and the format_version of its tables.
	WrittenBy rocks.WrittenBy `json:"written_by"`
}

// StatusFamily is one column family.
type StatusFamily struct {
	rocks.FamilyStats
	// ExactKeys is the number of keys read with --exact, null without it.
	ExactKeys *uint64 `json:"exact_keys" jsondoc:"null without --exact"`
}

// StatusTotals sums the families, plus the write-ahead log.
type StatusTotals struct {
	EstimatedKeys uint64 `json:"estimated_keys"`
	SSTBytes      uint64 `json:"sst_bytes"`
	MemtableBytes uint64 `json:"memtable_bytes"`
	WALBytes      uint64 `json:"wal_bytes"`
	WALFiles      int    `json:"wal_files"`
	SSTFiles      int    `json:"sst_files"`
}

// StatusTenants is m:next_ord - 1 (every ordinal ever handed out, erased
// tenants included) against the cap.
type StatusTenants struct {
	Count   uint32 `json:"count"`
	NextOrd uint32 `json:"next_ord"`
	Max     uint32 `json:"max"`
	OverCap uint32 `json:"over_cap"`
}

// StatusOldestDue is the node's oldest due row, as the node's
// oldest_due_age gauge finds it: the first active marker, verified against
// its tenant's due rows in that second.
type StatusOldestDue struct {
	Ord    uint32 `json:"ord"`
	Tenant string `json:"tenant"`
	// At is the row's due time; when Verified is false (more than
	// StatusMaxStale stale markers), the start of the marker's second.
	At       time.Time `json:"at"`
	AgeMS    int64     `json:"age_ms"`
	Verified bool      `json:"verified"`
	// StaleSkipped counts markers skipped because no due row stood behind
	// them (allowed: the dispatcher removes them on its next tick).
	StaleSkipped int `json:"stale_skipped"`
}

// StatusMaxStale is how many stale markers the oldest-due read skips before
// it reports a marker's second unverified (the design record's rule).
const StatusMaxStale = tenantjoin.MaxStale

// StoreStatus reads the status of st. On format 3 it reads a constant number
// of keys whatever the store holds (m:next_ord, the aggregate's six fields
// and their shards, up to StatusMaxStale+1 markers and as many one-second due
// ranges): no family is folded.
func StoreStatus(ctx context.Context, st *rocks.Store, o StatusOptions) (*Status, error) {
	s := &Status{Schema: StatusSchema, Format: st.Format, Families: []StatusFamily{}, Notes: []ViewNote{}}
	var notes viewNotes
	switch {
	case st.Migrating:
		s.State, s.StateID = "mid-migration", "mid_migration"
	default:
		s.State, s.StateID = fmt.Sprintf("format %d", st.Format), fmt.Sprintf("format_%d", st.Format)
	}
	fv, err := rocks.ReadFileVersions(st.Dir)
	if err != nil {
		return nil, err
	}
	s.RocksDB = StatusRocksDB{Tool: rocks.LibraryVersion(), FileVersions: *fv, WrittenBy: fv.WrittenBy()}
	if msg := rocks.NewerRocksDB(fv, s.RocksDB.Tool); msg != "" {
		s.RocksDB.Newer = true
		notes.note("%s: every table is of a format_version it reads", msg)
	}
	rule, err := rocks.ChooseWriteRule(st.Dir)
	if err != nil {
		return nil, err
	}
	s.RocksDB.Writes = rule.String()
	for _, p := range fv.Problems {
		notes.warn("store file: %s", p)
	}

	fams, err := st.FamilyStats()
	if err != nil {
		return nil, err
	}
	for _, f := range fams {
		sf := StatusFamily{FamilyStats: f}
		if o.Exact {
			n, err := countKeys(ctx, st.DB, f.Name)
			if err != nil {
				return nil, err
			}
			sf.ExactKeys = &n
		}
		s.Families = append(s.Families, sf)
		s.Totals.EstimatedKeys += f.EstimatedKeys
		s.Totals.SSTBytes += f.SSTBytes
		s.Totals.MemtableBytes += f.MemtableBytes
	}
	s.Totals.WALBytes, s.Totals.WALFiles, s.Totals.SSTFiles = fv.WALBytes, fv.WALFiles, fv.SSTFiles

	if st.Format == format.Format3 || st.Migrating {
		if s.Tenants, err = statusTenants(st.DB, o.TenantsMax); err != nil {
			return nil, err
		}
		if s.Tenants.OverCap > 0 {
			notes.warn("%d tenants, %d over --tenants-max %d: the node refuses new tenants (tenant_limit)", s.Tenants.Count, s.Tenants.OverCap, o.TenantsMax)
		}
	}
	if st.Format == format.Format3 && !st.Migrating {
		agg, aggErrs, err := tenantCountersByGet(st.DB, nil)
		if err != nil {
			return nil, err
		}
		s.Aggregate, s.AggregateErrors = agg, aggErrs
		if len(aggErrs) > 0 {
			notes.warn("the node aggregate (ordinal 0) could not be read in full (run counters verify)")
		}
		if s.OldestDue, err = statusOldestDue(st.DB, o.Now); err != nil {
			return nil, err
		}
	}
	s.Notes = append(s.Notes, notes...)
	return s, nil
}

func countKeys(ctx context.Context, db *rocks.DB, cf string) (uint64, error) {
	var n uint64
	err := db.Scan(cf, nil, nil, rocks.ReadOpts{}, func(_, _ []byte) error {
		n++
		if n%65536 == 0 {
			return ctx.Err()
		}
		return nil
	})
	return n, err
}

func statusTenants(db *rocks.DB, max uint32) (*StatusTenants, error) {
	v, ok, err := db.Get(format.CFDefault, []byte(format.KeyNextOrd))
	if err != nil {
		return nil, err
	}
	t := &StatusTenants{Max: max}
	if !ok {
		return nil, fmt.Errorf("%w: %s: %s is missing", rocks.ErrCorrupt, db.Dir(), format.KeyNextOrd)
	}
	next, err := format.DecodeU32(v)
	if err != nil || next < format.FirstOrd {
		return nil, fmt.Errorf("%w: %s: %s is %x, not an ordinal of at least %d", rocks.ErrCorrupt, db.Dir(), format.KeyNextOrd, v, format.FirstOrd)
	}
	t.NextOrd, t.Count = next, next-format.FirstOrd
	if max > 0 && t.Count > max {
		t.OverCap = t.Count - max
	}
	return t, nil
}

// statusOldestDue reads the first markers of the active index (at most
// StatusMaxStale+1) and verifies each against its tenant's due rows in the
// marker's second, as the node's gauge does. nil: no marker, nothing due.
func statusOldestDue(db *rocks.DB, now time.Time) (*StatusOldestDue, error) {
	var markers []format.ActiveKey
	fam := format.FamActive
	err := db.Scan(fam.CF, fam.Lo, fam.Hi, rocks.ReadOpts{}, func(k, _ []byte) error {
		if fam.IsSentinel(k) {
			return nil
		}
		m, err := format.DecodeActiveKey(k)
		if err != nil {
			return nil // a stray: counters verify reports it
		}
		markers = append(markers, m)
		if len(markers) > StatusMaxStale {
			return rocks.Stop
		}
		return nil
	})
	if err != nil || len(markers) == 0 {
		return nil, err
	}
	od := &StatusOldestDue{}
	for i, m := range markers {
		from := m.Bucket * format.BucketMillis
		at, found, err := tenantjoin.FirstDue(db, m.Ord, from, from+format.BucketMillis)
		if err != nil {
			return nil, err
		}
		if found || i == StatusMaxStale {
			od.Ord, od.Verified = m.Ord, found
			if !found {
				at = from
			}
			od.At = viewTime(at)
			od.AgeMS = now.UnixMilli() - int64(at)
			break
		}
		od.StaleSkipped++
	}
	if od.StaleSkipped == len(markers) {
		// Every marker there is was stale: nothing is due.
		return nil, nil
	}
	v, ok, err := db.Get(format.CFTenants, format.TenantByOrdKey{Ord: od.Ord}.Encode())
	if err != nil {
		return nil, err
	}
	switch {
	case !ok:
		od.Tenant = "(no t row)"
	case len(v) == 0:
		od.Tenant = "(erased)"
	default:
		od.Tenant = string(v)
	}
	return od, nil
}

// ReadAggregate reads the node aggregate (ordinal 0's six counters, shards
// summed) with point reads; errs names the counters whose merge failed.
func ReadAggregate(db *rocks.DB) (agg *TenantCounters, errs []string, err error) {
	return tenantCountersByGet(db, nil)
}
