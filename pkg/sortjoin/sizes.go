package sortjoin

import "github.com/ankusa/ankusa-store/internal/runs"

// Sizes are the join's sizes and thresholds. The tests make them small, so
// that a fixture of a few dozen rows takes every way a large walk does; the
// zero Sizes is DefaultSizes.
type Sizes struct {
	// JoinMin is the fewest lookups (of one family) an automatic join
	// joins: a smaller walk reads by key in less time than the passes take.
	JoinMin int
	// LocalPages is how many pages an automatic join looks at before it
	// decides that the rows lie in their hooks' order (Plan.local).
	LocalPages int
	// WindowMax is the most bytes of values the join holds for one family at
	// a time; a bucket larger than that is split.
	WindowMax int
	// PlanBatch is how many keys the plan sorts into one run (3 MiB a
	// family, the three held at once): at 10^8 rows some 200 runs a family,
	// whose merge reads each through a buffer of its own (Runs.ReadBuf, 13
	// MiB in all). 2^19 took dlq export at 10^6 tenants from 72 to 142 MiB.
	PlanBatch int
	// GatherSkip is how many keys the gather reads past, between two keys
	// wanted, before it seeks to the next one instead.
	GatherSkip int
	// GatherCheck is how many keys the gather reads between two looks at its
	// context.
	GatherCheck int
	// SizeSample is how many values the gather reads before it buckets a
	// family's positions by their size (spillSizer), or fewer, once they
	// hold half of WindowMax.
	SizeSample int
	// BucketsMax is the most buckets of one family: each holds a pending
	// segment while the gather runs (32 MiB at the most).
	BucketsMax uint64
	// BucketMax is the most positions in a bucket, unless that would make
	// more than BucketsMax buckets: read back, a bucket holds a record's
	// place per position (64 bytes).
	BucketMax uint64
	// Segment is the bytes a bucket gathers before they are written.
	Segment int
	// Runs bound the plan's sorted runs: the bytes kept in memory before
	// they spill to $TMPDIR, and a spilled run's read buffer (the zero
	// Limits, runs.DefaultLimits).
	Runs runs.Limits
}

// DefaultSizes is the sizes a walk is joined with.
func DefaultSizes() Sizes {
	return Sizes{
		JoinMin:     64 << 10,
		LocalPages:  4,
		WindowMax:   16 << 20,
		PlanBatch:   1 << 17,
		GatherSkip:  64,
		GatherCheck: 1024,
		SizeSample:  1024,
		BucketsMax:  2048,
		BucketMax:   1 << 17,
		Segment:     16 << 10,
		Runs:        runs.DefaultLimits(),
	}
}

// orDefault is s, or DefaultSizes for the zero Sizes.
func (s Sizes) orDefault() *Sizes {
	if s == (Sizes{}) {
		s = DefaultSizes()
	}
	return &s
}
