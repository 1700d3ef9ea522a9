package health

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// ReportSchema is the version of Report's JSON encoding. It changes only when
// a field is renamed or removed or changes meaning; adding a field does not.
const ReportSchema = 1

// Verdicts.
const (
	VerdictHealthy  = "healthy"
	VerdictFindings = "findings"
	VerdictCorrupt  = "corrupt"
)

// Report is what Verify found. Its JSON encoding is the stable schema of
// `counters verify -o json`, documented in the package doc.
type Report struct {
	Schema int    `json:"schema"`
	Format uint32 `json:"format"`
	// Tenant is the tenant the run was limited to (--tenant), nil for all.
	Tenant  *TenantRef `json:"tenant"`
	Verdict string     `json:"verdict"`
	Healthy bool       `json:"healthy"`
	// Keys is the number of keys read, sentinels included.
	Keys              int64             `json:"keys"`
	Families          []FamilyKeys      `json:"families"`
	CounterMismatches []CounterMismatch `json:"counter_mismatches"`
	Findings          []Finding         `json:"findings"`
	// FindingsOmitted counts, per check, findings beyond the first
	// MaxFindingsPerCheck, which are counted but not listed.
	FindingsOmitted map[string]int64 `json:"findings_omitted"`
	Counts          Counts           `json:"counts"`
	Corruption      []Corruption     `json:"corruption"`
	NotChecked      []NotChecked     `json:"not_checked"`
}

// FamilyKeys is how many keys of one key family (or column family, for
// hooks and deliveries) the run read.
type FamilyKeys struct {
	Family string `json:"family"`
	CF     string `json:"cf"`
	Keys   int64  `json:"keys"`
}

// TenantRef names a tenant by ordinal and, when its t row says, by id.
type TenantRef struct {
	Ord uint32 `json:"ord"`
	// ID is nil when the ordinal has no t row; Erased when its t row is a
	// tombstone (TEN-5).
	ID     *string `json:"id"`
	Erased bool    `json:"erased"`
}

func (t *TenantRef) String() string {
	switch {
	case t == nil:
		return ""
	case t.Ord == format.AggregateOrd:
		return "(aggregate) (ord 0)"
	}
	return fmt.Sprintf("%s (ord %d)", t.Name(), t.Ord)
}

// Name is the tenant's id, or what stands for it.
func (t *TenantRef) Name() string {
	switch {
	case t == nil:
		return ""
	case t.Ord == format.AggregateOrd:
		return "(aggregate)"
	case t.Erased:
		return "(erased)"
	case t.ID == nil:
		return "(no t row)"
	}
	return *t.ID
}

// KeyRef is a key, decoded for people and in hex for tools: format.KeyRef,
// the one shape the views' detail pages use too.
type KeyRef = format.KeyRef

func keyRef(cf string, key []byte) KeyRef { return format.RefTo(cf, key) }

// CounterMismatch is a counter that does not equal the fold of its rows
// (invariant 1). Delta is folded minus stored: the int_add that repairs it.
type CounterMismatch struct {
	Tenant TenantRef `json:"tenant"`
	Field  string    `json:"field"`
	Stored int64     `json:"stored"`
	Folded int64     `json:"folded"`
	Delta  int64     `json:"delta"`
	// Key is the unsharded counters key, the one a repair merges into.
	Key KeyRef `json:"key"`
}

// Finding is one violated invariant, with the keys it is about.
type Finding struct {
	// Check is a stable identifier (the Check* constants).
	Check string `json:"check"`
	// Invariant is the number of the contract's invariant of a healthy
	// format 3 store (1-6), or 0 for a key or value that does not decode.
	Invariant int        `json:"invariant"`
	Tenant    *TenantRef `json:"tenant"`
	Key       KeyRef     `json:"key"`
	Related   []KeyRef   `json:"related"`
	Detail    string     `json:"detail"`
}

// Checks, as Finding.Check names them.
const (
	CheckBadKey              = "bad_key"                   // 0: a key in a family's range that does not decode, or past its hi sentinel
	CheckBadValue            = "bad_value"                 // 0: an index, tenants or delivery value that does not decode
	CheckArchiveWithoutOrd   = "archive_value_without_ord" // 0: a format 2 `a` value in a format 3 store
	CheckCounterKey          = "counter_key_invalid"       // 1: a counters key that is no counter
	CheckCounterValue        = "counter_value_invalid"     // 1: a counter whose value is not a 64-bit integer
	CheckMarkerMissing       = "active_marker_missing"     // 2
	CheckDeadWithoutOrd      = "dead_value_without_ord"    // 3
	CheckDeadByTenantMissing = "dead_by_tenant_missing"    // 3: an x row without its X row
	CheckDeadMissing         = "dead_row_missing"          // 3: an X row without its x row (of that ord)
	CheckTenantMaps          = "tenant_maps_disagree"      // 4
	CheckTenantOrdZero       = "tenant_ord_zero"           // 4
	CheckOrdNotBelowNext     = "ord_not_below_next_ord"    // 4
	CheckOrdWithoutTenant    = "ord_without_tenant"        // 4
	CheckNextOrd             = "next_ord_invalid"          // 4
	CheckIndexOrdZero        = "index_ord_zero"            // 4: an index row or counter of a tenant with ord 0
	CheckDeliveryIndexKeys   = "delivery_index_keys"       // 5: two or more index keys for one delivery
	CheckFormat2KeyRemains   = "format2_key_remains"       // 6
)

