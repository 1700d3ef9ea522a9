package sortjoin

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Reads is where a walk reads the rows its dead rows point at, by key, a page
// at a time: the store itself (StoreReads), a Plan, or a Join. vals[i] and
// found[i] answer keys[i]; the values stay valid until the page that asked
// for them is done.
type Reads interface {
	Get(cf string, keys [][]byte) (vals [][]byte, found []bool, err error)
	// Plans is true for reads that only record the keys asked for and find
	// nothing (a Plan): a walk then fills nothing in from them, since every
	// row would only be told what it lacks.
	Plans() bool
}

// StoreReads reads by multi-get. A page a person looks at fills the block
// cache (its rows are read again by the next look); a walk that reads each
// delivery row and hook once (Once) does not, but a tenant's name is read
// again and again.
type StoreReads struct {
	DB   *rocks.DB
	Once bool
}

// Get reads keys of cf by one multi-get.
func (r StoreReads) Get(cf string, keys [][]byte) ([][]byte, []bool, error) {
	return r.DB.MultiGetOpts(cf, keys, rocks.ReadOpts{FillCache: !r.Once || cf == format.CFTenants})
}

// Plans is false: the store finds what it holds.
func (StoreReads) Plans() bool { return false }

// Walk runs a caller's pages once over reads, in the order its rows are
// handed on, and tells page, after each page's reads, the seqs of its rows
// (the seqs of their hooks). Each run must ask for the same keys in the
// same order: the third pass is served in the plan's order.
type Walk func(ctx context.Context, reads Reads, page func(seqs []uint64) error) error

// The phases Start reports (Options.Progress).
const (
	PhasePlan   = "plan"
	PhaseGather = "gather"
)

// Options say how a walk is joined.
type Options struct {
	// Always joins whatever the walk's size and order; otherwise a walk too
	// small to gain, or one whose rows lie in their hooks' order, is read by
	// key.
	Always bool
	// Hooks: the caller reads each row's hook too (format.HookKey of its
	// seq), after the page's walk, so the plan records them.
	Hooks bool
	// Who names the walk in a refusal of the space check ("the export").
	Who string
	// Progress hears PhasePlan and PhaseGather.
	Progress reporting.Reporter
	// Sizes; the zero value is DefaultSizes.
	Sizes Sizes
}

// Start plans and gathers the sorted join of walk's lookups in db. It
// returns nil when the rows should be read by key: with why set when the
// join could not be made ($TMPDIR cannot be used, or its file system has no
// room: the caller says so), nil when the walk is too small or too ordered
// to gain. Close the join.
func Start(ctx context.Context, db *rocks.DB, walk Walk, opt Options) (j *Join, why error, err error) {
	sz := opt.Sizes.orDefault()
	rep := reporting.Or(opt.Progress)
	rep.Phase(PhasePlan)
	plan := newPlan(sz)
	defer plan.Close()
	err = walk(ctx, plan, func(seqs []uint64) error {
		if opt.Hooks {
			if _, _, err := plan.Get(format.CFHooks, hookKeys(seqs)); err != nil {
				return err
			}
		}
		plan.sweep(seqs)
		if !opt.Always && plan.pages == sz.LocalPages && plan.local() {
			return errLocal
		}
		return nil
	})
	if err == nil {
		err = plan.Finish()
	}
	var spillErr *SpillError
	switch {
	case errors.Is(err, errLocal):
		return nil, nil, nil
	case errors.As(err, &spillErr):
		return nil, err, nil
	case err != nil:
		return nil, nil, err
	case !opt.Always && plan.most() < sz.JoinMin:
		return nil, nil, nil
	}
	needed, err := plan.BytesNeeded(db)
	if err != nil {
		return nil, nil, err
	}
	if err := diskspace.Check(opt.Who+"'s sorted join", os.TempDir(), needed); err != nil {
		return nil, err, nil
	}
	rep.Phase(PhaseGather)
	j, err = plan.Gather(ctx, db)
	if errors.As(err, &spillErr) {
		return nil, err, nil
	}
	return j, nil, err
}

// hookKeys are the keys of the hooks of seqs, in their order.
func hookKeys(seqs []uint64) [][]byte {
	keys := make([][]byte, len(seqs))
	for i, s := range seqs {
		keys[i] = format.HookKey{Seq: s}.Encode()
	}
	return keys
}

// errMoved: the keys a walk asked for are not those its plan recorded.
var errMoved = errors.New("sortjoin: the dead letters changed while they were read; read them again")

// SpillError is a file of the join that could not be made or written: the
// caller reads by key instead.
type SpillError struct{ err error }

func (e *SpillError) Error() string {
	return fmt.Sprintf("the sorted join could not use the temporary directory %s: %v", os.TempDir(), e.err)
}
func (e *SpillError) Unwrap() error { return e.err }

// Join serves a walk's lookups from the values gathered for it: the third pass.
type Join struct {
	file    *spillFile
	readers map[string]*joinReader
	db      *rocks.DB
	// byKey is why the join's file could take no more (a split of a bucket
	// in the third pass, on a file system that filled up), after which every
	// lookup is read by key from db: the walk's rows are already on their
	// way, and a healthy store is no reason to stop them.
	byKey error
}

// Close lets the join's file go.
func (j *Join) Close() { j.file.close() }

// Plans is false: the join finds what the store held.
func (*Join) Plans() bool { return false }

// ByKey is why the join gave way to reads by key during the third pass, nil
// while it has not: the caller says so once the walk is over.
func (j *Join) ByKey() error { return j.byKey }

// Get answers keys of cf from the values gathered, in the order the plan
// recorded them.
func (j *Join) Get(cf string, keys [][]byte) ([][]byte, []bool, error) {
	if j.byKey != nil {
		return StoreReads{DB: j.db, Once: true}.Get(cf, keys)
	}
	r := j.readers[cf]
	if r == nil {
		return nil, nil, fmt.Errorf("sortjoin: the join has no %s", cf)
	}
	vals, found := make([][]byte, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		rec, err := r.at(r.next)
		var spillErr *SpillError
		if errors.As(err, &spillErr) {
			j.byKey = err
			return j.Get(cf, keys)
		}
		if err != nil {
			return nil, nil, err
		}
		r.next++
		if string(rec.key) != string(k) {
			return nil, nil, errMoved
		}
		vals[i], found[i] = rec.val, rec.found
	}
	return vals, found, nil
}
