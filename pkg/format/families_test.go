package format

import (
	"bytes"
	"slices"
	"testing"
)

func TestSentinelTable(t *testing.T) {
	cases := []struct {
		f      Family
		cf     string
		lo, hi string
	}{
		{FamDueV2, CFIndex, "d", "d\xff"},
		{FamInflightV2, CFIndex, "f", "f\xff"},
		{FamDead, CFIndex, "x", "x\xff"},
		{FamArchive, CFIndex, "a", "a\xff"},
		{FamActive, CFIndex, "A", "A\xff"},
		{FamDue, CFIndex, "D", "D\xff\xff\xff\xff"},
		{FamInflight, CFIndex, "F", "F\xff\xff\xff\xff"},
		{FamDeadByTenant, CFIndex, "X", "X\xff\xff\xff\xff"},
		{FamTenantByOrd, CFTenants, "t", "t\xff\xff\xff\xff"},
		{FamOrdByTenant, CFTenants, "n", "n\xff"},
		{FamCounters, CFCounters, "\x00\x00\x00\x00\x00", "\xff\xff\xff\xff\xff"},
	}
	for _, c := range cases {
		if c.f.CF != c.cf || string(c.f.Lo) != c.lo || string(c.f.Hi) != c.hi {
			t.Errorf("%s: cf %s lo %x hi %x, want %s %x %x", c.f.Name, c.f.CF, c.f.Lo, c.f.Hi, c.cf, c.lo, c.hi)
		}
		if !c.f.IsSentinel([]byte(c.lo)) || !c.f.IsSentinel([]byte(c.hi)) || c.f.IsSentinel([]byte(c.lo+"\x00")) {
			t.Errorf("%s: IsSentinel", c.f.Name)
		}
		if c.f.Sentinel([]byte(c.lo)) != SentinelLo || c.f.Sentinel([]byte(c.hi)) != SentinelHi {
			t.Errorf("%s: Sentinel names", c.f.Name)
		}
		if len(c.f.Prefix) > 0 && !bytes.HasPrefix(c.f.Lo, c.f.Prefix) {
			t.Errorf("%s: lo does not start with the prefix", c.f.Name)
		}
		d := DecodeKey(c.f.CF, c.f.Hi)
		if d.Sentinel != SentinelHi || d.Family != c.f.Name || d.Err != nil {
			t.Errorf("DecodeKey(hi of %s) = %+v", c.f.Name, d)
		}
		got, ok := FamilyByName(c.f.Name)
		if !ok || got.Name != c.f.Name {
			t.Errorf("FamilyByName(%s)", c.f.Name)
		}
	}
}

func TestFamiliesOf(t *testing.T) {
	names := func(fs []Family) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}
	if got, want := names(FamiliesOf(2)), []string{"due_v2", "inflight_v2", "dead", "archive"}; !slices.Equal(got, want) {
		t.Errorf("FamiliesOf(2) = %v, want %v", got, want)
	}
	want3 := []string{"due", "inflight", "dead", "dead_by_tenant", "archive", "active", "tenant_by_ord", "ord_by_tenant", "counters"}
	if got := names(FamiliesOf(3)); !slices.Equal(got, want3) {
		t.Errorf("FamiliesOf(3) = %v, want %v", got, want3)
	}
	if FamiliesOf(4) != nil {
		t.Error("FamiliesOf(4) is not nil")
	}
}
