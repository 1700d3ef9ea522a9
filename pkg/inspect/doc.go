// Package inspect holds the on-call views: what is in a store, read the
// way an engineer asks at 3 a.m. ListTenants (`tenants ls`) lists tenants
// with their counters and the age of their oldest due row; ScanDLQ (`dlq
// scan`) pages through dead letters, newest first, with a cursor; ScanKeys
// (`scan`) reads a family in key order with every key and value decoded,
// like ldb scan; DecodeAnyKey (`keys decode`) decodes one key; StoreStatus
// (`status`) says what a store is from RocksDB's bookkeeping and a constant
// number of reads; ShowTenant and ShowDLQ (`tenants show`, `dlq show`) give
// one tenant or one dead letter in full; and ExportDLQ (`dlq export`) streams
// dead letters with their hooks, page by page as ScanDLQ reads them. The
// comparison of two stores (`diff`) is package storediff: it shares none of
// the views' rows, only their notes (ViewNote) and the decoding of a key
// into fields (KeyFieldsOf), which it takes from here.
//
// Every view only reads, and works on a store a running node holds open
// (ReadOnly or Secondary). A view reads the few ranges its question needs,
// not the whole store: on format 3 the tenants, counters and by-tenant
// index families answer directly; format 2 lacks them, and a view that then
// has to pass over the backlog or read hooks says so in a note. A store the
// 2 -> 3 migration has not finished is refused (rocks.ErrMidMigration):
// its rows are half moved.
//
// What a view has to say besides its rows is a ViewNote: a warning is a
// finding met on the way (a hook filed under "default", a missing delivery
// row) and is never suppressed; a plain note is context (what a read cost,
// why a page is empty).
//
// The results (TenantList, DLQPage, ScanResult, KeyReport, Status,
// TenantDetail, DLQDetail, DLQExportRow) are the stable
// JSON of their commands (`-o json`); their schemas are generated into
// docs/commands.md. The health check is package health.
//
// What the views share is in view.go. They read through pkg/walk (chunks, held walks and
// cursors, with its rule that a scan callback does not read the store), and a view scoped to
// one tenant takes it resolved by pkg/tenant. Two engines stand below them, each knowing
// nothing of the views: pkg/sortjoin, the sorted join that reads an export's or a streamed
// scan's delivery rows, tenant names and hooks (dlq_reads.go adapts the dead-letter walk to
// it), and pkg/tenantjoin, the join of the tenant families by ordinal behind tenants ls
// (tenants_join.go, tenants_stash.go and tenants_due.go build the views' rows from it).
package inspect
