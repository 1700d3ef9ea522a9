package health

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ankusa/ankusa-store/internal/radix"
	"github.com/ankusa/ankusa-store/internal/runs"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// markerCheck checks invariant 2 from the due rows' side: every distinct
// marker <<"A", div(at, 1000), ord>> the due rows ask for must exist. Due
// rows of one ordinal come in `at` order, so equal markers are adjacent and
// each is asked for once.
//
// The markers asked for are collected, sorted into the active index's
// (bucket, ord) order and merge-joined with one sequential scan of it: a
// point read per marker costs about 10 µs on a store with its recent writes
// in memtables, a sequential scan well under 1 µs a key. The collection is
// bounded: a batch of sizes.markers markers is sorted and packed into a run
// (internal/runs), and only runs past their byte budget pause the due scan
// for a join pass, so memory stays bounded whatever the store's size.
//
// The other direction is not a finding: a marker with no due row behind it
// is stale, which the contract allows, and a live store has many (the
// dispatcher only drops a tenant's markers older than its earliest due
// row). They are counted as the markers read minus the markers found.
type markerCheck struct {
	on     bool
	budget int // the markers of a batch (sizes.markers)
	last   struct {
		ord    uint32
		bucket uint64
		ok     bool
	}
	// The batch: each marker as bucket<<32 | ord, which sorts in the
	// active index's order with no compare function (every bucket of a
	// sane store, seconds before 2106, fits in 32 bits); wide holds the
	// others.
	need   []uint64
	tmp    []uint64 // need's sort's scratch
	wide   []markerNeed
	runs   runs.Sorted // the batches packed, sorted
	passes int
	// found: markers asked for that exist; present: markers read (A rows).
	found, present int64
	// missing are the first missing markers of the current pass, to report
	// after it: at most as many as can be listed; the others are counted.
	missing        []markerNeed
	missingOmitted int64
}

type markerNeed struct {
	bucket uint64
	ord    uint32
}

func (a markerNeed) cmp(b markerNeed) int {
	if c := cmp.Compare(a.bucket, b.bucket); c != 0 {
		return c
	}
	return cmp.Compare(a.ord, b.ord)
}

// ask notes the marker a due row asks for; full asks the due scan to pause
// for a join pass.
func (m *markerCheck) ask(dk format.DueKey) (full bool) {
	if !m.on {
		return false
	}
	b := dk.At / format.BucketMillis
	if m.last.ok && m.last.ord == dk.Ord && m.last.bucket == b {
		return false
	}
	m.last.ord, m.last.bucket, m.last.ok = dk.Ord, b, true
	if b <= math.MaxUint32 {
		m.need = appendDoubling(m.need, b<<32|uint64(dk.Ord))
	} else {
		m.wide = append(m.wide, markerNeed{bucket: b, ord: dk.Ord})
	}
	return m.batched() >= m.budget
}

func (m *markerCheck) batched() int { return len(m.need) + len(m.wide) }

// pack sorts the batch into a run: the wide markers after the others.
func (m *markerCheck) pack() {
	m.tmp = radix.Sort(m.need, m.tmp, u64Key)
	slices.SortFunc(m.wide, markerNeed.cmp)
	m.runs.Pack(m.batched(), func(i int) runs.Elem {
		if i < len(m.need) {
			return runs.Elem{m.need[i] >> 32, m.need[i] & math.MaxUint32}
		}
		w := m.wide[i-len(m.need)]
		return runs.Elem{w.bucket, uint64(w.ord)}
	})
	m.need, m.wide = m.need[:0], m.wide[:0]
}

// spillMarkers runs while the due scan is paused: it packs a full batch, and
// joins once the runs outgrow their budget.
func (e *foldEngine) spillMarkers() error {
	m := &e.markers
	if m.batched() < e.sz.markers {
		return nil
	}
	m.pack()
	if m.runs.Size() < e.sz.markerRunBytes() {
		return nil
	}
	return e.joinMarkers()
}

