package format

// Everything in this file is frozen on disk: the node, older releases of this
// tool and other readers depend on these exact bytes and names. Each constant is
// named once, here, and used by name everywhere else.

// Store formats this tool reads and writes.
const (
	Format2 uint32 = 2
	Format3 uint32 = 3
	// NewestFormat is the newest format this tool knows; a store above it is refused.
	NewestFormat = Format3
)

// Column family names.
const (
	CFDefault    = "default"
	CFHooks      = "hooks"
	CFDeliveries = "deliveries"
	CFIndex      = "index"
	CFAudit      = "audit"
	CFQuarantine = "quarantine"
	CFArchive    = "archive"
	CFTenants    = "tenants"
	CFCounters   = "counters"
)

// FamiliesV2 and FamiliesV3 are the column families a store of that format has.
var (
	FamiliesV2 = []string{CFDefault, CFHooks, CFDeliveries, CFIndex, CFAudit, CFQuarantine, CFArchive}
	FamiliesV3 = []string{CFDefault, CFHooks, CFDeliveries, CFIndex, CFAudit, CFQuarantine, CFArchive, CFTenants, CFCounters}
)

// Prefix bytes of the key families in the index and tenants column families.
const (
	PrefixDueV2        byte = 'd' // format 2 due
	PrefixInflightV2   byte = 'f' // format 2 inflight
	PrefixDue          byte = 'D' // format 3 due
	PrefixInflight     byte = 'F' // format 3 inflight
	PrefixDead         byte = 'x' // dead, both formats (value differs)
	PrefixDeadByTenant byte = 'X' // format 3
	PrefixArchive      byte = 'a' // archive obligation, both formats (value differs)
	PrefixActive       byte = 'A' // format 3 active-tenant marker
	PrefixCleared      byte = 'c' // carried through untouched
	PrefixClaim        byte = 'k' // carried through untouched
	PrefixDedupe       byte = 'u' // carried through untouched
	PrefixExpiry       byte = 'e' // carried through untouched
	PrefixTenantByOrd  byte = 't' // family tenants
	PrefixOrdByTenant  byte = 'n' // family tenants
)

// Metadata keys in the default column family.
const (
	KeyFormat        = "m:format"
	KeyNextOrd       = "m:next_ord"
	KeyMigrating3    = "m:migrating:3"
	KeyMigrating3Now = "m:migrating:3:now"
)

// Field is a counter field number (the last byte of a counters key).
type Field uint8

// Counter fields.
const (
	FieldPending        Field = 1
	FieldScheduled      Field = 2
	FieldInflight       Field = 3
	FieldDead           Field = 4
	FieldBytes          Field = 5
	FieldArchivePending Field = 6
)

// Fields lists every counter field in field order.
var Fields = []Field{FieldPending, FieldScheduled, FieldInflight, FieldDead, FieldBytes, FieldArchivePending}

// NumFields is the number of counter fields per ordinal.
const NumFields = 6

// Ordinals.
const (
	AggregateOrd uint32 = 0          // the node aggregate, never a tenant
	FirstOrd     uint32 = 1          // the first real tenant ordinal
	MaxOrd       uint32 = 4294967294 // the last real tenant ordinal
	SentinelOrd  uint32 = 0xFFFFFFFF // never a tenant: the hi sentinel
)

// AggregateShards is the number of shards the node may split the aggregate into.
const AggregateShards = 16

// Due kinds (the last byte of a format 3 due value).
const (
	KindFirstAttempt uint8 = 0
	KindRetry        uint8 = 1
)

// DefaultTenant is the tenant of a hook with a nil, missing or invalid tenant_id.
const DefaultTenant = "default"

// MaxTenantIDLen is the longest tenant_id (in bytes) accepted as a real tenant.
const MaxTenantIDLen = 256

// DefaultTenantsMax is tenants.max's default.
const DefaultTenantsMax = 1_000_000

// MigrationStepRows is the most rows one migration step reads.
const MigrationStepRows = 500

// MigrationPlanLine is the 2 -> 3 migration's dry-run line.
const MigrationPlanLine = "2 -> 3: re-key due/inflight/dead by tenant ordinal, seed per-tenant counters"

