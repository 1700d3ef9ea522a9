package health

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Counters are the six counter fields of one ordinal.
type Counters [format.NumFields]int64

// Get returns field f (0 for an unknown field).
func (c *Counters) Get(f format.Field) int64 {
	if !f.Valid() {
		return 0
	}
	return c[f-1]
}

func (c *Counters) add(f format.Field, v int64) { c[f-1] += v }

func (c *Counters) addAll(o *Counters) {
	for i := range c {
		c[i] += o[i]
	}
}

// MarshalJSON writes the fields by name: {"pending": 1, ...}.
func (c Counters) MarshalJSON() ([]byte, error) {
	m := make(map[string]int64, format.NumFields)
	for _, f := range format.Fields {
		m[format.FieldNames[f]] = c.Get(f)
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Counters) UnmarshalJSON(b []byte) error {
	var m map[string]int64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*c = Counters{}
	for name, v := range m {
		f, ok := format.FieldByName(name)
		if !ok {
			return fmt.Errorf("verify: unknown counter field %q", name)
		}
		c[f-1] = v
	}
	return nil
}

func (c Counters) String() string {
	s := ""
	for i, f := range format.Fields {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s=%d", format.FieldNames[f], c.Get(f))
	}
	return s
}

// FoldOptions says what Fold folds.
type FoldOptions struct {
	// Tenant limits the fold to one tenant, resolved (tenant.Resolve); the
	// zero Tenant folds every tenant and the aggregate (ordinal 0).
	Tenant format.Tenant
	// Progress, if set, counts the keys read (as VerifyOptions.Progress).
	Progress reporting.Reporter

	// sizes, for tests, bounds the batches, chunks and passes (nil: tunedSizes).
	sizes *sizes
}

// Folded is a fold of a format 3 store at one snapshot: for every ordinal,
// the counters its rows add up to next to the counters the store holds.
type Folded struct {
	Format uint32 `json:"format"`
	// Keys is the number of keys read, sentinels included.
	Keys int64 `json:"keys"`
	// Ords is sorted by ordinal. Without a tenant it starts with ordinal 0,
	// the aggregate, and holds every ordinal that has a t row, a row or a
	// counter.
	Ords []OrdFold `json:"ords"`
}

// OrdFold is one ordinal's folded and stored counters. For ordinal 0,
// Stored sums the unsharded aggregate and its shards, and Folded counts
// every row of the store, including rows no tenant can be named for (an x
// value without its ord).
type OrdFold struct {
	Tenant TenantRef `json:"tenant"`
	Folded Counters  `json:"folded"`
	Stored Counters  `json:"stored"`
}

// Ord returns the fold of one ordinal, nil if the fold met nothing of it.
func (f *Folded) Ord(ord uint32) *OrdFold {
	i, ok := slices.BinarySearchFunc(f.Ords, ord, func(o OrdFold, ord uint32) int { return vfCmpU32(o.Tenant.Ord, ord) })
	if !ok {
		return nil
	}
	return &f.Ords[i]
}

// Mismatches lists every counter that differs from its fold, in ordinal and
// field order.
func (f *Folded) Mismatches() []CounterMismatch {
	var out []CounterMismatch
	for i := range f.Ords {
		o := &f.Ords[i]
		for _, fl := range format.Fields {
			if o.Folded.Get(fl) != o.Stored.Get(fl) {
				out = append(out, counterMismatch(o.Tenant, fl, o.Stored.Get(fl), o.Folded.Get(fl)))
			}
		}
	}
	return out
}

func counterMismatch(t TenantRef, f format.Field, stored, folded int64) CounterMismatch {
	return CounterMismatch{
		Tenant: t, Field: format.FieldNames[f], Stored: stored, Folded: folded, Delta: folded - stored,
		Key: keyRef(format.CFCounters, format.CounterKeyBytes(t.Ord, f)),
	}
}

// ErrNoCounters: the store is format 2, which has no counters to fold.
var ErrNoCounters = errors.New("counters do not exist before format 3")

// Fold folds the families the counters count (due, inflight, dead with its
// delivery rows' sizes, archive) and reads the counters, all at one
// snapshot. It checks no other invariant (Verify does); it fails on a store
// that is not format 3, is mid-migration, or cannot be read to the end of a
// family (errors.Is rocks.ErrCorrupt: a missing sentinel, a merge that
// fails on a bad operand).
func Fold(ctx context.Context, st *rocks.Store, o FoldOptions) (*Folded, error) {
	if err := refuseMigrating(st); err != nil {
		return nil, err
	}
	if st.Format != format.Format3 {
		return nil, fmt.Errorf("verify: %s is format %d: %w", st.Dir, st.Format, ErrNoCounters)
	}
	e, err := newFoldEngine(ctx, st, false, o.Tenant, o.Progress, o.sizes)
	if err != nil {
		return nil, err
	}
	defer e.close()
	if err := e.run(); err != nil {
		return nil, err
	}
	if len(e.rep.Corruption) > 0 {
		return nil, e.corruptErr()
	}
	return e.folded()
}

// refuseMigrating stops a fold or a verify on a store the 2 -> 3 migration
// has not finished: its rows are half moved, and the contract forbids
// reporting them as facts.
func refuseMigrating(st *rocks.Store) error {
	if !st.Migrating {
		return nil
	}
	return fmt.Errorf("%w: %s holds m:migrating:3, so its rows are half moved between the format 2 and the format 3 families; "+
		"verify refuses to report them as facts: finish the migration first (ankusa-store migrate)", rocks.ErrMidMigration, st.Dir)
}
