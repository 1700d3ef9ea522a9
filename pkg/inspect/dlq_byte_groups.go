package inspect

// A page of dead letters is bounded in rows, which is all it needs while a
// row is a few KB. A hook of 100 KB, or a tenant id of a MiB that each row's
// hook repeats, made a page of 4,096 rows 400 MB to 4 GB: byteGroups cuts
// the reads of such rows into groups of about a budget of bytes.

// byteGroupFirst is the most rows of the first group, read before anything
// says what a row takes.
const byteGroupFirst = 16

// byteGroups sizes the groups in which rows' large values (an export's hooks)
// are read, from what each row is expected to take: twice its delivery row's
// size (the payload's, known before the read; read, then decoded), or what
// the last group's rows took on average, whichever is more. A value larger than both is read in a group
// that is that much larger than the budget, once: the next group is sized by
// it.
type byteGroups struct {
	budget int
	avg    int // what a row of the last group took; 0 before the first
	// The group being read: its rows and bytes so far (saw).
	rows, bytes int
}

// size is how many of rows (the rest of a page) the next group reads.
func (g *byteGroups) size(rows []DLQRow) int {
	if g.rows > 0 {
		g.avg, g.rows, g.bytes = g.bytes/g.rows, 0, 0
	}
	n, sum := 0, 0
	for n < len(rows) {
		if g.avg == 0 && n == byteGroupFirst {
			break
		}
		b := max(int(min(2*rows[n].Size, uint64(g.budget))), g.avg)
		if n > 0 && sum+b > g.budget {
			break
		}
		sum += b
		n++
	}
	return n
}

// saw records what a row of the group took.
func (g *byteGroups) saw(b int) { g.rows, g.bytes = g.rows+1, g.bytes+b }

// dlqRowBytes is about what a dead letter's row holds beside its hook: its
// text fields and the row itself.
func dlqRowBytes(r *DLQRow) int {
	n := 256 + len(r.Tenant) + len(r.SourceID) + len(r.HookID) + len(r.Ref)
	if r.LastError != nil {
		n += len(*r.LastError)
	}
	for _, p := range r.Problems {
		n += len(p)
	}
	return n
}
