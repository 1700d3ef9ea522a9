package inspect

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Big stores for the view benchmarks, built straight with batches: the
// fixture command plays a whole history per hook, which at a million dead
// rows takes hours. The keys and values are the contract's, through package
// format; hooks are left out (no view under benchmark reads one).
//
// ANKUSA_VIEWS_BENCH_DIR keeps the stores between runs (bench/views_bench.sh
// times the CLI on them); without it they live in the test's temp dir.

const benchTarget = "bench-target" // the tenant the scoped benchmarks read

// benchStoreDir returns where the store named name lives, building it with
// build when it is not there yet (a "done" file marks a finished build).
func benchStoreDir(b testing.TB, name string, build func(dir string)) string {
	b.Helper()
	root := os.Getenv("ANKUSA_VIEWS_BENCH_DIR")
	if root == "" {
		root = b.TempDir()
	}
	dir := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return dir
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	build(dir)
	if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// bulkStore writes a format 3 store in batches of bulkBatch rows.
type bulkStore struct {
	*storetest.Writer
	tb   testing.TB
	st   *rocks.Store
	rows int
}

const bulkBatch = 20_000

func newBulkStore(tb testing.TB, dir string) *bulkStore {
	st := storetest.Create(tb, dir, format.Format3, rocks.BulkTuning)
	return &bulkStore{Writer: storetest.NewWriter(format.Format3), tb: tb, st: st}
}

func (s *bulkStore) tenant(name string) uint32 {
	o := s.Ord(name)
	s.row()
	return o
}

func (s *bulkStore) dead(ord uint32, at, seq uint64, size uint64) {
	k := format.DeadKey{At: at, Seq: seq, Sink: 1}
	s.B.Put(format.CFIndex, k.Encode(), format.DeadValue{SourceID: []byte("src-1"), ID: []byte(fmt.Sprintf("hk_%016x", seq)), Ord: ord, HasOrd: true}.Encode())
	s.B.Put(format.CFIndex, k.ByTenant(ord).Encode(), nil)
	s.B.Put(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: 1}.Encode(), format.EncodeDelivery(format.Delivery{
		Sink: 1, Status: format.StatusDead, Attempts: 5, Size: size, LastError: []byte("HTTP 503 from sink 1: unavailable")}))
	s.Deltas.Add(ord, format.FieldDead, 1)
	s.Deltas.Add(ord, format.FieldBytes, int64(size))
	s.row()
}

func (s *bulkStore) due(ord uint32, at, seq uint64, size uint32, kind uint8) {
	k := format.DueKey{Ord: ord, At: at, Seq: seq, Sink: 1}
	s.B.Put(format.CFIndex, k.Encode(), format.DueValue{Size: size, Kind: kind}.Encode())
	s.B.Put(format.CFIndex, k.ActiveKey().Encode(), nil)
	s.B.Put(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: 1}.Encode(), format.EncodeDelivery(format.Delivery{
		Sink: 1, Status: format.StatusDue, Attempts: int64(kind), Size: uint64(size), LastErrorNil: true}))
	s.Deltas.Add(ord, format.DueValue{Kind: kind}.Field(), 1)
	s.Deltas.Add(ord, format.FieldBytes, int64(size))
	s.row()
}

func (s *bulkStore) row() {
	if s.rows++; s.rows%bulkBatch == 0 {
		s.flushBatch()
	}
}

func (s *bulkStore) flushBatch() { s.Commit(s.tb, s.st, false) }

// close writes the rest and compacts, so that the benchmarks read a settled
// store (tables, not a WAL to replay) as a long-running node has.
func (s *bulkStore) close() {
	s.flushBatch()
	for _, cf := range format.FamiliesV3 {
		if err := s.st.Flush(cf); err != nil {
			s.tb.Fatal(err)
		}
		if err := s.st.CompactRange(cf); err != nil {
			s.tb.Fatal(err)
		}
	}
	if err := s.st.Close(); err != nil {
		s.tb.Fatal(err)
	}
}

// buildDeadStore writes dead dead rows spread over 1000 tenants, of which
// benchTarget (an ordinal in the middle, with neighbours on both sides) holds
// a fixed 200 spread through the whole time range: the scoped page's cost
// must not depend on the other rows.
func buildDeadStore(tb testing.TB, dir string, dead int) {
	s := newBulkStore(tb, dir)
	const tenants, targetRows = 1000, 200
	ords := make([]uint32, tenants)
	for i := 1; i < tenants; i++ {
		if i == tenants/2 {
			ords[0] = s.tenant(benchTarget)
		}
		ords[i] = s.tenant(fmt.Sprintf("tenant-%05d", i))
	}
	r := rand.New(rand.NewPCG(1, 2))
	every := dead / targetRows
	base := uint64(storetest.QueueNow.Add(-30 * 24 * 3600 * 1e9).UnixMilli())
	for i := 0; i < dead; i++ {
		ord := ords[1+r.IntN(tenants-1)]
		if i%every == 0 {
			ord = ords[0]
		}
		s.dead(ord, base+uint64(i)*2, uint64(i+1), uint64(100+r.IntN(900)))
	}
	s.close()
}

// buildTenantsStore writes n tenants, each with its counters and one or two
// due rows (so that every tenant has an oldest due row to find), plus stale
// markers for a tenth of them.
func buildTenantsStore(tb testing.TB, dir string, n int) {
	s := newBulkStore(tb, dir)
	r := rand.New(rand.NewPCG(3, 4))
	base := uint64(storetest.QueueNow.Add(-3600 * 1e9).UnixMilli())
	seq := uint64(1)
	for i := 0; i < n; i++ {
		o := s.tenant(fmt.Sprintf("tenant-%06d", i))
		for j := 0; j <= i%2; j++ {
			s.due(o, base+uint64(r.IntN(3_600_000)), seq, uint32(100+r.IntN(900)), uint8(j))
			seq++
		}
		if i%10 == 0 {
			s.B.Put(format.CFIndex, format.ActiveKey{Bucket: base/1000 - uint64(r.IntN(600)), Ord: o}.Encode(), nil)
		}
	}
	s.close()
}
