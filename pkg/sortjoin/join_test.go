package sortjoin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// joinSinks are the sinks joinStore's delivery rows are on: the whole range
// of a sink, since the join orders delivery rows by seq and sink in one word
// (joinFamilies), where a sink of 256 or more once ran into the next seq's.
var joinSinks = []uint16{1, 2, 3, 255, 256, 4097, 65535}

// joinStore is a format 3 store of n seqs from 1001, each with a hook of body
// bytes (text that compresses well, as JSON does) and a delivery row on sink
// joinSinks[seq%7] (with gaps, every fifth seq's hook and every seventh seq's
// delivery row missing), and five tenants; flushed to tables, as a node's store is, so
// that the tables' sizes are their compressed ones. The join reads values as
// bytes: what they hold is the views'.
func joinStore(t testing.TB, n, body int, gaps bool) *rocks.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	st := storetest.Create(t, dir, format.Format3, rocks.Tuning{})
	w := storetest.NewWriter(format.Format3)
	for _, tenant := range []string{"acme", "beta", "gamma", "delta", "epsilon"} {
		w.Ord(tenant)
	}
	text := bytes.Repeat([]byte(`{"type":"invoice.paid","n":1}`), body/29+1)[:body]
	for i := range n {
		seq := uint64(1001 + i)
		if !gaps || i%5 != 4 {
			w.B.Put(format.CFHooks, format.HookKey{Seq: seq}.Encode(), append([]byte(fmt.Sprint(seq)), text...))
		}
		if !gaps || i%7 != 6 {
			// About what a node's delivery row of a dead letter takes.
			w.B.Put(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: joinSinks[seq%7]}.Encode(), fmt.Appendf(nil, "d%063d", seq))
		}
	}
	w.Commit(t, st, true)
	for _, cf := range st.Families() {
		if err := st.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	return storetest.OpenReadOnly(t, dir)
}

// lookup is one row a page asks for: its seq, its sink and its tenant.
type lookup struct {
	seq  uint64
	sink uint16
	ord  uint32
}

// pagesWalk is a walk of pages as the dead-letter views make one: each
// page's delivery rows and tenant names read (none for an empty page), then
// its seqs told; got hears every answer, in the order asked.
func pagesWalk(pages [][]lookup, got func(cf string, vals [][]byte, found []bool)) Walk {
	return func(ctx context.Context, reads Reads, page func(seqs []uint64) error) error {
		for _, p := range pages {
			if len(p) == 0 {
				if err := page(nil); err != nil {
					return err
				}
				continue
			}
			var dk, tk [][]byte
			seqs := make([]uint64, len(p))
			for i, l := range p {
				dk = append(dk, format.DeliveryKey{Seq: l.seq, Sink: l.sink}.Encode())
				tk = append(tk, format.TenantByOrdKey{Ord: l.ord}.Encode())
				seqs[i] = l.seq
			}
			for _, q := range []struct {
				cf   string
				keys [][]byte
			}{{format.CFDeliveries, dk}, {format.CFTenants, tk}} {
				vals, found, err := reads.Get(q.cf, q.keys)
				if err != nil {
					return err
				}
				if !reads.Plans() {
					got(q.cf, vals, found)
				}
			}
			if err := page(seqs); err != nil {
				return err
			}
		}
		return nil
	}
}

// answers is what a walk read, one line a key, family by family: its value,
// or that it was not found (whatever value came with that).
type answers map[string][]string

func (a answers) add(cf string, vals [][]byte, found []bool) {
	for i := range vals {
		line := "not found"
		if found[i] {
			line = fmt.Sprintf("%q", vals[i])
		}
		a[cf] = append(a[cf], line)
	}
}

