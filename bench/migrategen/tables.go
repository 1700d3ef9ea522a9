package main

import (
	"fmt"
	"path/filepath"

	"github.com/ankusa/ankusa-store/internal/scratch"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// stagingPrefix names the directory in the new store that holds its table files until
// they are ingested (a scratch directory: on the store's file system, so the ingest links
// the files in instead of copying them; removed when the generator ends).
const stagingPrefix = "MIGRATEGEN-"

// tableStream writes one run of keys of a family, in key order, into table files of about
// o.tableBytes each (RocksDB's target_file_size_base, what the node's compactions write):
// a family is several of them side by side, none overlapping another, as a compacted
// family's last level is.
type tableStream struct {
	st    *store.Handle
	cf    string
	name  string // the files' names: name-0001.sst, ...
	dir   string
	limit uint64
	w     *rocks.SSTWriter
	files []string
}

func (t *tableStream) put(k, v []byte) error {
	if t.w == nil {
		w, err := t.st.NewSSTWriter(t.cf, filepath.Join(t.dir, fmt.Sprintf("%s-%04d.sst", t.name, len(t.files)+1)))
		if err != nil {
			return err
		}
		t.w = w
	}
	if err := t.w.Put(k, v); err != nil {
		return err
	}
	if t.w.FileSize() >= t.limit {
		return t.finish()
	}
	return nil
}

// finish completes the file being written, if any.
func (t *tableStream) finish() error {
	if t.w == nil {
		return nil
	}
	w := t.w
	t.w = nil
	if err := w.Finish(); err != nil {
		return err
	}
	t.files = append(t.files, w.Path)
	return nil
}

func (t *tableStream) close() {
	if t.w != nil {
		t.w.Close()
	}
}

// tables is the fast path: the stream's rows into table files and one ingest.
type tables struct {
	hookTables, deliveryTables                           *tableStream
	dueTables, inflightTables, deadTables, archiveTables *tableStream
	dueKeys, deadKeys                                    *sortedKeys
	// The hooks and deliveries, encoded and written beside the stream.
	hooks      *asyncTables[hookRow]
	deliveries *asyncTables[deliveryRow]
}

type hookRow struct {
	k   format.HookKey
	env format.Envelope
}

type deliveryRow struct {
	k format.DeliveryKey
	d format.Delivery
}

// tablesStats is what the tables method did, for its line on stderr and the test.
type tablesStats struct {
	files                   map[string][]string
	dueRuns, deadRuns       int
	dueSpilled, deadSpilled int
}

func writeTables(st *store.Handle, o options) (genCounts, tablesStats, error) {
	var stats tablesStats
	stage, err := scratch.New(st.Dir, stagingPrefix, "the table files of bench/migrategen's store, before their ingest")
	if err != nil {
		return genCounts{}, stats, err
	}
	defer stage.Remove()
	newStream := func(cf, name string) *tableStream {
		return &tableStream{st: st, cf: cf, name: name, dir: stage.Path, limit: o.tableBytes}
	}
	w := &tables{
		hookTables: newStream(format.CFHooks, format.CFHooks), deliveryTables: newStream(format.CFDeliveries, format.CFDeliveries),
		dueTables: newStream(format.CFIndex, format.FamDueV2.Name), inflightTables: newStream(format.CFIndex, format.FamInflightV2.Name),
		deadTables: newStream(format.CFIndex, format.FamDead.Name), archiveTables: newStream(format.CFIndex, format.FamArchive.Name),
		dueKeys: newSortedKeys("migrategen's due keys", o), deadKeys: newSortedKeys("migrategen's dead keys", o),
	}
	w.hooks = newAsyncTables(w.hookTables, func(r *hookRow) ([]byte, []byte) {
		return r.k.Encode(), format.EncodeEnvelope(r.env, false)
	})
	w.deliveries = newAsyncTables(w.deliveryTables, func(r *deliveryRow) ([]byte, []byte) {
		return r.k.Encode(), format.EncodeDelivery(r.d)
	})
	defer w.close()
	c, err := w.write(o)
	stats.dueRuns, stats.dueSpilled = w.dueKeys.nruns, w.dueKeys.spilled
	stats.deadRuns, stats.deadSpilled = w.deadKeys.nruns, w.deadKeys.spilled
	if err != nil {
		return c, stats, err
	}
	stats.files = w.files()
	return c, stats, st.IngestFileSets(stats.files)
}

// write draws the rows, then writes the sorted keys, every family's sentinels around its
// keys.
func (w *tables) write(o options) (genCounts, error) {
	sentinels := []struct {
		f format.Family
		t *tableStream
	}{{format.FamDueV2, w.dueTables}, {format.FamInflightV2, w.inflightTables}, {format.FamDead, w.deadTables}, {format.FamArchive, w.archiveTables}}
	for _, s := range sentinels {
		if err := s.t.put(s.f.Lo, nil); err != nil {
			return genCounts{}, err
		}
	}
	c, err := stream(o, w)
	if err == nil {
		err = w.hooks.finish()
	}
	if err == nil {
		err = w.deliveries.finish()
	}
	if err != nil {
		return c, err
	}
	err = w.dueKeys.each(func(at, seq uint64, sink uint16, size uint64) error {
		return w.dueTables.put(format.DueV2Key{At: at, Seq: seq, Sink: sink}.Encode(), format.EncodeSize(uint32(size)))
	})
	if err != nil {
		return c, err
	}
	err = w.deadKeys.each(func(at, seq uint64, sink uint16, id uint64) error {
		return w.deadTables.put(format.DeadKey{At: at, Seq: seq, Sink: sink}.Encode(), deadValue(id))
	})
	if err != nil {
		return c, err
	}
	for _, s := range sentinels {
		if err := s.t.put(s.f.Hi, nil); err != nil {
			return c, err
		}
	}
	for _, t := range w.all() {
		if err := t.finish(); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (w *tables) all() []*tableStream {
	return []*tableStream{w.hookTables, w.deliveryTables, w.archiveTables, w.dueTables, w.inflightTables, w.deadTables}
}

// files are the finished files by column family, each family's in key order.
func (w *tables) files() map[string][]string {
	out := map[string][]string{}
	for _, t := range w.all() {
		out[t.cf] = append(out[t.cf], t.files...)
	}
	return out
}

func (w *tables) close() {
	w.hooks.close()
	w.deliveries.close()
	for _, t := range w.all() {
		t.close()
	}
	w.dueKeys.close()
	w.deadKeys.close()
}

func (w *tables) hook(k format.HookKey, env format.Envelope) error {
	return w.hooks.add(hookRow{k, env})
}

func (w *tables) delivery(k format.DeliveryKey, d format.Delivery) error {
	return w.deliveries.add(deliveryRow{k, d})
}

func (w *tables) due(k format.DueV2Key, size uint32) error {
	return w.dueKeys.add(k.At, k.Seq, k.Sink, uint64(size))
}

func (w *tables) inflight(k format.InflightV2Key, size uint32) error {
	return w.inflightTables.put(k.Encode(), format.EncodeSize(size))
}

func (w *tables) dead(k format.DeadKey, id uint64) error {
	return w.deadKeys.add(k.At, k.Seq, k.Sink, id)
}

func (w *tables) archive(k format.ArchiveKey, size uint32) error {
	return w.archiveTables.put(k.Encode(), format.EncodeSize(size))
}

func (s tablesStats) count() int {
	n := 0
	for _, f := range s.files {
		n += len(f)
	}
	return n
}
