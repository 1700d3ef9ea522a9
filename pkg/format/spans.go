package format

import "bytes"

// The byte ranges of the contract that are not one key: one tenant's keys, the keys of one
// prefix, the key after a key. Every scan bound a reader needs is made here, from the family
// descriptors, so that no package builds key bytes by hand (spans_lint_test.go refuses it).

// TenantSpan is [lo, hi): every key of the tenant of ordinal ord in a family that its ordinal
// leads (due, inflight, dead-by-tenant, tenant-by-ord: the prefix then ord::32; counters: ord::32
// alone). The hi sentinel's ordinal is never a tenant's, so ord+1 never wraps for a real one.
func (f Family) TenantSpan(ord uint32) (lo, hi []byte) {
	lo = be.AppendUint32(bytes.Clone(f.Prefix), ord)
	hi = be.AppendUint32(bytes.Clone(f.Prefix), ord+1)
	return lo, hi
}

// TenantPrefixLen is how many leading bytes of an ordinal-first family's key name its
// tenant: the family's prefix and the ordinal (TenantSpan's bounds are such prefixes).
func (f Family) TenantPrefixLen() int { return len(f.Prefix) + 4 }

// PrefixEnd is the first key past every key that starts with the family's one-byte prefix;
// nil (the end of the column family) for a family without one (counters, deliveries, hooks).
func (f Family) PrefixEnd() []byte {
	if len(f.Prefix) == 0 {
		return nil
	}
	return []byte{f.Prefix[0] + 1}
}

// Successor is the smallest key after k: k with a zero byte appended, in a new slice (k is
// often a scan's reused buffer).
func Successor(k []byte) []byte {
	s := make([]byte, len(k)+1)
	copy(s, k)
	return s
}
