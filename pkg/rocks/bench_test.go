package rocks

import (
	"bytes"
	"encoding/binary"
	"os"
	"sync"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/ankusa/ankusa-store/pkg/format"
)

const benchKeys = 1_000_000

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchStore builds, once per test binary run, a format 3 store whose due
// family holds benchKeys rows (23-byte keys, 5-byte values), flushed and
// compacted like a settled node store.
func benchStore(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "ankusa-rocks-bench-")
		if benchErr != nil {
			return
		}
		dir := benchDir + "/store"
		st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, Tune: BulkTuning})
		if err != nil {
			benchErr = err
			return
		}
		defer st.Close()
		batch := NewBatch()
		batch.Put(format.CFIndex, format.FamDue.Lo, nil)
		batch.Put(format.CFIndex, format.FamDue.Hi, nil)
		k := make([]byte, 0, 23)
		for i := 0; i < benchKeys; i++ {
			k = append(k[:0], 'D')
			k = binary.BigEndian.AppendUint32(k, uint32(i%1000+1))
			k = binary.BigEndian.AppendUint64(k, uint64(1_700_000_000_000+i))
			k = binary.BigEndian.AppendUint64(k, uint64(i))
			k = binary.BigEndian.AppendUint16(k, uint16(i%3))
			batch.Put(format.CFIndex, k, []byte{0, 0, 4, 0, byte(i % 2)})
			if batch.Count() == 100_000 {
				if benchErr = st.Write(batch, false); benchErr != nil {
					return
				}
				batch.Clear()
			}
		}
		if benchErr = st.Write(batch, false); benchErr != nil {
			return
		}
		if benchErr = st.Flush(format.CFIndex); benchErr != nil {
			return
		}
		benchErr = st.CompactRange(format.CFIndex)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir + "/store"
}

// BenchmarkFold folds 10^6 rows of one family; compare keys/s with
// `db_bench --benchmarks=readseq` (bench/fold_vs_dbbench.sh).
func BenchmarkFold(b *testing.B) {
	db, err := Open(benchStore(b), Options{Mode: ReadOnly})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.ResetTimer()
	total := 0
	for i := 0; i < b.N; i++ {
		n := 0
		var sum uint64
		err := db.Fold(format.FamDue, ReadOpts{}, func(k, v []byte) error {
			n++
			sum += uint64(v[4])
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if n != benchKeys {
			b.Fatalf("folded %d keys", n)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "keys/s")
}

// BenchmarkScanExisting scans the default family of the RocksDB in
// $ANKUSA_BENCH_DB (the one db_bench just built and read with readseq), so
// that the ratio compares the same files.
func BenchmarkScanExisting(b *testing.B) {
	dir := os.Getenv("ANKUSA_BENCH_DB")
	if dir == "" {
		b.Skip("ANKUSA_BENCH_DB not set (bench/fold_vs_dbbench.sh sets it)")
	}
	db, err := Open(dir, Options{Mode: ReadOnly})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.ResetTimer()
	total := 0
	for i := 0; i < b.N; i++ {
		n, nbytes := 0, 0
		err := db.Scan(format.CFDefault, nil, nil, ReadOpts{FillCache: true}, func(k, v []byte) error {
			n++
			nbytes += len(k) + len(v)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "keys/s")
}

// BenchmarkFoldPlainGrocksdb is the baseline the batched iterator replaces:
// grocksdb's Valid/Key/Value/Next, four cgo calls a key.
func BenchmarkFoldPlainGrocksdb(b *testing.B) {
	db, err := Open(benchStore(b), Options{Mode: ReadOnly})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	h := db.cfs[format.CFIndex].h
	b.ResetTimer()
	total := 0
	for i := 0; i < b.N; i++ {
		ro := grocksdb.NewDefaultReadOptions()
		ro.SetFillCache(false)
		ro.SetIterateUpperBound(append(bytes.Clone(format.FamDue.Hi), 0))
		it := db.db.NewIteratorCF(ro, h)
		n := 0
		var sum uint64
		for it.Seek(format.FamDue.Lo); it.Valid(); it.Next() {
			k, v := it.Key(), it.Value()
			if !format.FamDue.IsSentinel(k.Data()) {
				n++
				sum += uint64(v.Data()[4])
			}
			k.Free()
			v.Free()
		}
		it.Close()
		ro.Destroy()
		if n != benchKeys {
			b.Fatalf("folded %d keys", n)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "keys/s")
}