// walkOver runs pages over reads, reading each page's hooks after it as an
// export does, and returns what it read.
func walkOver(t *rapid.T, reads Reads, pages [][]lookup) answers {
	a := answers{}
	walk := pagesWalk(pages, a.add)
	err := walk(context.Background(), reads, func(seqs []uint64) error {
		if len(seqs) == 0 {
			return nil
		}
		vals, found, err := reads.Get(format.CFHooks, hookKeys(seqs))
		a.add(format.CFHooks, vals, found)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// drawSizes draws the join's sizes small: buckets split down to one
// position, runs and values spilled in segments of a few bytes.
func drawSizes(t *rapid.T) Sizes {
	return Sizes{
		JoinMin: 0, LocalPages: 1 << 30,
		PlanBatch:   rapid.IntRange(1, 40).Draw(t, "planBatch"),
		GatherSkip:  rapid.IntRange(0, 5).Draw(t, "gatherSkip"),
		GatherCheck: rapid.IntRange(1, 1024).Draw(t, "gatherCheck"),
		SizeSample:  rapid.IntRange(1, 50).Draw(t, "sizeSample"),
		BucketsMax:  rapid.Uint64Range(1, 9).Draw(t, "bucketsMax"),
		BucketMax:   rapid.Uint64Range(1, 60).Draw(t, "bucketMax"),
		Segment:     rapid.IntRange(1, 300).Draw(t, "segment"),
		Runs: runs.Limits{SpillAfter: rapid.SampledFrom([]int{0, 4 << 20}).Draw(t, "spillAfter"),
			ReadBuf: runs.DefaultLimits().ReadBuf},
		WindowMax: rapid.SampledFrom([]int{1, 100, 700, 16 << 20}).Draw(t, "windowMax"),
	}
}

// The join answers every key a walk asks for, in the walk's order, as reading
// it by key answers: keys asked for again and again, out of order, missing,
// and past their family's last key, whatever the join's sizes.
func TestJoinAnswersAsReadsByKey(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	st := joinStore(t, 60, 40, true)
	rapid.Check(t, func(t *rapid.T) {
		var pages [][]lookup
		for range rapid.IntRange(1, 6).Draw(t, "pages") {
			var p []lookup
			for range rapid.IntRange(0, 30).Draw(t, "rows") {
				seq := rapid.Uint64Range(995, 1070).Draw(t, "seq")
				sink := joinSinks[seq%7]
				if rapid.IntRange(0, 9).Draw(t, "other sink") == 0 {
					sink = rapid.SampledFrom(joinSinks).Draw(t, "sink")
				}
				p = append(p, lookup{seq: seq, sink: sink, ord: rapid.Uint32Range(0, 8).Draw(t, "ord")})
			}
			pages = append(pages, p)
		}
		want := walkOver(t, StoreReads{DB: st.DB, Once: true}, pages)
		walk := pagesWalk(pages, func(string, [][]byte, []bool) {})
		j, why, err := Start(context.Background(), st.DB, walk, Options{Always: true, Hooks: true, Who: "the test", Sizes: drawSizes(t)})
		if err != nil || why != nil || j == nil {
			t.Fatalf("start: %v, %v, %v", j, why, err)
		}
		defer j.Close()
		got := walkOver(t, j, pages)
		for _, cf := range []string{format.CFDeliveries, format.CFTenants, format.CFHooks} {
			if !slices.Equal(got[cf], want[cf]) {
				t.Fatalf("%s: the join answered\n%q\nby key\n%q", cf, got[cf], want[cf])
			}
		}
	})
}

// plannedJoin plans keys of the hooks and gathers their join in st.
func plannedJoin(t *testing.T, st *rocks.Store, sz Sizes, keys [][]byte) (*Join, error) {
	t.Helper()
	plan := newPlan(sz.orDefault())
	defer plan.Close()
	if _, _, err := plan.Get(format.CFHooks, keys); err != nil {
		t.Fatal(err)
	}
	if err := plan.Finish(); err != nil {
		t.Fatal(err)
	}
	return plan.Gather(context.Background(), st.DB)
}

// A lookup the plan did not record (the store moved between the passes, which
// a read-only store cannot) fails the walk; it is not answered with another
// row's value.
func TestExportJoinRefusesAnUnplannedKey(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	keys := [][]byte{format.HookKey{Seq: 7}.Encode(), format.HookKey{Seq: 3}.Encode()}
	j, err := plannedJoin(t, joinStore(t, 3, 10, true), Sizes{}, keys)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, found, err := j.Get(format.CFHooks, keys[:1]); err != nil || found[0] {
		t.Fatalf("the planned key: found %v, %v", found, err)
	}
	if _, _, err := j.Get(format.CFHooks, [][]byte{format.HookKey{Seq: 8}.Encode()}); !errors.Is(err, errMoved) {
		t.Errorf("another key than planned: %v, want errMoved", err)
	}
	if _, _, err := j.Get(format.CFHooks, keys[1:]); !errors.Is(err, errMoved) {
		t.Errorf("a key past the plan: %v, want errMoved", err)
	}
}

// A plan whose runs, or a gather whose values, cannot be written (the
// temporary directory's file system full after the check) is a *SpillError,
// which the caller meets by reading by key.
func TestExportJoinSpillErrors(t *testing.T) {
	st := joinStore(t, 30, 10, true)
	full := storetest.MountTmpfs(t, 256<<10)
	storetest.Fill(t, full)
	t.Setenv("TMPDIR", full)
	keys := [][]byte{format.HookKey{Seq: 1001}.Encode(), format.HookKey{Seq: 1002}.Encode()}
	plan := func(spillAfter int) *plan {
		sz := DefaultSizes()
		sz.Runs.SpillAfter = spillAfter
		p := newPlan(&sz)
		t.Cleanup(p.Close)
		if _, _, err := p.Get(format.CFHooks, keys); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var spillErr *SpillError
	if err := plan(0).Finish(); !errors.As(err, &spillErr) {
		t.Errorf("runs that cannot be spilled: %v, want a *SpillError", err)
	}
	p := plan(DefaultSizes().Runs.SpillAfter)
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Gather(context.Background(), st.DB); !errors.As(err, &spillErr) {
		t.Errorf("values that cannot be written: %v, want a *SpillError", err)
	}
	// Start says why instead of failing.
	walk := pagesWalk([][]lookup{{{seq: 1001, sink: 1, ord: 1}}}, func(string, [][]byte, []bool) {})
	if j, why, err := Start(context.Background(), st.DB, walk, Options{Always: true, Who: "the test"}); j != nil || err != nil || why == nil {
		t.Errorf("start on a full disk: %v, %v, %v; want no join and why", j, why, err)
	}
}

// errAfter is a context whose Err turns to Canceled after n looks.
type errAfter struct {
	context.Context
	n int
}

func (c *errAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// An interrupt is heard within the gather's walk of a family, not only
// between its seeks: at 10^8 rows one walk is a minute.
func TestExportJoinGatherHearsTheContext(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	st := joinStore(t, 60, 10, true)
	sz := DefaultSizes()
	sz.GatherCheck, sz.GatherSkip = 4, 1<<30 // one walk a family
	plan := newPlan(&sz)
	defer plan.Close()
	var keys [][]byte
	for seq := uint64(1001); seq <= 1040; seq++ {
		keys = append(keys, format.HookKey{Seq: seq}.Encode())
	}
	if _, _, err := plan.Get(format.CFHooks, keys); err != nil {
		t.Fatal(err)
	}
	if err := plan.Finish(); err != nil {
		t.Fatal(err)
	}
	// Two looks: one before the hooks' walk, one in it.
	if _, err := plan.Gather(&errAfter{Context: context.Background(), n: 1}, st.DB); !errors.Is(err, context.Canceled) {
		t.Fatalf("a context cancelled during the walk: %v, want context.Canceled", err)
	}
}

// The plan's batches, sorted by the radix sort on their family's key, are in
// the order the elements compare (runs.Elem.Cmp), which the gather's merge
// reads them in: equal keys with their positions ascending, sinks of the
// whole range, and delivery seqs of 2^48 and more (past the radix key) by the
// comparison sort.
func TestExportPlanSortIsTheElementsOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		for _, fam := range joinFamilies {
			f := &planFamily{fam: fam, tmp: new([]runs.Elem)}
			n := rapid.IntRange(0, 300).Draw(rt, "n")
			big := rapid.Bool().Draw(rt, "big")
			for pos := range n {
				k := rapid.Uint64Range(0, 40).Draw(rt, "key")
				if big && rapid.IntRange(0, 9).Draw(rt, "big key") == 0 {
					k += 1 << 48
				}
				e := runs.Elem{k, uint64(pos)}
				if fam.words == 3 {
					e = runs.Elem{k, rapid.Uint64Range(0, 1<<16-1).Draw(rt, "sink"), uint64(pos)}
				}
				f.batch = append(f.batch, e)
			}
			want := slices.Clone(f.batch)
			slices.SortFunc(want, func(a, b runs.Elem) int { return a.Cmp(&b) })
			f.sort()
			if !slices.Equal(f.batch, want) {
				rt.Fatalf("%s: sorted\n%v\nwant\n%v", fam.cf, f.batch, want)
			}
		}
	})
}

// The join's space estimate covers what its gather writes, and is within
// three times of it: from the values' sizes before compression (the tables'
// sizes on disk of these hooks are a tenth of them or less).
func TestExportJoinEstimateCoversWhatItWrites(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, c := range []struct{ n, body int }{{60, 8 << 10}, {200, 300}, {5, 100 << 10}} {
		st := joinStore(t, c.n, c.body, false)
		var page []lookup
		for i := range c.n {
			seq := uint64(1001 + i)
			page = append(page, lookup{seq: seq, sink: joinSinks[seq%7], ord: uint32(1 + i%5)})
		}
		plan := newPlan(DefaultSizes().orDefault())
		err := pagesWalk([][]lookup{page}, nil)(context.Background(), plan, func(seqs []uint64) error {
			_, _, err := plan.Get(format.CFHooks, hookKeys(seqs))
			return err
		})
		if err == nil {
			err = plan.Finish()
		}
		if err != nil {
			t.Fatal(err)
		}
		need, err := plan.BytesNeeded(st.DB)
		if err != nil {
			t.Fatal(err)
		}
		j, err := plan.Gather(context.Background(), st.DB)
		if err != nil {
			t.Fatal(err)
		}
		written := j.file.end
		j.Close()
		plan.Close()
		t.Logf("%d hooks of %d bytes: estimated %d bytes, the gather wrote %d (%.2fx)", c.n, c.body, need, written, float64(need)/float64(written))
		if need < written || need > 3*written {
			t.Errorf("%d hooks of %d bytes: estimated %d bytes, the gather wrote %d", c.n, c.body, need, written)
		}
	}
}
