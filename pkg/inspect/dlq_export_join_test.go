package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/sortjoin"
)

// joinSinks are the sinks joinFixture's dead letters are on: the whole range
// of a sink, since the join orders delivery rows by seq and sink in one word,
// where a sink of 256 or more once ran into the next seq's.
var joinSinks = []uint16{1, 2, 3, 255, 256, 4097, 65535}

// joinFixture dead-letters n rows of five tenants with times at random
// against their seqs (as a real queue's retries make them, so the export's
// order is not the hooks'), some rows of one hook on several sinks, and every
// problem a row can have: its hook or delivery row missing, a delivery row
// that does not decode or is not dead, a hook of another id, its tenant erased
// or its tenant row gone; the hook and delivery row of the last seq gone.
func joinFixture(t testing.TB, n int, seed uint64) *rocks.Store {
	s := storetest.NewQueue(t, format.Format3)
	rng := rand.New(rand.NewPCG(seed, 7))
	tenants := []string{"acme", "beta", "gamma", "delta", format.DefaultTenant}
	seq := uint64(1000)
	for i := 0; i < n; i++ {
		if rng.IntN(4) != 0 {
			seq++
		}
		tenant := tenants[rng.IntN(len(tenants))]
		at := storetest.QueueMS(-time.Duration(rng.IntN(600)) * time.Second)
		sink := joinSinks[rng.IntN(len(joinSinks))]
		s.Dead(tenant, at, seq, sink, uint64(rng.IntN(900)), fmt.Sprintf("err %d", i))
		switch rng.IntN(12) {
		case 0:
			s.B.Delete(format.CFHooks, format.HookKey{Seq: seq}.Encode())
		case 1:
			s.B.Delete(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: sink}.Encode())
		case 2:
			s.Raw(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: sink}.Encode(), []byte{131, 1})
		case 3:
			s.Delivery(seq, sink, format.StatusDue, 5, "")
		case 4:
			e := format.Envelope{ID: []byte("another"), SourceID: []byte("src"), TenantID: []byte(tenant), Body: []byte{0xff, 'x'}}
			s.Raw(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(e, false))
		}
	}
	// The last seq's hook and delivery row gone: the keys wanted past their
	// families' last keys.
	seq++
	s.Dead("acme", storetest.QueueMS(-time.Second), seq, 1, 1, "last")
	s.B.Delete(format.CFHooks, format.HookKey{Seq: seq}.Encode())
	s.B.Delete(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: 1}.Encode())
	s.Erase("gamma")
	s.B.Delete(format.CFTenants, format.TenantByOrdKey{Ord: s.Ord("delta")}.Encode())
	return s.Open()
}

// exportLines is an export as dlq export's lines and notes carry it.
func exportLines(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, st *rocks.Store, opt DLQExportOptions) ([]byte, *DLQExportSummary) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	sum, err := ExportDLQ(context.Background(), st, opt, func(r *DLQExportRow) error { return enc.Encode(r) })
	if err != nil {
		t.Fatalf("export %+v: %v", opt, err)
	}
	if err := enc.Encode(sum.Notes); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), sum
}

// drawSelection draws what a listing of joinFixture's dead letters selects: a
// limit, a tenant (or every one), a sink, a start, and its sizes, small
// (drawSizes).
func drawSelection(t *rapid.T, st *rocks.Store) DLQOptions {
	opt := DLQOptions{Limit: rapid.SampledFrom([]int{0, 1, 9, 100}).Draw(t, "limit"), sizes: drawSizes(t)}
	if tenant := rapid.SampledFrom([]string{"", "acme", "gamma", format.DefaultTenant}).Draw(t, "tenant"); tenant != "" {
		opt.Tenant = scopeOf(t, st, tenant)
	}
	if rapid.Bool().Draw(t, "sink") {
		sink := rapid.SampledFrom(joinSinks).Draw(t, "sinkN")
		opt.Sink = &sink
	}
	if rapid.Bool().Draw(t, "since") {
		opt.Since = time.UnixMilli(int64(storetest.QueueMS(-5 * time.Minute)))
	}
	return opt
}

// checkJoinCases runs check as a rapid property on one of two joinFixture
// stores a case.
func checkJoinCases(t *testing.T, check func(t *rapid.T, st *rocks.Store)) {
	t.Setenv("TMPDIR", t.TempDir())
	stores := []*rocks.Store{joinFixture(t, 150, 1), joinFixture(t, 40, 2)}
	rapid.Check(t, func(t *rapid.T) {
		check(t, stores[rapid.IntRange(0, len(stores)-1).Draw(t, "store")])
	})
}

