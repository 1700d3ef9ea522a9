package health

import "github.com/ankusa/ankusa-store/internal/runs"

// sizes are the bounds of a fold's batches, chunks, passes and tables. Each field's own
// comment says why it is what tunedSizes makes it; a test makes them tiny (FoldOptions.sizes,
// VerifyOptions.sizes) so that a store of a few hundred rows crosses every batch, pass and
// spill boundary a store of 10^8 rows does. Nothing but tests sets them.
type sizes struct {
	// markers bounds the markers of a batch (8 bytes each).
	markers int
	// dead bounds the dead rows of a batch (16 bytes each).
	dead int
	// runBatches is how many full batches' bytes a join's runs may hold in memory before
	// a pass must empty them: at the default budgets 32 MiB of markers and 32 MiB of dead
	// rows, some ten million elements each. (0 is a pass per batch, as verify did before
	// runs.)
	runBatches int
	// deliveryChunk is the delivery rows one hooks join reads the hooks of (8 bytes each;
	// three chunks exist at once, 6 MiB): every chunk costs a pause of the deliveries
	// scan and a seek into hooks, each tens of milliseconds on a store whose recent writes
	// are in memtables, so a chunk is a quarter of a million rows. At 2^20 the three were
	// 24 MiB of a 10^8-row verify's heap, which the collector let grow to twice that.
	deliveryChunk int
	// probeChunk is the keys one multi-get reads (a tenant's probes, its dead rows' sizes,
	// the keys whose presence a finding needs).
	probeChunk int
	// reconLogCells is log2 of the cells per partition: 3 x 4096 cells of 64 bytes (768
	// KiB) list a difference of up to about 9,900 elements.
	reconLogCells int
	// reconBudget bounds the elements one pass of reconExact holds in memory (about 50
	// MiB of map).
	reconBudget int
	// ordAdds is the adds held before they are applied: 2 MiB, and the grouping's copy as
	// much again.
	ordAdds int
	// runs bound the joins' sorted runs: the bytes kept in memory before they spill to
	// $TMPDIR (a test spills every run) and a spilled run's read buffer.
	runs runs.Limits
}

// tunedSizes are the bounds every run but a test's uses.
func tunedSizes() *sizes {
	return &sizes{
		markers:       1 << 20,
		dead:          1 << 20,
		runBatches:    2,
		deliveryChunk: 1 << 18,
		probeChunk:    4096,
		reconLogCells: 12,
		reconBudget:   1 << 20,
		ordAdds:       1 << 18,
		runs:          runs.DefaultLimits(),
	}
}

// orTuned is sz, or the tuned sizes where the options held none.
func orTuned(sz *sizes) *sizes {
	if sz == nil {
		return tunedSizes()
	}
	return sz
}

// markerRunBytes bounds the bytes of the markers' packed runs.
func (sz *sizes) markerRunBytes() int { return sz.runBatches * 16 * sz.markers }

// deadRunBytes bounds the bytes of the dead rows' packed runs.
func (sz *sizes) deadRunBytes() int { return sz.runBatches * 16 * sz.dead }
