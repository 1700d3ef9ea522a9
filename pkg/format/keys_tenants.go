package format

import (
	"fmt"
	"unicode/utf8"
)

// TenantByOrdKey is <<"t", ord::32>> in family tenants.
type TenantByOrdKey struct {
	Ord uint32
}

const whatTenantByOrd = "tenant_by_ord"

// Validate refuses what a decoder would refuse. Ordinal 0 is encodable on
// purpose: a `t` row for it is an invariant finding, not an unreadable key.
func (k TenantByOrdKey) Validate() error { return checkOrd(whatTenantByOrd, k.Ord) }

// Append appends the key's bytes to dst.
func (k TenantByOrdKey) Append(dst []byte) []byte {
	return be.AppendUint32(append(dst, PrefixTenantByOrd), k.Ord)
}

// Encode returns the key's bytes without validating.
func (k TenantByOrdKey) Encode() []byte { return k.Append(make([]byte, 0, KeyLenTenantByOrd)) }

// EncodeChecked validates, then encodes.
func (k TenantByOrdKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k TenantByOrdKey) String() string { return fmt.Sprintf("t ord=%d", k.Ord) }

// DecodeTenantByOrdKey decodes a tenant-by-ordinal key.
func DecodeTenantByOrdKey(b []byte) (TenantByOrdKey, error) {
	if err := checkKey(whatTenantByOrd, b, KeyLenTenantByOrd, PrefixTenantByOrd); err != nil {
		return TenantByOrdKey{}, err
	}
	k := TenantByOrdKey{Ord: be.Uint32(b[1:])}
	return k, k.Validate()
}

// OrdByTenantKey is <<"n", tenant_id::binary>> in family tenants.
type OrdByTenantKey struct {
	Tenant string
}

const whatOrdByTenant = "ord_by_tenant"

// ValidTenantID reports whether id is a real tenant id: a non-empty valid
// UTF-8 string of at most 256 bytes. Anything else files under "default".
func ValidTenantID(id []byte) bool {
	return len(id) > 0 && len(id) <= MaxTenantIDLen && utf8.Valid(id)
}

// Validate refuses what a decoder would refuse. An empty tenant would be the lo
// sentinel and a non-UTF-8 one could start with 0xFF and pass hi, so only real
// tenant ids are keys.
func (k OrdByTenantKey) Validate() error {
	switch {
	case k.Tenant == "":
		return keyErr(whatOrdByTenant, "empty tenant id")
	case len(k.Tenant) > MaxTenantIDLen:
		return keyErr(whatOrdByTenant, "tenant id of %d bytes is longer than %d", len(k.Tenant), MaxTenantIDLen)
	case !utf8.ValidString(k.Tenant):
		return keyErr(whatOrdByTenant, "tenant id %q is not valid UTF-8", k.Tenant)
	}
	return nil
}

// Append appends the key's bytes to dst.
func (k OrdByTenantKey) Append(dst []byte) []byte {
	return append(append(dst, PrefixOrdByTenant), k.Tenant...)
}

// Encode returns the key's bytes without validating.
func (k OrdByTenantKey) Encode() []byte { return k.Append(make([]byte, 0, 1+len(k.Tenant))) }

// EncodeChecked validates, then encodes.
func (k OrdByTenantKey) EncodeChecked() ([]byte, error) { return encodeChecked(k) }

func (k OrdByTenantKey) String() string { return fmt.Sprintf("n tenant=%q", k.Tenant) }

// DecodeOrdByTenantKey decodes an ordinal-by-tenant key.
func DecodeOrdByTenantKey(b []byte) (OrdByTenantKey, error) {
	if len(b) < 2 {
		return OrdByTenantKey{}, keyErr(whatOrdByTenant, "want at least 2 bytes, got %d", len(b))
	}
	if b[0] != PrefixOrdByTenant {
		return OrdByTenantKey{}, keyErr(whatOrdByTenant, "want prefix %q, got 0x%02x", PrefixOrdByTenant, b[0])
	}
	k := OrdByTenantKey{Tenant: string(b[1:])}
	return k, k.Validate()
}
