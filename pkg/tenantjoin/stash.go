package tenantjoin

import (
	"encoding/binary"

	"github.com/ankusa/ankusa-store/internal/radix"
)

// A sorted listing needs every tenant before its first row, and a row as a
// view holds it is some 250 bytes (its counters' error slots, pointers, a
// string header): at 10^6 tenants --sort held 370-420 MB. Stash keeps each
// row as a few bytes instead (its id, and the record the caller makes of the
// rest: counters and oldest due row as varints) in blocks, and sorts 16-byte
// entries (the sort key and where the row is) with the radix sort: about 30
// bytes a tenant beside its id.

// stashBlock is the size of the blocks records are appended to: big enough
// that a block's header costs nothing, small enough that the last one's room
// does not matter.
const stashBlock = 1 << 20

// Stash holds rows as records, in the order they are added.
type Stash struct {
	blocks  [][]byte
	entries []Entry
}

// Entry is one row: its sort key, and Ref, its block and offset (refs grow
// with the order rows are added in).
type Entry struct{ Key, Ref uint64 }

// Add keeps the row of tenant name whose record is rec, sorted by key
// (SortByKey, smallest first), and returns its Ref.
func (s *Stash) Add(name string, rec []byte, key uint64) uint64 {
	var head [binary.MaxVarintLen64]byte
	b := binary.AppendUvarint(head[:0], uint64(len(name)))
	n := len(b) + len(name) + len(rec)
	if len(s.blocks) == 0 || cap(s.blocks[len(s.blocks)-1])-len(s.blocks[len(s.blocks)-1]) < n {
		s.blocks = append(s.blocks, make([]byte, 0, max(stashBlock, n)))
	}
	bi := len(s.blocks) - 1
	blk := s.blocks[bi]
	ref := uint64(bi)<<32 | uint64(len(blk))
	blk = append(blk, b...)
	blk = append(blk, name...)
	s.blocks[bi] = append(blk, rec...)
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

// Record is the record of the row at ref, in place, followed by whatever
// the block holds after it: the caller's record says where it ends.
func (s *Stash) Record(ref uint64) []byte {
	blk := s.blocks[ref>>32][uint32(ref):]
	l, n := binary.Uvarint(blk)
	return blk[n+int(l):]
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