// joinMarkers runs one join pass over the active index. The first pass is
// also the fold of the family: its sentinels, its keys, its count.
func (e *foldEngine) joinMarkers() error {
	m := &e.markers
	if !m.on {
		return nil
	}
	m.pack()
	if m.passes > 0 && m.runs.Empty() {
		return nil
	}
	need := m.runs.Merge()
	miss := func(n markerNeed) {
		if len(m.missing) < MaxFindingsPerCheck {
			m.missing = append(m.missing, n)
		} else {
			m.missingOmitted++
		}
	}
	// join advances the sorted needs past the marker k.
	join := func(k format.ActiveKey) {
		have := runs.Elem{k.Bucket, uint64(k.Ord)}
		for n := need.Peek(); n != nil && n.Cmp(&have) < 0; n = need.Peek() {
			miss(markerNeed{bucket: n[0], ord: uint32(n[1])})
			need.Next()
		}
		if n := need.Peek(); n != nil && *n == have {
			m.found++
			need.Next()
		}
	}
	var err error
	if m.passes == 0 {
		err = e.read(famRead{fam: format.FamActive, row: func(k, v []byte) bool {
			ak, err := format.DecodeActiveKey(k)
			if err != nil {
				e.badKeyErr(format.FamActive, k, err)
				return false
			}
			if !e.inScope(ak.Ord) {
				return false
			}
			e.note(ak.Ord, format.CFIndex, k)
			if len(v) != 0 {
				e.badValue(format.CFIndex, k, v, e.tenantPtr(ak.Ord), fmt.Errorf("want an empty value"))
			}
			m.present++
			join(ak)
			return false
		}})
	} else {
		err = e.reread(format.FamActive, nil, nil, func(k, _ []byte) error {
			if ak, err := format.DecodeActiveKey(k); err == nil && e.inScope(ak.Ord) {
				join(ak)
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	for n := need.Peek(); n != nil; n = need.Peek() {
		miss(markerNeed{bucket: n[0], ord: uint32(n[1])})
		need.Next()
	}
	if err := need.Err(); err != nil {
		return fmt.Errorf("reading the markers' runs back: %w", err)
	}
	m.passes++
	m.runs.Reset()
	return e.reportMissingMarkers()
}

// reportMissingMarkers names each missing marker with the first due row that
// asks for it. Those past the first MaxFindingsPerCheck could not be listed
// anyway: they are counted.
func (e *foldEngine) reportMissingMarkers() error {
	m := &e.markers
	defer func() { m.missing, m.missingOmitted = m.missing[:0], 0 }()
	e.omitted(CheckMarkerMissing, m.missingOmitted)
	for _, n := range m.missing {
		mk := format.ActiveKey{Bucket: n.bucket, Ord: n.ord}.Encode()
		var related []KeyRef
		if e.perCheck[CheckMarkerMissing] < MaxFindingsPerCheck {
			first, err := e.firstDue(n.ord, n.bucket)
			if err != nil {
				return err
			}
			if first != nil {
				related = append(related, keyRef(format.CFIndex, first))
			}
		}
		e.finding(CheckMarkerMissing, e.tenantPtr(n.ord), keyRef(format.CFIndex, mk), related,
			fmt.Sprintf("ordinal %d has due rows in second %s (the first is shown) but no active marker for it, so the dispatcher never visits them",
				n.ord, time.Unix(int64(n.bucket), 0).UTC().Format(time.RFC3339)))
	}
	return nil
}

// firstDue is the first due key of ord in the given second.
func (e *foldEngine) firstDue(ord uint32, bucket uint64) ([]byte, error) {
	lo := format.DueKey{Ord: ord, At: bucket * format.BucketMillis}.Encode()[:13]
	hi := format.DueKey{Ord: ord, At: (bucket + 1) * format.BucketMillis}.Encode()[:13]
	var first []byte
	err := e.st.Scan(format.CFIndex, lo, hi, e.ro, func(k, _ []byte) error {
		first = bytes.Clone(k)
		return rocks.Stop
	})
	return first, err
}
