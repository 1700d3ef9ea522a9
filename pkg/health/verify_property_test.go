package health

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The design record's counter cases, over the fixture's transition model
// (the node's op builders): counters equal a fold after any sequence of
// transitions, and concurrent writers do not lose counts. Each run is also
// checked against a model of the queue kept here, so that a fold and
// counters that were wrong the same way would still fail.

// vtModel is the queue as the test believes it to be.
type vtModel struct {
	refs  []fixture.Ref // live deliveries
	hooks []fixture.Hook
	obls  []fixture.Obligation
	ords  map[uint32]bool
}

// expect is what the fold of each ordinal must be, the aggregate included.
func (m *vtModel) expect() map[uint32]Counters {
	out := map[uint32]Counters{0: {}}
	add := func(ord uint32, f format.Field, v int64) {
		c := out[ord]
		c.add(f, v)
		out[ord] = c
		a := out[0]
		a.add(f, v)
		out[0] = a
	}
	for ord := range m.ords {
		if _, ok := out[ord]; !ok {
			out[ord] = Counters{}
		}
	}
	for _, r := range m.refs {
		switch r.Status {
		case fixture.StatusDue:
			add(r.Ord, format.DueValue{Kind: r.Kind}.Field(), 1)
		case fixture.StatusInflight:
			add(r.Ord, format.FieldInflight, 1)
		case fixture.StatusDead:
			add(r.Ord, format.FieldDead, 1)
		}
		add(r.Ord, format.FieldBytes, int64(r.Size))
	}
	for _, o := range m.obls {
		add(o.Ord, format.FieldArchivePending, 1)
	}
	return out
}

// vtCheckStore verifies st (healthy, with nothing leaked or orphaned) and
// compares its fold with the model.
func vtCheckStore(t interface {
	Fatalf(string, ...any)
}, st *rocks.Store, m *vtModel) {
	rep, err := Verify(context.Background(), st, VerifyOptions{})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	c := rep.Counts
	if !rep.Healthy || *c.LeakedDeliveryRows != 0 || *c.IndexRowsWithoutDelivery != 0 || *c.IndexRowsWithoutHook != 0 {
		t.Fatalf("verify: %s %+v\n%s", rep.Summary(), c, vtDump(rep))
	}
	f, err := Fold(context.Background(), st, FoldOptions{})
	if err != nil {
		t.Fatalf("fold: %v", err)
	}
	want := m.expect()
	for ord, w := range want {
		o := f.Ord(ord)
		var got Counters
		if o != nil {
			got = o.Folded
		}
		if got != w {
			t.Fatalf("ordinal %d: folded %v, the model says %v", ord, got, w)
		}
	}
	for _, o := range f.Ords {
		if _, ok := want[o.Tenant.Ord]; !ok && o.Folded != (Counters{}) {
			t.Fatalf("ordinal %d folds to %v, unknown to the model", o.Tenant.Ord, o.Folded)
		}
	}
}