// checkInvariant maps a check to its invariant number.
var checkInvariant = map[string]int{
	CheckBadKey: 0, CheckBadValue: 0, CheckArchiveWithoutOrd: 0,
	CheckCounterKey: 1, CheckCounterValue: 1,
	CheckMarkerMissing:  2,
	CheckDeadWithoutOrd: 3, CheckDeadByTenantMissing: 3, CheckDeadMissing: 3,
	CheckTenantMaps: 4, CheckTenantOrdZero: 4, CheckOrdNotBelowNext: 4, CheckOrdWithoutTenant: 4,
	CheckNextOrd: 4, CheckIndexOrdZero: 4,
	CheckDeliveryIndexKeys: 5,
	CheckFormat2KeyRemains: 6,
}

// Counts are what the contract allows and verify counts instead of failing.
// A nil count was not checked (see NotChecked).
type Counts struct {
	// StaleActiveMarkers: markers with no due row behind them.
	StaleActiveMarkers *int64 `json:"stale_active_markers"`
	// LeakedDeliveryRows: delivery rows with no index key.
	LeakedDeliveryRows *int64 `json:"leaked_delivery_rows"`
	// IndexRowsWithoutDelivery / IndexRowsWithoutHook: due, inflight and dead
	// rows whose delivery row, or hook, is gone. A row missing both counts in
	// both.
	IndexRowsWithoutDelivery *int64 `json:"index_rows_without_delivery"`
	IndexRowsWithoutHook     *int64 `json:"index_rows_without_hook"`
	// DeliveryRowsWithoutHook: delivery rows whose hook is gone.
	DeliveryRowsWithoutHook *int64 `json:"delivery_rows_without_hook"`
	// UndecodableDeliveryRows: dead rows' delivery rows that do not decode;
	// their size counts 0, as for a missing one (the contract's delivery row).
	// UndecodableDeliveryKeys lists them (the first MaxFindingsPerCheck).
	UndecodableDeliveryRows *int64   `json:"undecodable_delivery_rows"`
	UndecodableDeliveryKeys []KeyRef `json:"undecodable_delivery_keys,omitempty"`
	// Tenants and ErasedTenants count t rows (ErasedTenants: tombstones).
	Tenants       *int64 `json:"tenants"`
	ErasedTenants *int64 `json:"erased_tenants"`
}

// Corruption is a read that failed: a fold cut short before its hi sentinel,
// a missing sentinel, a merge that failed on a bad operand, a corrupt block.
type Corruption struct {
	Family string `json:"family"`
	CF     string `json:"cf"`
	// Key is the key the read failed at, nil when RocksDB did not say.
	Key    *KeyRef `json:"key"`
	Detail string  `json:"detail"`
}

func (c Corruption) String() string {
	if c.Key != nil {
		return fmt.Sprintf("%s (%s): %s: %s", c.Family, c.CF, c.Key.Key, c.Detail)
	}
	return fmt.Sprintf("%s (%s): %s", c.Family, c.CF, c.Detail)
}

// NotChecked is a check this run did not make, and why: it does not apply
// to the store's format, the run was limited to one tenant, or a family it
// needs could not be read.
type NotChecked struct {
	Check  string `json:"check"`
	Reason string `json:"reason"`
}

// MaxFindingsPerCheck bounds the findings listed per check; the rest are
// counted in FindingsOmitted, so a store broken everywhere still gives a
// report of bounded size.
const MaxFindingsPerCheck = 10000

// sortReport puts everything in a stable order, so that two runs over the
// same store print the same report.
func (r *Report) sort() {
	slices.SortStableFunc(r.CounterMismatches, func(a, b CounterMismatch) int {
		if a.Tenant.Ord != b.Tenant.Ord {
			return vfCmpU32(a.Tenant.Ord, b.Tenant.Ord)
		}
		return strings.Compare(a.Key.Hex, b.Key.Hex)
	})
	slices.SortStableFunc(r.Findings, func(a, b Finding) int {
		if a.Invariant != b.Invariant {
			return a.Invariant - b.Invariant
		}
		if c := strings.Compare(a.Check, b.Check); c != 0 {
			return c
		}
		if c := strings.Compare(a.Key.CF, b.Key.CF); c != 0 {
			return c
		}
		return strings.Compare(a.Key.Hex, b.Key.Hex)
	})
}

func vfCmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// finish sets the verdict.
func (r *Report) finish() {
	r.sort()
	switch {
	case len(r.Corruption) > 0:
		r.Verdict = VerdictCorrupt
	case len(r.Findings) > 0 || len(r.CounterMismatches) > 0:
		r.Verdict = VerdictFindings
	default:
		r.Verdict = VerdictHealthy
	}
	r.Healthy = r.Verdict == VerdictHealthy
}

// Problems is the number of findings and counter mismatches, omitted ones
// included.
func (r *Report) Problems() int64 {
	n := int64(len(r.Findings) + len(r.CounterMismatches))
	for _, v := range r.FindingsOmitted {
		n += v
	}
	return n
}

// Summary is the report's verdict in one line.
func (r *Report) Summary() string {
	scope := fmt.Sprintf("format %d", r.Format)
	if r.Tenant != nil {
		scope += ", tenant " + r.Tenant.String()
	}
	switch r.Verdict {
	case VerdictHealthy:
		return fmt.Sprintf("healthy (%s, %s keys read)", scope, words.Group(r.Keys))
	case VerdictCorrupt:
		return fmt.Sprintf("corrupt: %d unreadable (%s; %s)", len(r.Corruption), scope, r.Corruption[0])
	}
	return fmt.Sprintf("%d finding%s, %d counter mismatch%s (%s, %s keys read)",
		r.Problems()-int64(len(r.CounterMismatches)), words.Plural(r.Problems()-int64(len(r.CounterMismatches)), "", "s"),
		len(r.CounterMismatches), words.Plural(int64(len(r.CounterMismatches)), "", "es"), scope, words.Group(r.Keys))
}

func vfI64(v int64) *int64 { return &v }
