package format

import "errors"

// Tenant is one tenant of a store, as the layers above the store pass it down once it is
// resolved (tenant.Resolve): its id, and on format 3 its ordinal, read from its n
// row. Ord is AggregateOrd (0, never a tenant's) on format 2, which has no ordinals; the
// zero Tenant is "no tenant" (a view of every tenant).
type Tenant struct {
	ID  string
	Ord uint32
}

// IsZero reports whether t names no tenant.
func (t Tenant) IsZero() bool { return t.ID == "" }

// HasOrd reports whether t carries its ordinal (format 3).
func (t Tenant) HasOrd() bool { return t.Ord != AggregateOrd }

// ErrNoSuchTenant is the one error for a tenant the store does not have (no n row on
// format 3, no hook on format 2, an ordinal with no t row or an erased one), whoever
// finds it out.
var ErrNoSuchTenant = errors.New("no such tenant")
