package migration

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/format/etf"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// v2Store builds format 2 stores byte by byte, including what no healthy node
// writes (stray keys, missing hooks, undecodable envelopes), for the cases the
// contract pins down.
type v2Store struct {
	*storetest.Writer
	t     testing.TB
	dir   string
	st    *rocks.Store
	hooks map[uint64]bool
}

// newV2Store creates an empty format 2 store with its sentinels.
func newV2Store(t testing.TB, dir string) *v2Store {
	t.Helper()
	st := storetest.Create(t, dir, format.Format2, rocks.Tuning{})
	return &v2Store{Writer: storetest.NewWriter(format.Format2), t: t, dir: dir, st: st, hooks: map[uint64]bool{}}
}

func (s *v2Store) put(cf string, k, v []byte) {
	s.B.Put(cf, k, v)
	if s.B.Count() >= 1000 {
		s.flush()
	}
}

func (s *v2Store) flush() {
	if s.B.Count() > 0 {
		s.Commit(s.t, s.st, false)
	}
}

// close writes what is pending and closes the store.
func (s *v2Store) close() {
	s.flush()
	if err := s.st.Close(); err != nil {
		s.t.Fatal(err)
	}
}

// envelope returns a hook for tenant: "" is a nil tenant_id.
func envelope(seq uint64, tenant string, compressed bool) []byte {
	e := format.Envelope{
		ID: fmt.Appendf(nil, "id-%d", seq), SourceID: []byte("src"), TenantID: []byte(tenant), TenantNil: tenant == "",
		ReceivedAt: 1_700_000_000_000 + int64(seq), Body: []byte(strings.Repeat("b", int(seq%200))),
		Headers: [][2][]byte{{[]byte("content-type"), []byte("application/json")}},
	}
	return format.EncodeEnvelope(e, compressed)
}

// hook stores an envelope for tenant ("" for nil).
func (s *v2Store) hook(seq uint64, tenant string) {
	s.rawHook(seq, envelope(seq, tenant, seq%7 == 0))
}

// rawHook stores arbitrary hook bytes.
func (s *v2Store) rawHook(seq uint64, b []byte) {
	s.hooks[seq] = true
	s.put(format.CFHooks, format.HookKey{Seq: seq}.Encode(), b)
}

func (s *v2Store) delivery(seq uint64, sink uint16, status string, size uint64) {
	d := format.Delivery{Sink: sink, Status: status, Attempts: int64(seq % 4), Size: size, LastErrorNil: true}
	s.put(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: sink}.Encode(), format.EncodeDelivery(d))
}

func (s *v2Store) due(at, seq uint64, sink uint16, size uint32) {
	s.delivery(seq, sink, format.StatusDue, uint64(size))
	s.put(format.CFIndex, format.DueV2Key{At: at, Seq: seq, Sink: sink}.Encode(), format.EncodeSize(size))
}

func (s *v2Store) inflight(seq uint64, sink uint16, size uint32) {
	s.delivery(seq, sink, format.StatusInflight, uint64(size))
	s.put(format.CFIndex, format.InflightV2Key{Seq: seq, Sink: sink}.Encode(), format.EncodeSize(size))
}

// dead stores a dead row; size < 0 stores no delivery row.
func (s *v2Store) dead(at, seq uint64, sink uint16, size int64) {
	if size >= 0 {
		s.delivery(seq, sink, format.StatusDead, uint64(size))
	}
	v := format.DeadValue{SourceID: []byte("src"), ID: fmt.Appendf(nil, "id-%d", seq)}
	s.put(format.CFIndex, format.DeadKey{At: at, Seq: seq, Sink: sink}.Encode(), v.Encode())
}

func (s *v2Store) archive(seq uint64, size uint32) {
	s.put(format.CFIndex, format.ArchiveKey{Seq: seq}.Encode(), format.EncodeSize(size))
}

// untouched stores rows of the families the migration carries over as they are.
func (s *v2Store) untouched(seq uint64) {
	s.put(format.CFIndex, fmt.Appendf([]byte{format.PrefixDedupe}, "tenant-%d\x00key-%d", seq%5, seq), []byte{1})
	s.put(format.CFIndex, fmt.Appendf([]byte{format.PrefixCleared}, "%08d", seq), nil)
	s.put(format.CFAudit, fmt.Appendf([]byte{'a'}, "%016d", seq), []byte("audit"))
	s.put(format.CFQuarantine, fmt.Appendf(nil, "q%d", seq), []byte("quarantined"))
	s.put(format.CFArchive, fmt.Appendf(nil, "seg-%d", seq), []byte("segment"))
}

// genSpec shapes a generated store.
type genSpec struct {
	seed    uint64
	hooks   int
	tenants int
	now     uint64 // ms; due rows fall on both sides of it
	// Fractions of hooks with problems (each in 0..1).
	missing, undecodable, nilTenant float64
	// Relative weights of a sink's state (zero: 5 due, 2 inflight, 2 dead,
	// 1 delivered) and the fraction of hooks owing an archive obligation
	// (zero: a third).
	weights [4]int
	archive float64
}

// genV2 fills s with a realistic queue: hooks of several tenants with one to
// three sinks each, every sink due (first attempt or retry), inflight or dead,
// some hooks owing an archive obligation, a few hooks gone or undecodable,
// some dead rows without their delivery row.
func genV2(s *v2Store, g genSpec) {
	r := rand.New(rand.NewPCG(g.seed, 0x6d6967))
	w := g.weights
	if w == [4]int{} {
		w = [4]int{5, 2, 2, 1}
	}
	archive := g.archive
	if archive == 0 {
		archive = 1.0 / 3
	}
	for i := range g.hooks {
		seq := uint64(1000 + i*3)
		tenant := fmt.Sprintf("tenant-%03d", r.IntN(max(g.tenants, 1)))
		switch x := r.Float64(); {
		case x < g.missing:
			// rows without a hook
		case x < g.missing+g.undecodable:
			s.rawHook(seq, []byte{131, 116, 0, 0, 0, 9}) // a map that ends early
		case x < g.missing+g.undecodable+g.nilTenant:
			s.hook(seq, "")
		default:
			s.hook(seq, tenant)
		}
		sinks := 1 + r.IntN(3)
		for sink := range sinks {
			size := uint32(r.IntN(5000))
			switch x := r.IntN(w[0] + w[1] + w[2] + w[3]); {
			case x < w[0]:
				at := g.now - 3_600_000 + uint64(r.IntN(7_200_000))
				s.due(at, seq, uint16(sink), size)
			case x < w[0]+w[1]:
				s.inflight(seq, uint16(sink), size)
			case x < w[0]+w[1]+w[2]:
				dsize := int64(size)
				if r.IntN(50) == 0 {
					dsize = -1
				}
				s.dead(g.now-uint64(r.IntN(86_400_000)), seq, uint16(sink), dsize)
			default:
				// delivered: no row left
			}
		}
		if r.Float64() < archive {
			s.archive(seq, uint32(r.IntN(10000)))
		}
		if r.IntN(10) == 0 {
			s.untouched(seq)
		}
	}
}

// makeV2 generates a closed format 2 store in a fresh directory.
func makeV2(t testing.TB, g genSpec) string {
	t.Helper()
	dir := t.TempDir() + "/store"
	s := newV2Store(t, dir)
	genV2(s, g)
	s.close()
	return dir
}

// notMapHook is a hook that decodes, but to a tuple.
var notMapHook = etf.Tuple{etf.Atom("envelope"), etf.Binary("t1")}
