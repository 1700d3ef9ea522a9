package inspect

import (
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// viewStore builds a small store for the view tests the way the node writes
// one: every row with its delivery row and hook, format 3 rows with their
// markers, X companions and counter deltas (through format.Deltas, the same
// coalescer the migration uses), all in one batch.
type viewStore struct {
	*storetest.Writer
	t     testing.TB
	dir   string
	hooks map[uint64]bool
	// live, if set, is a store open read-write that commit writes to (the
	// property tests reuse one store across cases instead of creating one per
	// case).
	live *rocks.Store
	seq  uint64 // last seq handed out by nextSeq
}

// nextSeq hands out hook seqs that are unique in the store.
func (s *viewStore) nextSeq() uint64 {
	s.seq++
	return s.seq
}

func newViewStore(t testing.TB, storeFormat uint32) *viewStore {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	storetest.Create(t, dir, storeFormat, rocks.Tuning{}).Close()
	return &viewStore{Writer: storetest.NewWriter(storeFormat), t: t, dir: dir, hooks: map[uint64]bool{}}
}

// erase tombstones a tenant as TEN-5 does: the t row stays, empty.
func (s *viewStore) erase(tenant string) {
	o := s.Ord(tenant)
	s.B.Put(format.CFTenants, format.TenantByOrdKey{Ord: o}.Encode(), nil)
	s.B.Delete(format.CFTenants, format.OrdByTenantKey{Tenant: tenant}.Encode())
}

// hook writes the envelope of seq once; tenant "default" is written as nil.
func (s *viewStore) hook(seq uint64, tenant string) {
	if s.hooks[seq] {
		return
	}
	s.hooks[seq] = true
	e := format.Envelope{ID: []byte(viewHookID(seq)), SourceID: []byte("src-" + tenant), TenantID: []byte(tenant), ReceivedAt: 1}
	if tenant == format.DefaultTenant {
		e.TenantNil = true
	}
	s.B.Put(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(e, seq%2 == 0))
}

func viewHookID(seq uint64) string { return "hook-" + string(rune('a'+seq%26)) + "-" + viewItoa(seq) }

func viewItoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

func (s *viewStore) delivery(seq uint64, sink uint16, status string, size uint64, lastErr string) {
	d := format.Delivery{Sink: sink, Status: status, Attempts: 1, Size: size, LastErrorNil: lastErr == ""}
	if lastErr != "" {
		d.LastError = []byte(lastErr)
	}
	s.B.Put(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: sink}.Encode(), format.EncodeDelivery(d))
}

func (s *viewStore) due(tenant string, at, seq uint64, sink uint16, size uint32, kind uint8) {
	s.hook(seq, tenant)
	s.delivery(seq, sink, format.StatusDue, uint64(size), "")
	if s.Format == format.Format2 {
		s.B.Put(format.CFIndex, format.DueV2Key{At: at, Seq: seq, Sink: sink}.Encode(), format.EncodeSize(size))
		return
	}
	o := s.Ord(tenant)
	k := format.DueKey{Ord: o, At: at, Seq: seq, Sink: sink}
	s.B.Put(format.CFIndex, k.Encode(), format.DueValue{Size: size, Kind: kind}.Encode())
	s.B.Put(format.CFIndex, k.ActiveKey().Encode(), nil)
	s.Deltas.Add(o, format.DueValue{Kind: kind}.Field(), 1)
	s.Deltas.Add(o, format.FieldBytes, int64(size))
}

func (s *viewStore) inflight(tenant string, seq uint64, sink uint16, size uint32) {
	s.hook(seq, tenant)
	s.delivery(seq, sink, format.StatusInflight, uint64(size), "")
	if s.Format == format.Format2 {
		s.B.Put(format.CFIndex, format.InflightV2Key{Seq: seq, Sink: sink}.Encode(), format.EncodeSize(size))
		return
	}
	o := s.Ord(tenant)
	s.B.Put(format.CFIndex, format.InflightKey{Ord: o, Seq: seq, Sink: sink}.Encode(), format.EncodeSize(size))
	s.Deltas.Add(o, format.FieldInflight, 1)
	s.Deltas.Add(o, format.FieldBytes, int64(size))
}

func (s *viewStore) dead(tenant string, at, seq uint64, sink uint16, size uint64, lastErr string) {
	s.hook(seq, tenant)
	s.delivery(seq, sink, format.StatusDead, size, lastErr)
	k := format.DeadKey{At: at, Seq: seq, Sink: sink}
	v := format.DeadValue{SourceID: []byte("src-" + tenant), ID: []byte(viewHookID(seq))}
	if s.Format == format.Format2 {
		s.B.Put(format.CFIndex, k.Encode(), v.Encode())
		return
	}
	o := s.Ord(tenant)
	v.Ord, v.HasOrd = o, true
	s.B.Put(format.CFIndex, k.Encode(), v.Encode())
	s.B.Put(format.CFIndex, k.ByTenant(o).Encode(), nil)
	s.Deltas.Add(o, format.FieldDead, 1)
	s.Deltas.Add(o, format.FieldBytes, int64(size))
}

func (s *viewStore) archive(tenant string, seq uint64, size uint32) {
	s.hook(seq, tenant)
	if s.Format == format.Format2 {
		s.B.Put(format.CFIndex, format.ArchiveKey{Seq: seq}.Encode(), format.EncodeSize(size))
		return
	}
	o := s.Ord(tenant)
	s.B.Put(format.CFIndex, format.ArchiveKey{Seq: seq}.Encode(), format.ArchiveValue{Size: size, Ord: o, HasOrd: true}.Encode())
	s.Deltas.Add(o, format.FieldArchivePending, 1)
}

// marker writes an active marker with no due row behind it (a stale one).
func (s *viewStore) marker(tenant string, bucket uint64) {
	s.B.Put(format.CFIndex, format.ActiveKey{Bucket: bucket, Ord: s.Ord(tenant)}.Encode(), nil)
}

// raw puts any key, for strays and corruption.
func (s *viewStore) raw(cf string, k, v []byte) { s.B.Put(cf, k, v) }

// merge adds a raw merge operand to a counters key.
func (s *viewStore) merge(k, operand []byte) { s.B.Merge(format.CFCounters, k, operand) }

// open commits what was built and opens the store read-only, as the views do.
func (s *viewStore) open() *rocks.Store {
	s.t.Helper()
	s.commit()
	st, err := rocks.OpenStore(s.dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		s.t.Fatalf("open read-only: %v", err)
	}
	s.t.Cleanup(func() { st.Close() })
	return st
}

// openLive opens the store read-write for the rest of the test; commit then
// writes to it and the views read it through the returned handle.
func (s *viewStore) openLive() *rocks.Store {
	s.t.Helper()
	st, err := rocks.OpenStore(s.dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		s.t.Fatalf("open: %v", err)
	}
	s.t.Cleanup(func() { st.Close() })
	s.live = st
	s.commit()
	return st
}

// commit writes the batch, counter deltas and m:next_ord.
func (s *viewStore) commit() {
	s.t.Helper()
	st := s.live
	if st == nil {
		var err error
		if st, err = rocks.OpenStore(s.dir, rocks.Options{Mode: rocks.ReadWrite}); err != nil {
			s.t.Fatalf("open: %v", err)
		}
		defer st.Close()
	}
	s.Commit(s.t, st, true)
}
