package sortjoin

// A page of dead letters is bounded in rows, which is all it needs while a
// row is a few KB. A hook of 100 KB, or a tenant id of a MiB that each row's
// hook repeats, made a page of 4,096 rows 400 MB to 4 GB: ByteGroups cuts
// the reads of such rows, by key or from a join, into groups of about a
// budget of bytes.

// byteGroupFirst is the most rows of the first group, read before anything
// says what a row takes.
const byteGroupFirst = 16

// ByteGroups sizes the groups in which rows' large values (an export's hooks)
// are read, from what each row is expected to take: twice its delivery row's
// size (the payload's, known before the read; read, then decoded), or what
// the last group's rows took on average, whichever is more. A value larger
// than both is read in a group that is that much larger than the budget,
// once: the next group is sized by it.
type ByteGroups struct {
	Budget int
	avg    int // what a row of the last group took; 0 before the first
	// The group being read: its rows and bytes so far (Saw).
	rows, bytes int
}

// Size is how many of the n rows left of a page the next group reads; size
// is the payload size of the i-th of them.
func (g *ByteGroups) Size(n int, size func(i int) uint64) int {
	if g.rows > 0 {
		g.avg, g.rows, g.bytes = g.bytes/g.rows, 0, 0
	}
	k, sum := 0, 0
	for k < n {
		if g.avg == 0 && k == byteGroupFirst {
			break
		}
		b := max(int(min(2*size(k), uint64(g.Budget))), g.avg)
		if k > 0 && sum+b > g.Budget {
			break
		}
		sum += b
		k++
	}
	return k
}

// Saw records what a row of the group took.
func (g *ByteGroups) Saw(b int) { g.rows, g.bytes = g.rows+1, g.bytes+b }
