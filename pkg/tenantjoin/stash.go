package tenantjoin

import (
	"encoding/binary"

	"github.com/ankusa/ankusa-store/internal/radix"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// A sorted listing needs every tenant before its first row, and a row as a
// view holds it is some 250 bytes (its counters' error slots, pointers, a
// string header): at 10^6 tenants --sort held 370-420 MB. Stash keeps each
// row as a few bytes instead (its id, its counters and oldest due row as
// varints) in blocks, and sorts 16-byte entries (the sort key and where the
// row is) with the radix sort: about 30 bytes a tenant beside its id.

// stashBlock is the size of the blocks records are appended to: big enough
// that a block's header costs nothing, small enough that the last one's room
// does not matter.
const stashBlock = 1 << 20

// StashRow is what a Stash keeps of a tenant beside its id.
type StashRow struct {
	Ord    uint32
	Erased bool
	// Counters are its six counters, in the order of format.Fields.
	Counters [format.NumFields]int64
	// Due is the `at` of its oldest due row, when HasDue.
	Due    uint64
	HasDue bool
}

const (
	stashErased = 1 << iota
	stashHasDue
)

// Stash holds rows, in the order they are added.
type Stash struct {
	blocks  [][]byte
	entries []Entry
}

// Entry is one row: its sort key, and Ref, its block and offset (refs grow
// with the order rows are added in).
type Entry struct{ Key, Ref uint64 }

// Add keeps r, the row of tenant name, sorted by key (SortByKey, smallest
// first), and returns its Ref.
func (s *Stash) Add(name string, r *StashRow, key uint64) uint64 {
	var rec [10 + 1 + 5 + format.NumFields*10 + 10]byte
	b := binary.AppendUvarint(rec[:0], uint64(len(name)))
	flags := byte(0)
	if r.Erased {
		flags |= stashErased
	}
	if r.HasDue {
		flags |= stashHasDue
	}
	tail := append(rec[len(b):len(b)], flags)
	tail = binary.AppendUvarint(tail, uint64(r.Ord))
	for _, v := range r.Counters {
		tail = binary.AppendVarint(tail, v)
	}
	if r.HasDue {
		tail = binary.AppendUvarint(tail, r.Due)
	}
	n := len(b) + len(name) + len(tail)
	if len(s.blocks) == 0 || cap(s.blocks[len(s.blocks)-1])-len(s.blocks[len(s.blocks)-1]) < n {
		s.blocks = append(s.blocks, make([]byte, 0, max(stashBlock, n)))
	}
	bi := len(s.blocks) - 1
	blk := s.blocks[bi]
	ref := uint64(bi)<<32 | uint64(len(blk))
	blk = append(blk, b...)
	blk = append(blk, name...)
	s.blocks[bi] = append(blk, tail...)
	s.entries = append(s.entries, Entry{key, ref})
	return ref
}

// Entries are the rows in the order of the last sort (or added).
func (s *Stash) Entries() []Entry { return s.entries }

// Name is the tenant id of the row at ref, in place.
func (s *Stash) Name(ref uint64) []byte {
	blk := s.blocks[ref>>32][uint32(ref):]
	l, n := binary.Uvarint(blk)
	return blk[n : n+int(l)]
}

// Row is the row at ref.
func (s *Stash) Row(ref uint64) StashRow {
	blk := s.blocks[ref>>32][uint32(ref):]
	l, n := binary.Uvarint(blk)
	p := n + int(l)
	flags := blk[p]
	p++
	ord, n := binary.Uvarint(blk[p:])
	p += n
	r := StashRow{Ord: uint32(ord), Erased: flags&stashErased != 0, HasDue: flags&stashHasDue != 0}
	for i := range r.Counters {
		r.Counters[i], n = binary.Varint(blk[p:])
		p += n
	}
	if r.HasDue {
		r.Due, _ = binary.Uvarint(blk[p:])
	}
	return r
}

// SortByKey orders the entries by their keys, ties in the order added.
func (s *Stash) SortByKey() {
	radix.Sort(s.entries, nil, func(e *Entry) uint64 { return e.Key })
}

// SortByName orders the entries by their tenant ids (bytes, as
// strings.Compare), ties in the order added; it overwrites their keys.
func (s *Stash) SortByName() { s.sortByName(s.entries, 0, nil) }

// sortByName sorts entries, whose ids agree on their first 7*depth bytes, by
// their ids: a most-significant-digit radix sort, seven bytes of the id at a
// time and a byte that says whether it goes on (8) or how many of the seven
// it has (0-7), so that an id that is a prefix of another sorts first. Equal
// ids keep their order (stable).
func (s *Stash) sortByName(entries []Entry, depth int, tmp []Entry) []Entry {
	if len(entries) < 2 {
		return tmp
	}
	at := 7 * depth
	for i := range entries {
		id := s.Name(entries[i].Ref)
		var k uint64
		rest := len(id) - at
		for j := 0; j < 7; j++ {
			k <<= 8
			if j < rest {
				k |= uint64(id[at+j])
			}
		}
		entries[i].Key = k<<8 | uint64(min(max(rest, 0), 8))
	}
	tmp = radix.Sort(entries, tmp, func(e *Entry) uint64 { return e.Key })
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].Key == entries[i].Key {
			j++
		}
		if j-i > 1 && entries[i].Key&0xff == 8 {
			tmp = s.sortByName(entries[i:j], depth+1, tmp)
		}
		i = j
	}
	return tmp
}