// MergeOperatorName is the Name() of the counters merge operator.
const MergeOperatorName = "ErlangMergeOperator"

// Write buffer sizes.
const (
	CountersWriteBuffer = 1 << 20
	IndexWriteBuffer    = 16 << 20
)

// Envelope and delivery-row atom keys.
const (
	EnvelopeStruct = "Elixir.Ankusa.Envelope"
)

// Key-family names (Family.Name, DecodeKey's Decoded.Family). They appear in
// reports and JSON, so they are as stable as the bytes.
const (
	FamilyNameDueV2        = "due_v2"
	FamilyNameInflightV2   = "inflight_v2"
	FamilyNameDue          = "due"
	FamilyNameInflight     = "inflight"
	FamilyNameDead         = "dead"
	FamilyNameDeadByTenant = "dead_by_tenant"
	FamilyNameArchive      = "archive"
	FamilyNameActive       = "active"
	FamilyNameTenantByOrd  = "tenant_by_ord"
	FamilyNameOrdByTenant  = "ord_by_tenant"
	FamilyNameCounters     = "counters"
	FamilyNameCleared      = "cleared"
	FamilyNameClaim        = "claim"
	FamilyNameDedupe       = "dedupe"
	FamilyNameExpiry       = "expiry"
	FamilyNameHooks        = "hooks"
	FamilyNameDeliveries   = "deliveries"
	FamilyNameMeta         = "meta"
)

// Sentinel names as DecodeKey reports them.
const (
	SentinelLo = "lo"
	SentinelHi = "hi"
)

// Fixed key lengths, prefix byte included.
const (
	KeyLenDueV2        = 19
	KeyLenInflightV2   = 11
	KeyLenDue          = 23
	KeyLenInflight     = 15
	KeyLenDead         = 19
	KeyLenDeadByTenant = 23
	KeyLenArchive      = 9
	KeyLenActive       = 13
	KeyLenTenantByOrd  = 5
	KeyLenCounter      = 5 // <<ord::32, field::8>>
	KeyLenCounterShard = 6 // <<0::32, field::8, shard::8>>
	KeyLenHook         = 8
	KeyLenDelivery     = 10
)

// MaxAtSeq bounds `at` and `seq`: both are below 2^63, which keeps the first
// byte of every time- or seq-led key below the 0xFF of the hi sentinels.
const MaxAtSeq uint64 = 1<<63 - 1

// BucketMillis is the width of an active-index bucket: bucket = div(at, 1000).
const BucketMillis = 1000

// FieldNames are the counter field names, indexed by Field.
var FieldNames = [NumFields + 1]string{
	FieldPending:        "pending",
	FieldScheduled:      "scheduled",
	FieldInflight:       "inflight",
	FieldDead:           "dead",
	FieldBytes:          "bytes",
	FieldArchivePending: "archive_pending",
}

// Phases of the 2 -> 3 migration, the first byte of the m:migrating:3 cursor.
const (
	MigPhaseDue      uint8 = 1
	MigPhaseInflight uint8 = 2
	MigPhaseDead     uint8 = 3
	MigPhaseArchive  uint8 = 4
	MigPhaseFinish   uint8 = 5
)

// Envelope map keys (atoms).
const (
	EnvKeyStruct         = "__struct__"
	EnvKeyID             = "id"
	EnvKeySourceID       = "source_id"
	EnvKeyTenantID       = "tenant_id"
	EnvKeyIdempotencyKey = "idempotency_key"
	EnvKeyReceivedAt     = "received_at"
	EnvKeyHeaders        = "headers"
	EnvKeyBody           = "body"
)

// Delivery-row map keys (atoms) and statuses.
const (
	DeliveryKeySink      = "sink"
	DeliveryKeyStatus    = "status"
	DeliveryKeyAttempts  = "attempts"
	DeliveryKeySize      = "size"
	DeliveryKeyLastError = "last_error"

	StatusDue      = "due"
	StatusInflight = "inflight"
	StatusDead     = "dead"
)

// CounterOpAtom is the first element of a counter merge operand {int_add, delta}.
const CounterOpAtom = "int_add"
