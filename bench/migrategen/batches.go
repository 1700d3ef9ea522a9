package main

import (
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// batchRows is how many writes a batch of the slow path holds.
const batchRows = 20_000

// batches writes the rows through RocksDB's write path, unsynced batches of batchRows: the
// way this generator always wrote, kept as the slow path that the tables are checked
// against. 10^7 rows took 12m54s on a 2-core machine, most of it in the flushes and
// compactions of what the memtables took.
type batches struct {
	st *store.Handle
	b  *rocks.Batch
}

func writeBatches(st *store.Handle, o options) (genCounts, error) {
	w := &batches{st: st, b: rocks.NewBatch()}
	for _, f := range format.FamiliesOf(format.Format2) {
		w.b.Put(f.CF, f.Lo, nil)
		w.b.Put(f.CF, f.Hi, nil)
	}
	c, err := stream(o, w)
	if err == nil {
		err = w.flush(true)
	}
	return c, err
}

func (w *batches) put(cf string, k, v []byte) error {
	w.b.Put(cf, k, v)
	return w.flush(false)
}

func (w *batches) flush(force bool) error {
	if w.b.Count() < batchRows && !force {
		return nil
	}
	err := w.st.Write(w.b, false)
	w.b.Clear()
	return err
}

func (w *batches) hook(k format.HookKey, env format.Envelope) error {
	return w.put(format.CFHooks, k.Encode(), format.EncodeEnvelope(env, false))
}

func (w *batches) delivery(k format.DeliveryKey, d format.Delivery) error {
	return w.put(format.CFDeliveries, k.Encode(), format.EncodeDelivery(d))
}

func (w *batches) due(k format.DueV2Key, size uint32) error {
	return w.put(format.CFIndex, k.Encode(), format.EncodeSize(size))
}

func (w *batches) inflight(k format.InflightV2Key, size uint32) error {
	return w.put(format.CFIndex, k.Encode(), format.EncodeSize(size))
}

func (w *batches) dead(k format.DeadKey, id uint64) error {
	return w.put(format.CFIndex, k.Encode(), deadValue(id))
}

func (w *batches) archive(k format.ArchiveKey, size uint32) error {
	return w.put(format.CFIndex, k.Encode(), format.EncodeSize(size))
}
