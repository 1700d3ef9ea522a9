package inspect

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/ankusa/ankusa-store/internal/radix"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// A sorted listing needs every tenant before its first row, and a TenantRow
// is some 250 bytes (its counters' error slots, pointers, a string header):
// at 10^6 tenants --sort held 370-420 MB. tenantStash keeps each row as a few
// bytes instead (its id, its counters and oldest due row as varints) in
// blocks, and sorts 16-byte entries (the sort key and where the row is) with
// the radix sort: about 30 bytes a tenant beside its id. A row whose counters
// could not be read all is kept whole; there are few.

// tenantStashBlock is the size of the blocks records are appended to: big
// enough that a block's header costs nothing, small enough that the last
// one's room does not matter.
const tenantStashBlock = 1 << 20

type tenantStash struct {
	blocks  [][]byte
	entries []stashEntry
	whole   map[uint64]*TenantRow // rows with errors, by ref
	now     time.Time
	slab    rowSlab
}

// stashEntry is one row: its sort key, and ref, its block and offset (refs
// grow with the order rows are added in, which is the ordinal's).
type stashEntry struct{ key, ref uint64 }

const (
	stashErased = 1 << iota
	stashHasDue
	stashWhole
)

// add keeps r; key is its sort key (tenantSortKey), unused for SortByName.
func (s *tenantStash) add(r *TenantRow, key uint64) {
	var rec [10 + 1 + 5 + 6*10 + 10]byte
	name := r.Tenant
	b := binary.AppendUvarint(rec[:0], uint64(len(name)))
	n := len(b) + len(name)
	flags := byte(0)
	if r.Erased {
		flags |= stashErased
	}
	if r.OldestDueAt != nil {
		flags |= stashHasDue
	}
	if len(r.Errors) > 0 || r.UnreadableCount() > 0 {
		flags |= stashWhole
	}
	tail := append(rec[len(b):len(b)], flags)
	tail = binary.AppendUvarint(tail, uint64(r.ord))
	for _, f := range format.Fields {
		tail = binary.AppendVarint(tail, r.Get(f))
	}
	if r.OldestDueAt != nil {
		tail = binary.AppendUvarint(tail, uint64(r.OldestDueAt.UnixMilli()))
	}
	n += len(tail)
	if len(s.blocks) == 0 || cap(s.blocks[len(s.blocks)-1])-len(s.blocks[len(s.blocks)-1]) < n {
		s.blocks = append(s.blocks, make([]byte, 0, max(tenantStashBlock, n)))
	}
	bi := len(s.blocks) - 1
	blk := s.blocks[bi]
	ref := uint64(bi)<<32 | uint64(len(blk))
	blk = append(blk, b...)
	blk = append(blk, name...)
	s.blocks[bi] = append(blk, tail...)
	if flags&stashWhole != 0 {
		if s.whole == nil {
			s.whole = map[uint64]*TenantRow{}
		}
		c := *r
		c.Errors = append([]string(nil), r.Errors...)
		s.whole[ref] = &c
	}
	s.entries = append(s.entries, stashEntry{key, ref})
}

// name is the tenant id of the row at ref, in place.
func (s *tenantStash) name(ref uint64) []byte {
	blk := s.blocks[ref>>32][uint32(ref):]
	l, n := binary.Uvarint(blk)
	return blk[n : n+int(l)]
}

// row is the row at ref, its fields from the stash's slab (so that a row kept
// by its reader stays what it was).
func (s *tenantStash) row(ref uint64) TenantRow {
	if w := s.whole[ref]; w != nil {
		return *w
	}
	blk := s.blocks[ref>>32][uint32(ref):]
	l, n := binary.Uvarint(blk)
	name := blk[n : n+int(l)]
	p := n + int(l)
	flags := blk[p]
	p++
	ord, n := binary.Uvarint(blk[p:])
	p += n
	r := tenantRow3In(s.slab.ord(), uint32(ord), name)
	r.Erased = flags&stashErased != 0
	for _, f := range format.Fields {
		v, n := binary.Varint(blk[p:])
		p += n
		r.add(f, v)
	}
	if flags&stashHasDue != 0 {
		at, _ := binary.Uvarint(blk[p:])
		r.setOldestDueIn(at, s.now, s.slab.at(), s.slab.age())
	}
	return r
}

// tenantSortKey is r's key for by, smallest first, ties in ordinal order:
// the numeric sorts put the biggest first, oldest the oldest due row first
// and tenants with none last. Name sorts by the id itself (sortByName).
func tenantSortKey(r *TenantRow, by TenantSort) uint64 {
	switch by {
	case SortByOldestDue:
		if r.OldestDueAt == nil {
			return math.MaxUint64
		}
		// Times before 1970 stay before later ones (a signed order).
		return uint64(r.OldestDueAt.UnixMilli()) ^ 1<<63
	case SortByOrd, SortByName:
		return 0
	}
	if f, ok := format.FieldByName(string(by)); ok {
		return ^(uint64(r.Get(f)) ^ 1<<63) // descending
	}
	return 0
}

// sort orders the entries by by.
func (s *tenantStash) sort(by TenantSort) {
	switch by {
	case SortByOrd:
		// Already: rows are added in ordinal order.
	case SortByName:
		s.sortByName(s.entries, 0, nil)
	default:
		radix.Sort(s.entries, nil, func(e *stashEntry) uint64 { return e.key })
	}
}

// sortByName sorts entries, whose ids agree on their first 7*depth bytes, by
// their ids (bytes, as strings.Compare): a most-significant-digit radix sort,
// seven bytes of the id at a time and a byte that says whether it goes on
// (8) or how many of the seven it has (0-7), so that an id that is a prefix
// of another sorts first. Equal ids keep their ordinal order (stable).
func (s *tenantStash) sortByName(entries []stashEntry, depth int, tmp []stashEntry) []stashEntry {
	if len(entries) < 2 {
		return tmp
	}
	at := 7 * depth
	for i := range entries {
		id := s.name(entries[i].ref)
		var k uint64
		rest := len(id) - at
		for j := 0; j < 7; j++ {
			k <<= 8
			if j < rest {
				k |= uint64(id[at+j])
			}
		}
		entries[i].key = k<<8 | uint64(min(max(rest, 0), 8))
	}
	tmp = radix.Sort(entries, tmp, func(e *stashEntry) uint64 { return e.key })
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].key == entries[i].key {
			j++
		}
		if j-i > 1 && entries[i].key&0xff == 8 {
			tmp = s.sortByName(entries[i:j], depth+1, tmp)
		}
		i = j
	}
	return tmp
}
