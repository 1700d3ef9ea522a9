package format

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TenantSpan is [prefix ord, prefix ord+1) for every family an ordinal leads, and holds
// exactly that tenant's keys: its first and last possible keys inside, its neighbours' out.
func TestTenantSpan(t *testing.T) {
	for _, tc := range []struct {
		fam        Family
		first, end []byte // the tenant's lowest key, and the lowest of the next tenant
	}{
		{FamDue, DueKey{Ord: 7}.Encode(), DueKey{Ord: 8}.Encode()},
		{FamInflight, InflightKey{Ord: 7}.Encode(), InflightKey{Ord: 8}.Encode()},
		{FamDeadByTenant, DeadByTenantKey{Ord: 7}.Encode(), DeadByTenantKey{Ord: 8}.Encode()},
		{FamTenantByOrd, TenantByOrdKey{Ord: 7}.Encode(), TenantByOrdKey{Ord: 8}.Encode()},
		{FamCounters, CounterKey{Ord: 7}.Encode(), CounterKey{Ord: 8}.Encode()},
	} {
		prefix := bytes.Clone(tc.fam.Prefix)
		lo, hi := tc.fam.TenantSpan(7)
		want := binary.BigEndian.AppendUint32(bytes.Clone(tc.fam.Prefix), 7)
		if !bytes.Equal(lo, want) || !bytes.Equal(hi, binary.BigEndian.AppendUint32(bytes.Clone(tc.fam.Prefix), 8)) {
			t.Errorf("%s: span [%x, %x)", tc.fam.Name, lo, hi)
		}
		if bytes.Compare(tc.first, lo) < 0 || bytes.Compare(tc.first, hi) >= 0 {
			t.Errorf("%s: the tenant's first key %x is outside [%x, %x)", tc.fam.Name, tc.first, lo, hi)
		}
		if bytes.Compare(tc.end, hi) < 0 {
			t.Errorf("%s: the next tenant's key %x is inside [%x, %x)", tc.fam.Name, tc.end, lo, hi)
		}
		// The span's bytes are its own: a caller appending to lo must not change hi or the family.
		_ = append(lo[:len(prefix)], 0xAA)
		if !bytes.Equal(tc.fam.Prefix, prefix) || !bytes.Equal(hi[:len(prefix)], prefix) {
			t.Errorf("%s: the span shares the family's prefix: now %x", tc.fam.Name, tc.fam.Prefix)
		}
	}
	// The last real ordinal's span ends at the hi sentinel, which is never a tenant's.
	if _, hi := FamDue.TenantSpan(MaxOrd); !bytes.Equal(hi, FamDue.Hi) {
		t.Errorf("the span of MaxOrd ends at %x, not the hi sentinel %x", hi, FamDue.Hi)
	}
}

func TestPrefixEnd(t *testing.T) {
	if got := FamOrdByTenant.PrefixEnd(); !bytes.Equal(got, []byte{PrefixOrdByTenant + 1}) {
		t.Errorf("ord-by-tenant ends at %x", got)
	}
	for _, f := range []Family{FamCounters, FamDeliveries, FamHooks} {
		if got := f.PrefixEnd(); got != nil {
			t.Errorf("%s has no prefix, so no end but the column family's; got %x", f.Name, got)
		}
	}
}

// Successor is the least key above k: nothing lies strictly between, and k's buffer is
// not written (a scan hands its reused arena).
func TestSuccessor(t *testing.T) {
	k := make([]byte, 3, 8)
	copy(k, "abc")
	s := Successor(k)
	if !bytes.Equal(s, []byte("abc\x00")) || bytes.Compare(s, k) <= 0 {
		t.Fatalf("Successor(abc) = %q", s)
	}
	if k[:4][3] != 0 {
		t.Fatalf("Successor wrote into k's spare capacity")
	}
	s[0] = 'z'
	if k[0] != 'a' {
		t.Fatal("Successor shares k's bytes")
	}
}
