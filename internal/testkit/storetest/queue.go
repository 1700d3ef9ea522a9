package storetest

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Queue builds a small store the way the node writes one, for the tests of
// the views (pkg/inspect) and of the comparison of two stores
// (pkg/storediff): every row with its delivery row and hook, format 3 rows
// with their markers, X companions and counter deltas (through
// format.Deltas, the same coalescer the migration uses), all in one batch.
type Queue struct {
	*Writer
	t     testing.TB
	Dir   string
	Hooks map[uint64]bool // the seqs whose hook is written
	// Live, if set, is a store open read-write that Commit writes to (the
	// property tests reuse one store across cases instead of creating one per
	// case).
	Live *rocks.Store
	seq  uint64 // last seq handed out by NextSeq
}

// NextSeq hands out hook seqs that are unique in the store.
func (s *Queue) NextSeq() uint64 {
	s.seq++
	return s.seq
}

// NewQueue creates an empty store of the given format in a temporary
// directory (closed again) and starts its rows.
func NewQueue(t testing.TB, storeFormat uint32) *Queue {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	Create(t, dir, storeFormat, rocks.Tuning{}).Close()
	return &Queue{Writer: NewWriter(storeFormat), t: t, Dir: dir, Hooks: map[uint64]bool{}}
}

// Erase tombstones a tenant as TEN-5 does: the t row stays, empty.
func (s *Queue) Erase(tenant string) {
	o := s.Ord(tenant)
	s.B.Put(format.CFTenants, format.TenantByOrdKey{Ord: o}.Encode(), nil)
	s.B.Delete(format.CFTenants, format.OrdByTenantKey{Tenant: tenant}.Encode())
}

// Hook writes the envelope of seq once; tenant "default" is written as nil.
func (s *Queue) Hook(seq uint64, tenant string) {
	if s.Hooks[seq] {
		return
	}
	s.Hooks[seq] = true
	e := format.Envelope{ID: []byte(HookID(seq)), SourceID: []byte("src-" + tenant), TenantID: []byte(tenant), ReceivedAt: 1}
	if tenant == format.DefaultTenant {
		e.TenantNil = true
	}
	s.B.Put(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(e, seq%2 == 0))
}

// HookID is the id Hook gives the hook of seq.
func HookID(seq uint64) string {
	return "hook-" + string(rune('a'+seq%26)) + "-" + strconv.FormatUint(seq, 10)
}

// Delivery writes the delivery row of seq to sink.
func (s *Queue) Delivery(seq uint64, sink uint16, status string, size uint64, lastErr string) {
	d := format.Delivery{Sink: sink, Status: status, Attempts: 1, Size: size, LastErrorNil: lastErr == ""}
	if lastErr != "" {
		d.LastError = []byte(lastErr)
	}
	s.B.Put(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: sink}.Encode(), format.EncodeDelivery(d))
}

// Due writes a due row of the tenant with its hook and delivery row (format 3:
// its active marker and counters too).
func (s *Queue) Due(tenant string, at, seq uint64, sink uint16, size uint32, kind uint8) {
	s.Hook(seq, tenant)
	s.Delivery(seq, sink, format.StatusDue, uint64(size), "")
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

// Inflight writes an in-flight row, as Due writes a due one.
func (s *Queue) Inflight(tenant string, seq uint64, sink uint16, size uint32) {
	s.Hook(seq, tenant)
	s.Delivery(seq, sink, format.StatusInflight, uint64(size), "")
	if s.Format == format.Format2 {
		s.B.Put(format.CFIndex, format.InflightV2Key{Seq: seq, Sink: sink}.Encode(), format.EncodeSize(size))
		return
	}
	o := s.Ord(tenant)
	s.B.Put(format.CFIndex, format.InflightKey{Ord: o, Seq: seq, Sink: sink}.Encode(), format.EncodeSize(size))
	s.Deltas.Add(o, format.FieldInflight, 1)
	s.Deltas.Add(o, format.FieldBytes, int64(size))
}

// Dead writes a dead letter, as Due writes a due row (format 3: its X
// companion).
func (s *Queue) Dead(tenant string, at, seq uint64, sink uint16, size uint64, lastErr string) {
	s.Hook(seq, tenant)
	s.Delivery(seq, sink, format.StatusDead, size, lastErr)
	k := format.DeadKey{At: at, Seq: seq, Sink: sink}
	v := format.DeadValue{SourceID: []byte("src-" + tenant), ID: []byte(HookID(seq))}
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

// Archive writes an archive row, as Due writes a due row.
func (s *Queue) Archive(tenant string, seq uint64, size uint32) {
	s.Hook(seq, tenant)
	if s.Format == format.Format2 {
		s.B.Put(format.CFIndex, format.ArchiveKey{Seq: seq}.Encode(), format.EncodeSize(size))
		return
	}
	o := s.Ord(tenant)
	s.B.Put(format.CFIndex, format.ArchiveKey{Seq: seq}.Encode(), format.ArchiveValue{Size: size, Ord: o, HasOrd: true}.Encode())
	s.Deltas.Add(o, format.FieldArchivePending, 1)
}

// Marker writes an active marker with no due row behind it (a stale one).
func (s *Queue) Marker(tenant string, bucket uint64) {
	s.B.Put(format.CFIndex, format.ActiveKey{Bucket: bucket, Ord: s.Ord(tenant)}.Encode(), nil)
}

// Raw puts any key, for strays and corruption.
func (s *Queue) Raw(cf string, k, v []byte) { s.B.Put(cf, k, v) }

// Merge adds a raw merge operand to a counters key.
func (s *Queue) Merge(k, operand []byte) { s.B.Merge(format.CFCounters, k, operand) }

// Open commits what was built and opens the store read-only, as the views do.
func (s *Queue) Open() *rocks.Store {
	s.t.Helper()
	s.Commit()
	return OpenReadOnly(s.t, s.Dir)
}

// OpenLive opens the store read-write for the rest of the test; Commit then
// writes to it and the views read it through the returned handle.
func (s *Queue) OpenLive() *rocks.Store {
	s.t.Helper()
	st, err := rocks.OpenStore(s.Dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		s.t.Fatalf("open: %v", err)
	}
	s.t.Cleanup(func() { st.Close() })
	s.Live = st
	s.Commit()
	return st
}

// Commit writes the batch, counter deltas and m:next_ord (Writer.Commit) to
// the live store, or to the store opened read-write for it.
func (s *Queue) Commit() {
	s.t.Helper()
	st := s.Live
	if st == nil {
		var err error
		if st, err = rocks.OpenStore(s.Dir, rocks.Options{Mode: rocks.ReadWrite}); err != nil {
			s.t.Fatalf("open: %v", err)
		}
		defer st.Close()
	}
	s.Writer.Commit(s.t, st, true)
}

// QueueNow is the fixed now of the tests that build a Queue: their rows are
// dated from it (QueueMS) and the views are asked at it, so that ages and
// cursors come out the same on every run.
var QueueNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// QueueMS is QueueNow moved by d, as a store time (milliseconds since the
// epoch).
func QueueMS(d time.Duration) uint64 { return uint64(QueueNow.Add(d).UnixMilli()) }
