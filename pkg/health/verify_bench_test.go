package health

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Verify against a raw fold of the same families, in the same run: the
// raw fold is what reading them costs (rocks.Scan, no decoding, no checks),
// so the ratio is what verify adds. bench/verify_bench.sh runs these on a
// store of a million rows (ANKUSA_VERIFY_BENCH_STORE); without it they run
// on the committed v3 fixture.

func vtBenchStore(b *testing.B) *rocks.Store {
	dir := os.Getenv("ANKUSA_VERIFY_BENCH_STORE")
	if dir == "" {
		dir = vtFixture(b, format.Format3)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// rawFold scans every family verify reads, whole, and counts the keys.
func rawFold(st *rocks.Store) (int64, error) {
	var n int64
	count := func(_, _ []byte) error { n++; return nil }
	for _, f := range format.FamiliesOf(format.Format3) {
		if err := st.Scan(f.CF, f.Lo, f.PrefixEnd(), rocks.ReadOpts{}, count); err != nil {
			return n, err
		}
	}
	for _, cf := range []string{format.CFDeliveries, format.CFHooks} {
		if err := st.Scan(cf, nil, nil, rocks.ReadOpts{}, count); err != nil {
			return n, err
		}
	}
	return n, nil
}

func BenchmarkRawFold(b *testing.B) {
	st := vtBenchStore(b)
	var keys int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n, err := rawFold(st)
		if err != nil {
			b.Fatal(err)
		}
		keys += n
	}
	b.ReportMetric(float64(keys)/b.Elapsed().Seconds(), "keys/s")
}

// heapPeak samples the Go heap while a benchmark runs: what verify holds
// itself, apart from RocksDB's memory (memtables, blocks), which the
// command's peak RSS includes.
func heapPeak(b *testing.B) func() {
	done, finished := make(chan struct{}), make(chan struct{})
	var peak uint64
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	}
}

func BenchmarkVerify(b *testing.B) {
	st := vtBenchStore(b)
	var keys int64
	runtime.GC()
	b.ResetTimer()
	defer heapPeak(b)()
	for i := 0; i < b.N; i++ {
		rep, err := Verify(context.Background(), st, VerifyOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Healthy {
			b.Fatalf("verify: %s", rep.Summary())
		}
		keys += rep.Keys
	}
	b.ReportMetric(float64(keys)/b.Elapsed().Seconds(), "keys/s")
}

func BenchmarkFold(b *testing.B) {
	st := vtBenchStore(b)
	var keys int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := Fold(context.Background(), st, FoldOptions{})
		if err != nil {
			b.Fatal(err)
		}
		keys += f.Keys
	}
	b.ReportMetric(float64(keys)/b.Elapsed().Seconds(), "keys/s")
}