func vtNewQueue(t interface {
	Fatalf(string, ...any)
}, dir string) (*rocks.Store, *fixture.Queue) {
	st, err := fixture.CreateStore(dir, format.Format3, rocks.Tuning{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	q, err := fixture.NewQueue(st.DB, format.Format3, fixture.DefaultNow)
	if err != nil {
		t.Fatalf("queue: %v", err)
	}
	return st.Store, q
}

func TestCountersEqualFoldAfterAnyTransitions(t *testing.T) {
	tenants := []*string{nil, ptr("acme"), ptr("globex"), ptr("zürich-東京-🚀")}
	// One store for every run, emptied in between: opening a RocksDB store
	// costs a hundred times a run's transitions. An emptied store is a new
	// one to the queue and to verify (and exercises range tombstones).
	st, _ := vtNewQueue(t, t.TempDir())
	defer st.Close()
	rapid.Check(t, func(rt *rapid.T) {
		q := vtEmpty(rt, st)
		m := &vtModel{ords: map[uint32]bool{}}
		now := uint64(fixture.DefaultNow.UnixMilli())
		pick := func(label string, s ...fixture.Status) (int, bool) {
			var idx []int
			for i, r := range m.refs {
				if slices.Contains(s, r.Status) {
					idx = append(idx, i)
				}
			}
			if len(idx) == 0 {
				return 0, false
			}
			return idx[rapid.IntRange(0, len(idx)-1).Draw(rt, label)], true
		}
		must := func(what string, err error) {
			if err != nil {
				rt.Fatalf("%s: %v", what, err)
			}
		}
		steps := rapid.IntRange(1, 80).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			now += uint64(rapid.IntRange(0, 3000).Draw(rt, "tick"))
			q.SetNow(time.UnixMilli(int64(now)))
			switch op := rapid.IntRange(0, 11).Draw(rt, "op"); op {
			case 0, 1: // ingest
				tn := tenants[rapid.IntRange(0, len(tenants)-1).Draw(rt, "tenant")]
				sinks := rapid.SliceOfNDistinct(rapid.Uint16Range(1, 4), 1, 3, func(s uint16) uint16 { return s }).Draw(rt, "sinks")
				slices.Sort(sinks)
				h, err := q.Ingest(tn, sinks, uint32(rapid.IntRange(0, 5000).Draw(rt, "size")), rapid.Bool().Draw(rt, "archive"))
				must("ingest", err)
				m.hooks = append(m.hooks, h)
				m.refs = append(m.refs, h.Refs...)
				m.ords[h.Ord] = true
				if h.Archive {
					m.obls = append(m.obls, h.Obligate)
				}
			case 2: // claim
				if j, ok := pick("claim", fixture.StatusDue); ok {
					r, err := q.Claim(m.refs[j])
					must("claim", err)
					m.refs[j] = r
				}
			case 3: // retry
				if j, ok := pick("retry", fixture.StatusInflight); ok {
					r, err := q.Retry(m.refs[j], now+uint64(rapid.IntRange(0, 60_000).Draw(rt, "backoff")), []byte("503"))
					must("retry", err)
					m.refs[j] = r
				}
			case 4: // deliver
				if j, ok := pick("deliver", fixture.StatusInflight); ok {
					must("deliver", q.Deliver(m.refs[j]))
					m.refs = slices.Delete(m.refs, j, j+1)
				}
			case 5: // dead-letter
				if j, ok := pick("dead-letter", fixture.StatusInflight, fixture.StatusDue); ok {
					r, err := q.DeadLetter(m.refs[j], now, []byte("gave up"))
					must("dead-letter", err)
					m.refs[j] = r
				}
			case 6: // revive
				if j, ok := pick("revive", fixture.StatusDead); ok {
					r, err := q.Revive(m.refs[j], now)
					must("revive", err)
					m.refs[j] = r
				}
			case 7: // recover
				moved, err := q.RecoverInflight()
				must("recover", err)
				for _, r := range moved {
					for j := range m.refs {
						if m.refs[j].Seq == r.Seq && m.refs[j].Sink == r.Sink {
							r.SourceID, r.ID = m.refs[j].SourceID, m.refs[j].ID
							m.refs[j] = r
						}
					}
				}
			case 8: // expand
				if len(m.hooks) > 0 {
					h := m.hooks[rapid.IntRange(0, len(m.hooks)-1).Draw(rt, "hook")]
					sink := uint16(100 + i)
					r, err := q.Expand(h, sink)
					must("expand", err)
					m.refs = append(m.refs, r)
				}
			case 9: // purge
				if j, ok := pick("purge", fixture.StatusDue, fixture.StatusDead); ok {
					must("purge", q.Purge(m.refs[j]))
					m.refs = slices.Delete(m.refs, j, j+1)
				}
			case 10, 11: // archive settle or drop
				if len(m.obls) > 0 {
					j := rapid.IntRange(0, len(m.obls)-1).Draw(rt, "obligation")
					if op == 10 {
						must("settle", q.ArchiveSettle(m.obls[j].Seq))
					} else {
						must("drop", q.ArchiveDrop(m.obls[j].Seq))
					}
					m.obls = slices.Delete(m.obls, j, j+1)
				}
			}
			if rapid.IntRange(0, 9).Draw(rt, "sweep") == 0 {
				_, err := q.SweepMarkers(now)
				must("sweep", err)
			}
		}
		vtCheckStore(rt, st, m)
	})
}

func ptr(s string) *string { return &s }

// vtEmpty deletes everything in a format 3 store, puts back what a new one
// holds, and returns a queue over it.
func vtEmpty(t interface {
	Fatalf(string, ...any)
}, st *rocks.Store) *fixture.Queue {
	b := rocks.NewBatch()
	end := bytes.Repeat([]byte{0xFF}, 64) // past every key of the contract
	for _, cf := range format.FamiliesV3 {
		b.DeleteRange(cf, nil, end)
	}
	b.Put(format.CFDefault, []byte(format.KeyFormat), format.EncodeU32(format.Format3))
	b.Put(format.CFDefault, []byte(format.KeyNextOrd), format.EncodeU32(format.FirstOrd))
	for _, f := range format.FamiliesOf(format.Format3) {
		b.Put(f.CF, f.Lo, nil)
		b.Put(f.CF, f.Hi, nil)
	}
	if err := st.Write(b, false); err != nil {
		t.Fatalf("empty: %v", err)
	}
	q, err := fixture.NewQueue(st.DB, format.Format3, fixture.DefaultNow)
	if err != nil {
		t.Fatalf("queue: %v", err)
	}
	return q
}

// Writers on one tenant, each through other op builders, commit at the same
// time; merges cannot race, so the counters are exact afterwards.
func TestConcurrentWritersDoNotLoseCounts(t *testing.T) {
	st, q := vtNewQueue(t, t.TempDir())
	defer st.Close()
	tenant := ptr("acme")
	const writers, each = 4, 60
	var (
		mu sync.Mutex
		m  = &vtModel{ords: map[uint32]bool{}}
		wg sync.WaitGroup
	)
	errs := make(chan error, writers+2)
	record := func(refs []fixture.Ref, obls []fixture.Obligation) {
		mu.Lock()
		defer mu.Unlock()
		m.refs = append(m.refs, refs...)
		m.obls = append(m.obls, obls...)
	}
	now := uint64(fixture.DefaultNow.UnixMilli())
	// Each writer ingests its own hooks and walks every delivery through a
	// different life: retried and delivered, dead-lettered and revived,
	// purged, left inflight.
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var refs []fixture.Ref
			var obls []fixture.Obligation
			for i := 0; i < each; i++ {
				h, err := q.Ingest(tenant, []uint16{1, 2}, uint32(100+w*10+i), i%3 == 0)
				if err != nil {
					errs <- err
					return
				}
				if h.Archive {
					obls = append(obls, h.Obligate)
				}
				for _, r := range h.Refs {
					r, err = vtLife(q, r, (w+i+int(r.Sink))%5, now)
					if err != nil {
						errs <- fmt.Errorf("writer %d: %w", w, err)
						return
					}
					if r.Status != 0 {
						refs = append(refs, r)
					}
				}
			}
			record(refs, obls)
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	m.ords[vtOrd(t, st, "acme")] = true
	vtCheckStore(t, st, m)
	f, err := Fold(context.Background(), st, FoldOptions{Tenant: vtTenant(t, st, "acme")})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Ords[0].Stored.Get(format.FieldBytes); got == 0 {
		t.Fatalf("no bytes counted: %v", f.Ords[0])
	}
}

// vtLife walks one delivery through one of five lives, each transition its
// own commit; the returned Ref has Status 0 when the delivery is gone.
func vtLife(q *fixture.Queue, r fixture.Ref, life int, now uint64) (fixture.Ref, error) {
	var err error
	step := func(f func() (fixture.Ref, error)) {
		if err == nil {
			r, err = f()
		}
	}
	claim := func() (fixture.Ref, error) { return q.Claim(r) }
	switch life {
	case 0: // retried, then delivered
		step(claim)
		step(func() (fixture.Ref, error) { return q.Retry(r, now+5000, []byte("timeout")) })
		step(claim)
		if err == nil {
			err = q.Deliver(r)
			r.Status = 0
		}
	case 1: // dead-lettered, revived, left pending
		step(claim)
		step(func() (fixture.Ref, error) { return q.DeadLetter(r, now, []byte("410")) })
		step(func() (fixture.Ref, error) { return q.Revive(r, now+1) })
	case 2: // purged while pending
		if err = q.Purge(r); err == nil {
			r.Status = 0
		}
	case 3: // left inflight
		step(claim)
	case 4: // dead
		step(claim)
		step(func() (fixture.Ref, error) { return q.DeadLetter(r, now, nil) })
	}
	return r, err
}
