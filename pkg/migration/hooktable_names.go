package migration

import (
	"hash/maphash"
	"unsafe"

	"github.com/ankusa/ankusa-store/internal/offheap"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// hookNames are the hook table's tenants, each name once. A hook's record
// says who its tenant is: below numReasons the reason it is "default" (0,
// ReasonNone, is never used: a hook whose tenant_id is "default" is a real
// tenant of that name), from numReasons on the name numReasons+i.
//
// The names are one byte arena with their offsets, and the build finds a name
// seen before through an open-addressed table of indexes into them: no Go
// string or map entry a tenant, which at 10^6 tenants held tens of MiB of
// pointers that the garbage collector doubled (a map of names took the
// migration's peak RSS from 169 to 237 MiB at 2*10^6 rows over 10^6 tenants).
// A slot holds its name's index and the top half of the name's hash (its tag):
// a probe of another name's slot is told by the tag alone, without loading that
// name's offsets and bytes, each a miss at 10^6 tenants (the table at half full
// probes a second slot in about a third of the lookups).
//
// The offsets and the slots are off the Go heap (internal/offheap); the arena is on it,
// since the tenants lookups return point into it and may outlive the table
// (in the run's summary): the collector keeps it while they do.
type hookNames struct {
	arena []byte
	off   offheap.Slice[uint32] // name i is arena[off[i]:off[i+1]]
	slots offheap.Slice[uint64] // 0 empty, else slotOf(i, hash); only while building
	seed  maphash.Seed

	warmed  []uint32 // warm's: the names its hooks' probes found by their tags
	warmSum uint64   // warm's loads, summed: kept, so that the compiler keeps them
}

func newHookNames() *hookNames {
	h := &hookNames{seed: maphash.MakeSeed()}
	h.off.Append(0)
	h.slots.Zeros(1 << 10)
	return h
}

// who is the record's who of a hook whose TenantOf is tenant, reason.
func (h *hookNames) who(tenant string, reason format.DefaultReason) uint32 {
	if reason != format.ReasonNone {
		return uint32(reason)
	}
	// whoHashed only reads the bytes, and copies them when the name is new.
	return h.whoHashed(unsafe.Slice(unsafe.StringData(tenant), len(tenant)), maphash.String(h.seed, tenant), reason)
}

// whoHashed is who for a tenant id read in place (format.TenantIDOf: nil unless reason is
// ReasonNone) whose hash with h.seed is hash: the bulk method's hooks' scan reads the ids
// and hashes them on its workers, so that the join, on one goroutine, only finds them.
func (h *hookNames) whoHashed(id []byte, hash uint64, reason format.DefaultReason) uint32 {
	if reason != format.ReasonNone {
		return uint32(reason)
	}
	slots := h.slots.S()
	mask := uint64(len(slots) - 1)
	s := hash & mask
	for ; slots[s] != 0; s = (s + 1) & mask {
		if e := slots[s]; e>>32 == hash>>32 && h.name(int(uint32(e)-1)) == string(id) {
			return uint32(numReasons) + uint32(e) - 1
		}
	}
	i := len(h.off.S()) - 1
	h.arena = append(h.arena, id...)
	h.off.Append(uint32(len(h.arena)))
	if 2*(i+1) > len(slots) {
		h.rehash(2 * len(slots))
	} else {
		// The empty slot the probes ended at is the new name's: put would hash the name
		// and probe to it again.
		slots[s] = slotOf(i, hash)
	}
	return uint32(numReasons + i)
}

// warm loads what whoHashed will read for a batch of hooks (their hashes), before the join
// asks for them one by one. A lookup is three loads each waiting for the one before (the
// slot, the name's offsets, the name's bytes), and with 10^5 tenants each missed the
// caches: two thirds of joinHooks' own samples on the first two loads, and memeqbody's on
// the third, 6.2% of a 10^7-row run's samples together. A batch's loads of one kind do not
// wait for each other, so the CPU overlaps them: with warm, the lookups' share was 3.7%
// (perf, two runs each). It follows each hook's probes to the slot of its tag, so that the
// offsets and bytes it loads are those of the name the lookup will compare (or of a name of
// the same tag). It only reads: a name the batch adds is found by whoHashed as before.
func (h *hookNames) warm(hooks []scannedHook) {
	slots := h.slots.S()
	if len(slots) == 0 {
		return
	}
	mask := uint64(len(slots) - 1)
	found := h.warmed[:0]
	for i := range hooks {
		if hooks[i].reason == format.ReasonNone {
			hash := hooks[i].hash
			s := hash & mask
			for slots[s] != 0 && slots[s]>>32 != hash>>32 {
				s = (s + 1) & mask
			}
			if e := slots[s]; e != 0 {
				found = append(found, uint32(e)-1)
			}
		}
	}
	off := h.off.S()
	var sum uint64
	for k, n := range found {
		found[k] = off[n]
		sum += uint64(off[n+1])
	}
	for _, o := range found {
		if int(o) < len(h.arena) {
			sum += uint64(h.arena[o])
		}
	}
	h.warmed = found
	h.warmSum += sum
}

// warmOf loads the names' offsets that of will read for whos (0: none), before they are
// looked up one by one: the bulk method's fetch warms a step's rows, as warm does a batch of
// the join's hooks. It only reads.
func (h *hookNames) warmOf(whos []uint32) {
	off := h.off.S()
	var sum uint64
	for _, w := range whos {
		if i := int(w) - numReasons; i >= 0 && i < len(off) {
			sum += uint64(off[i])
		}
	}
	h.warmSum += sum
}

func (h *hookNames) put(i int) {
	slots := h.slots.S()
	mask := uint64(len(slots) - 1)
	hash := maphash.String(h.seed, h.name(i))
	s := hash & mask
	for slots[s] != 0 {
		s = (s + 1) & mask
	}
	slots[s] = slotOf(i, hash)
}

// slotOf is name i's slot: its hash's top half (the slots are picked by the low bits) above
// i+1 (0 is an empty slot).
func slotOf(i int, hash uint64) uint64 { return hash&^(1<<32-1) | uint64(i+1) }

func (h *hookNames) rehash(n int) {
	h.slots.Zeros(n)
	for i := range len(h.off.S()) - 1 {
		h.put(i)
	}
}

// name is name i, in place: the arena is not written after built, and a
// name handed out during the build is only compared.
func (h *hookNames) name(i int) string {
	b := h.arena[h.off.S()[i]:h.off.S()[i+1]]
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// built drops what only the build needs.
func (h *hookNames) built() { h.slots.Free() }

// free returns the memory off the heap; the tenants handed out stay valid.
func (h *hookNames) free() {
	h.off.Free()
	h.slots.Free()
}

// of is the tenant and reason of a record's who, and the tenant's name
// number (1 + its index; 0 for a default reason).
func (h *hookNames) of(who uint32) (string, format.DefaultReason, uint32) {
	if int(who) < numReasons {
		return format.DefaultTenant, format.DefaultReason(who), 0
	}
	i := int(who) - numReasons
	return h.name(i), format.ReasonNone, uint32(i + 1)
}

func (h *hookNames) tenants() int { return len(h.off.S()) - 1 }

// bytes is what the names hold in memory.
func (h *hookNames) bytes() int { return cap(h.arena) + h.off.Bytes() + h.slots.Bytes() }
