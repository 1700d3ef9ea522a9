package tenantjoin

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// stashed is a row as the test adds it: its id, row and key, and the order
// it was added in.
type stashed struct {
	name string
	row  StashRow
	key  uint64
	i    int
}

// stashRow is the i-th row of a test: every field set, some negative.
func stashRow(i int) StashRow {
	r := StashRow{Ord: uint32(i + 1), Erased: i%5 == 0}
	if i%3 == 0 {
		r.Due, r.HasDue = uint64(i)<<40, true
	}
	for f := range r.Counters {
		r.Counters[f] = int64(i*f) - 7
	}
	return r
}

// check compares the stash's entries, in order, with want: each one's id and
// row read back from its ref.
func check(t interface{ Fatalf(string, ...any) }, s *Stash, want []stashed, how string) {
	got := s.Entries()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries, want %d", how, len(got), len(want))
	}
	for i, e := range got {
		w := want[i]
		if name := string(s.Name(e.Ref)); name != w.name {
			t.Fatalf("%s: entry %d is %.40q, want %.40q (added %d)", how, i, name, w.name, w.i)
		}
		if r := s.Row(e.Ref); r != w.row {
			t.Fatalf("%s: entry %d (%.40q) holds %+v, want %+v", how, i, w.name, r, w.row)
		}
	}
}

// A stash hands back every row's id and fields as they were added, sorted by
// key or by id as a stable sort orders them (ids that are prefixes of others,
// share their first bytes by sevens, or are empty, as a tombstone's), over
// the blocks' boundaries.
func TestStashSortsAsAStableSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		stems := []string{"", "a", "acme", "acme-co", "acme-corp", "acme-corporation", "\xff\xfe", "b"}
		var s Stash
		var rows []stashed
		for i := range rapid.IntRange(0, 200).Draw(t, "rows") {
			name := rapid.SampledFrom(stems).Draw(t, "stem") + strings.Repeat("x", rapid.IntRange(0, 9).Draw(t, "tail"))
			r := stashed{name: name, row: stashRow(i), key: rapid.Uint64Range(0, 20).Draw(t, "key"), i: i}
			s.Add(r.name, &r.row, r.key)
			rows = append(rows, r)
		}
		check(t, &s, rows, "as added")
		byKey := slices.Clone(rows)
		slices.SortStableFunc(byKey, func(a, b stashed) int { return cmp.Compare(a.key, b.key) })
		s.SortByKey()
		check(t, &s, byKey, "by key")
		s.SortByName()
		// SortByName sorts what the last sort left: equal ids in key order.
		slices.SortStableFunc(byKey, func(a, b stashed) int { return strings.Compare(a.name, b.name) })
		check(t, &s, byKey, "by name")
	})
}

// Rows far larger than what is left of a block start a new one, and a row
// larger than a block gets a block of its own: each is read back whole.
func TestStashRowsCrossBlocks(t *testing.T) {
	var s Stash
	var rows []stashed
	for i := range 3000 {
		size := 1000
		if i%1000 == 999 {
			size = stashBlock + 10
		}
		r := stashed{name: fmt.Sprintf("%06d", i) + strings.Repeat("n", size), row: stashRow(i), i: i}
		s.Add(r.name, &r.row, 0)
		rows = append(rows, r)
	}
	if len(s.blocks) < 6 {
		t.Fatalf("%d blocks: the rows did not cross them", len(s.blocks))
	}
	check(t, &s, rows, "as added")
	s.SortByName()
	check(t, &s, rows, "by name")
}