// drawSizes draws a listing's or an export's sizes small: the join's (buckets
// split down to one position, runs and values in segments of a few bytes),
// the pages, the bounds in bytes and the page walk's chunks.
func drawSizes(t *rapid.T) dlqSizes {
	sz := sortjoin.DefaultSizes()
	sz.PlanBatch = rapid.IntRange(1, 40).Draw(t, "planBatch")
	sz.GatherSkip = rapid.IntRange(0, 5).Draw(t, "gatherSkip")
	sz.SizeSample = rapid.IntRange(1, 50).Draw(t, "sizeSample")
	sz.BucketsMax = rapid.Uint64Range(1, 9).Draw(t, "bucketsMax")
	sz.BucketMax = rapid.Uint64Range(1, 60).Draw(t, "bucketMax")
	sz.Segment = rapid.IntRange(1, 300).Draw(t, "segment")
	sz.WindowMax = rapid.SampledFrom([]int{1, 100, 700, 16 << 20}).Draw(t, "windowMax")
	sz.Runs.SpillAfter = rapid.SampledFrom([]int{0, 4 << 20}).Draw(t, "spillAfter")
	return dlqSizes{join: sz,
		page: rapid.SampledFrom([]int{1, 3, 7, 1024}).Draw(t, "page"),
		// The page's bounds in bytes: a group of hooks and a part of rows of one row.
		readBytes: rapid.SampledFrom([]int{1, 500, 8 << 20}).Draw(t, "readBytes"),
		partBytes: rapid.SampledFrom([]int{1, 700, 16 << 20}).Draw(t, "partBytes"),
		// The page walk's chunks: one entry each, or the default.
		chunkBytes: rapid.SampledFrom([]int{1, 0}).Draw(t, "chunkBytes")}
}

// The sorted join writes what reading each row by key writes, line for line
// and note for note, whatever the selection, the page and the join's sizes
// (buckets split down to one position, runs and values spilled in segments
// of a few bytes), on rows with every problem.
func TestExportJoinIsTheByKeyExport(t *testing.T) {
	checkJoinCases(t, func(t *rapid.T, st *rocks.Store) {
		sel := drawSelection(t, st)
		opt := DLQExportOptions{Limit: sel.Limit, Tenant: sel.Tenant, Sink: sel.Sink, Since: sel.Since, sizes: sel.sizes}
		byKey := opt
		byKey.Join = ExportJoinByKey
		want, wsum := exportLines(t, st, byKey)
		opt.Join = ExportJoinSorted
		got, sum := exportLines(t, st, opt)
		if !sum.Joined || wsum.Joined {
			t.Fatalf("joined: sorted %v, by key %v", sum.Joined, wsum.Joined)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("the sorted join exported\n%s\nby key\n%s", got, want)
		}
	})
}

// Auto joins only an export large enough to gain; on format 2 nothing is joined.
func TestExportJoinAuto(t *testing.T) {
	st := joinFixture(t, 20, 3)
	if _, sum := exportLines(t, st, DLQExportOptions{}); sum.Joined {
		t.Error("auto joined an export of 20 dead letters")
	}
	v2, _, _ := dlqFixture(t, format.Format2)
	if _, sum := exportLines(t, v2, DLQExportOptions{Join: ExportJoinSorted}); sum.Joined {
		t.Error("a format 2 export was joined")
	}
}

// Where the temporary directory has no room, or no unnamed files, the export
// reads by key, writes the same lines, and says why on stderr; nothing is
// left in the directory.
func TestExportJoinWithoutTmpdir(t *testing.T) {
	st := joinFixture(t, 60, 4)
	want, _ := exportLines(t, st, DLQExportOptions{Join: ExportJoinByKey})
	full := storetest.MountTmpfs(t, 256<<10)
	storetest.Fill(t, full)
	for name, dir := range map[string]string{"full": full, "missing": "/nonexistent-ankusa-tmp"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("TMPDIR", dir)
			got, sum := exportLines(t, st, DLQExportOptions{Join: ExportJoinSorted})
			if sum.Joined {
				t.Fatal("joined without a temporary directory")
			}
			var note string
			for _, n := range sum.Notes {
				if strings.Contains(n.Text, "by key instead") {
					note = n.Text
				}
			}
			if note == "" || !strings.Contains(note, dir) {
				t.Errorf("notes %+v: want one saying the join could not use %s", sum.Notes, dir)
			}
			// The lines are the same; the notes differ by that one.
			if g, w := bytes.SplitAfter(got, []byte("\n")), bytes.SplitAfter(want, []byte("\n")); len(g) != len(w) ||
				!bytes.Equal(bytes.Join(g[:len(g)-2], nil), bytes.Join(w[:len(w)-2], nil)) {
				t.Errorf("without a temporary directory the lines differ")
			}
		})
	}
	ents, err := os.ReadDir(full)
	if err != nil || len(ents) != 1 {
		t.Errorf("the full directory holds %v (%v), want the filler alone", ents, err)
	}
}

