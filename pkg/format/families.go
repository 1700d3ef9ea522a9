package format

import "bytes"

// Family describes one folded key family: where it lives, its prefix and the
// sentinels a fold must start at and end at (a fold that stops before Hi was
// cut short by corruption).
type Family struct {
	Name   string
	CF     string
	Prefix []byte // empty for counters
	Lo, Hi []byte // sentinel keys
	KeyLen int    // fixed key length, 0 if variable
}

// shortFam is a family whose hi sentinel is the prefix then one 0xFF: its keys
// lead with an `at`, `seq` or bucket below 2^63, or with UTF-8.
func shortFam(name, cf string, p byte, n int) Family {
	return Family{Name: name, CF: cf, Prefix: []byte{p}, Lo: []byte{p}, Hi: []byte{p, 0xFF}, KeyLen: n}
}

// ordFam is a family led by an ord: its hi is the ordinal no tenant ever gets.
func ordFam(name, cf string, p byte, n int) Family {
	return Family{Name: name, CF: cf, Prefix: []byte{p}, Lo: []byte{p}, Hi: []byte{p, 0xFF, 0xFF, 0xFF, 0xFF}, KeyLen: n}
}

// The folded families and their sentinels (the contract's sentinel table).
var (
	FamDueV2        = shortFam(FamilyNameDueV2, CFIndex, PrefixDueV2, KeyLenDueV2)
	FamInflightV2   = shortFam(FamilyNameInflightV2, CFIndex, PrefixInflightV2, KeyLenInflightV2)
	FamDead         = shortFam(FamilyNameDead, CFIndex, PrefixDead, KeyLenDead)
	FamArchive      = shortFam(FamilyNameArchive, CFIndex, PrefixArchive, KeyLenArchive)
	FamActive       = shortFam(FamilyNameActive, CFIndex, PrefixActive, KeyLenActive)
	FamDue          = ordFam(FamilyNameDue, CFIndex, PrefixDue, KeyLenDue)
	FamInflight     = ordFam(FamilyNameInflight, CFIndex, PrefixInflight, KeyLenInflight)
	FamDeadByTenant = ordFam(FamilyNameDeadByTenant, CFIndex, PrefixDeadByTenant, KeyLenDeadByTenant)
	FamTenantByOrd  = ordFam(FamilyNameTenantByOrd, CFTenants, PrefixTenantByOrd, KeyLenTenantByOrd)
	// A valid UTF-8 tenant id never starts with 0xFF, so one byte of it suffices.
	FamOrdByTenant = shortFam(FamilyNameOrdByTenant, CFTenants, PrefixOrdByTenant, 0)
	FamCounters    = Family{
		Name: FamilyNameCounters, CF: CFCounters,
		Lo: make([]byte, KeyLenCounter),
		Hi: []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
	}
)

// The families read whole: no prefix, no sentinels, not folded (so not in AllFamilies).
var (
	FamDeliveries = Family{Name: FamilyNameDeliveries, CF: CFDeliveries}
	FamHooks      = Family{Name: FamilyNameHooks, CF: CFHooks}
)

// IsSentinel reports whether key is the family's lo or hi sentinel.
func (f Family) IsSentinel(key []byte) bool { return f.Sentinel(key) != "" }

// Sentinel returns SentinelLo, SentinelHi or "" for a key that is not one.
func (f Family) Sentinel(key []byte) string {
	switch {
	case bytes.Equal(key, f.Lo):
		return SentinelLo
	case bytes.Equal(key, f.Hi):
		return SentinelHi
	}
	return ""
}

// Contains reports whether key lies strictly between the sentinels, i.e.
// whether a fold of f would hand it to its callback.
func (f Family) Contains(key []byte) bool {
	return bytes.Compare(key, f.Lo) > 0 && bytes.Compare(key, f.Hi) < 0
}

// DecodeKey decodes a key of this family (not a sentinel) to its typed key.
func (f Family) DecodeKey(key []byte) (any, error) {
	switch f.Name {
	case FamilyNameDueV2:
		return DecodeDueV2Key(key)
	case FamilyNameInflightV2:
		return DecodeInflightV2Key(key)
	case FamilyNameDue:
		return DecodeDueKey(key)
	case FamilyNameInflight:
		return DecodeInflightKey(key)
	case FamilyNameDead:
		return DecodeDeadKey(key)
	case FamilyNameDeadByTenant:
		return DecodeDeadByTenantKey(key)
	case FamilyNameArchive:
		return DecodeArchiveKey(key)
	case FamilyNameActive:
		return DecodeActiveKey(key)
	case FamilyNameTenantByOrd:
		return DecodeTenantByOrdKey(key)
	case FamilyNameOrdByTenant:
		return DecodeOrdByTenantKey(key)
	case FamilyNameCounters:
		return DecodeCounterKey(key)
	}
	return nil, keyErr(f.Name, "unknown family")
}

// AllFamilies lists every folded family of either format.
func AllFamilies() []Family {
	return []Family{FamDueV2, FamInflightV2, FamDue, FamInflight, FamDead, FamDeadByTenant,
		FamArchive, FamActive, FamTenantByOrd, FamOrdByTenant, FamCounters}
}

// FamilyByName finds a folded family by its Name.
func FamilyByName(name string) (Family, bool) {
	for _, f := range AllFamilies() {
		if f.Name == name {
			return f, true
		}
	}
	return Family{}, false
}

// FamiliesOf returns the folded families a healthy store of that format has
// (and whose sentinels must therefore be present); nil for an unknown format.
func FamiliesOf(format uint32) []Family {
	switch format {
	case Format2:
		return []Family{FamDueV2, FamInflightV2, FamDead, FamArchive}
	case Format3:
		return []Family{FamDue, FamInflight, FamDead, FamDeadByTenant, FamArchive, FamActive,
			FamTenantByOrd, FamOrdByTenant, FamCounters}
	}
	return nil
}