// phases is a reporting.Reporter that keeps the phases it hears.
type phases []string

func (p *phases) Add(int64)       {}
func (p *phases) SetTotal(int64)  {}
func (p *phases) Phase(ph string) { *p = append(*p, ph) }

// A joined export says so on its progress line before its first row (the
// join reads for minutes at 10^8 rows), and is back to its rows after.
func TestExportJoinPhases(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	st := joinFixture(t, 20, 8)
	for join, want := range map[ExportJoin][]string{
		ExportJoinSorted: {ExportJoinPlan, ExportJoinGather, ExportPhaseRows},
		ExportJoinAuto:   {ExportJoinPlan, ExportPhaseRows},
		ExportJoinByKey:  {ExportPhaseRows},
	} {
		var got phases
		exportLines(t, st, DLQExportOptions{Join: join, Progress: &got})
		if !slices.Equal(got, want) {
			t.Errorf("join %d: phases %q, want %q", join, got, want)
		}
	}
}

// Auto joins an export whose dead rows lie at random against their hooks'
// seqs, and reads by key one whose rows come in their hooks' order (where
// each page's multi-get reads blocks of its own, as fast as the join), having
// looked at its first pages only. Both write what by key writes.
func TestExportJoinAutoJoinsScatteredRows(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	sz := dlqSizes{page: 8, join: sortjoin.DefaultSizes()}
	sz.join.JoinMin, sz.join.LocalPages = 0, 5
	s := storetest.NewQueue(t, format.Format3)
	for i := 0; i < 60; i++ {
		s.Dead([]string{"acme", "beta"}[i%2], storetest.QueueMS(-time.Hour)+uint64(i), uint64(100+i), 1, 10, "e")
	}
	ordered := s.Open()
	for name, c := range map[string]struct {
		st     *rocks.Store
		joined bool
	}{"in seq order": {ordered, false}, "at random": {joinFixture(t, 60, 9), true}} {
		want, _ := exportLines(t, c.st, DLQExportOptions{Join: ExportJoinByKey, sizes: sz})
		var ph phases
		got, sum := exportLines(t, c.st, DLQExportOptions{Progress: &ph, sizes: sz})
		if sum.Joined != c.joined || !bytes.Equal(got, want) {
			t.Errorf("%s: joined %v, want %v; the same lines as by key: %v", name, sum.Joined, c.joined, bytes.Equal(got, want))
		}
		if !c.joined && !slices.Equal(ph, phases{ExportJoinPlan, ExportPhaseRows}) {
			t.Errorf("%s: phases %q", name, ph)
		}
	}
}

// streamLines is a streamed scan as dlq scan -o json carries it: its head,
// rows and the page after them, and whether it read through the join.
func streamLines(t *rapid.T, st *rocks.Store, opt DLQOptions) ([]byte, bool) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	joined := false
	opt.hear.joined = func(j bool) { joined = j }
	page, err := StreamDLQ(context.Background(), st, opt, func(h *DLQPage) error { return enc.Encode(h) },
		func(r *DLQRow) error { return enc.Encode(r) })
	if err != nil {
		t.Fatalf("stream %+v: %v", opt, err)
	}
	if err := enc.Encode(page); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), joined
}

// A streamed dlq scan through the sorted join lists what it lists reading
// each delivery row and tenant name by key, row for row and note for note,
// whatever the selection, the cursor, the limit, the pages and the join's
// sizes, on rows with every problem.
func TestStreamJoinIsTheByKeyStream(t *testing.T) {
	checkJoinCases(t, func(t *rapid.T, st *rocks.Store) {
		opt := drawSelection(t, st)
		if rapid.Bool().Draw(t, "after") {
			// Below the first page of a few rows, as --after takes it.
			first, err := ScanDLQ(context.Background(), st, DLQOptions{Tenant: opt.Tenant, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if first.NextCursor != "" {
				c, err := ParseDLQCursor(first.NextCursor)
				if err != nil {
					t.Fatal(err)
				}
				opt.After = &c
			}
		}
		byKey := opt
		byKey.Join = ExportJoinByKey
		want, wj := streamLines(t, st, byKey)
		opt.Join = ExportJoinSorted
		got, j := streamLines(t, st, opt)
		if !j || wj {
			t.Fatalf("joined: sorted %v, by key %v", j, wj)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("the sorted join listed\n%s\nby key\n%s", got, want)
		}
	})
}
