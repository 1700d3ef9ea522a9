// Package health is the store's health check, `counters verify`: Fold adds
// up what the rows of the counted families say the counters should be,
// Verify does that fold and checks every invariant of a healthy store in
// the same reads, and Repair writes the counter deltas a Verify found. Only
// Repair writes; Fold and Verify work on a store a running node holds open
// (ReadOnly or Secondary).
//
// The fold and the checks are one engine (foldEngine), not two layers: the
// checks are made on the rows as the fold reads them, so that a whole-store
// verify is one pass per family, and findings, the fold's counters and its
// corruption reports share one Report. The on-call views (package inspect)
// share none of it: they read a few ranges and never fold.
//
// # Fold and Verify
//
// Fold reads, at one snapshot, the families the counters count and the
// counters themselves, and returns for every ordinal the counters its rows
// add up to beside the counters stored (for ordinal 0, the aggregate, its
// unsharded key plus its 16 shards). Verify does that fold and checks every
// invariant of a healthy store in the same reads, one pass per family:
//
//  1. every counter equals the fold of its rows, for every ordinal and 0;
//  2. every due row has its active marker (markers with no due row behind
//     them are counted: stale markers are allowed);
//  3. x and X are one-to-one, with the same ordinal;
//  4. t and n agree both ways, ordinal 0 is never a tenant, every ordinal
//     is below m:next_ord and every ordinal in use has a t row;
//  5. a delivery row has at most one index key among due, inflight and dead
//     (none is a leak, counted; an index row whose delivery row or hook is
//     gone is counted too);
//  6. every sentinel is present (a missing one is corruption), and no d or
//     f key is left.
//
// A format 2 store is checked for what applies (sentinels, one index key
// per delivery row); the rest is listed in NotChecked. A store with
// m:migrating:3 is refused (rocks.ErrMidMigration). With
// VerifyOptions.Tenant the run reads that tenant's ranges and filters the
// families that carry the ordinal in their values; what only the whole store
// can show is listed in NotChecked. So are the counter fields folded from,
// or stored in, a family that corruption cut short: a mismatch there would
// be the damage's, not the counters'.
//
// Memory grows with tenants (one record per ordinal, 64 bytes, off the Go
// heap: a tenant's fold less its stored counters, so that only the tenants
// that differ have their counters read again for the report), not with
// rows. The one-to-one joins of families sorted differently are done
// without holding either side: x against X and index keys against delivery
// rows go through invertible Bloom lookup tables of fixed size (768 KiB
// each, fold_reconcile.go), which list their difference exactly; the
// markers, the dead rows' delivery sizes and the hooks are merge joins over
// sequential scans, the side that must be re-sorted held in batches of at
// most a million (16, 16 and 8 MiB, the hooks' chunks a quarter of that);
// the markers' and the dead rows' batches are packed, sorted, into runs of
// a few bytes an element (internal/runs) and joined in one scan. Runs past
// 4 MiB go to an unnamed file in the temporary directory, so a store of any
// size joins in one scan with flat memory; where that file cannot be made,
// they stay in memory up to twice a batch's bytes (some ten million
// elements), and a bigger store costs more passes, not more memory. The
// dead and archive rows, and the dead rows' sizes, reach their tenants in no
// ordinal order: their adds are held a word each, 2^18 at a time (4 MiB with
// the grouping's copy, on each lane that makes them), and applied grouped
// by ordinal, so that the table is read in pieces a core's cache holds
// (fold_ord_adds.go). The hooks are read keys only. Point reads are kept for findings: on a store
// whose recent writes sit in memtables a point read costs ten times a
// scanned key, a seek tens of milliseconds.
//
// A whole-store run reads on two lanes, the index families on one and the
// delivery rows on the other, with the hooks join on a third goroutine a
// chunk of delivery rows behind.
//
// # The report (`counters verify -o json`)
//
// Report's JSON is a stable interface, versioned by its "schema" field
// (ReportSchema; a field is never renamed, removed or given a new meaning
// without a new schema number, fields may be added). Absent values are null,
// lists are [] when empty.
//
//	schema            1
//	format            the store's format, 2 or 3
//	tenant            null, or the tenant the run was limited to:
//	                  {"ord": 3, "id": "acme", "erased": false}
//	verdict           "healthy" | "findings" | "corrupt"
//	healthy           verdict == "healthy"
//	keys              keys read, sentinels included
//	families          [{"family", "cf", "keys"}], keys read per key family
//	counter_mismatches [{"tenant", "field", "stored", "folded", "delta", "key"}]
//	                  field is pending | scheduled | inflight | dead | bytes |
//	                  archive_pending; delta = folded - stored, the int_add a
//	                  repair writes into key (the unsharded counter)
//	findings          [{"check", "invariant", "tenant", "key", "related", "detail"}]
//	                  check is one of the Check* constants, invariant its
//	                  number above (0: a key or value that does not decode),
//	                  tenant null when no ordinal applies
//	findings_omitted  {check: n}: findings past MaxFindingsPerCheck, counted
//	counts            what the contract allows, counted; null = not checked:
//	                  stale_active_markers, leaked_delivery_rows,
//	                  index_rows_without_delivery, index_rows_without_hook,
//	                  delivery_rows_without_hook, tenants, erased_tenants
//	corruption        [{"family", "cf", "key", "detail"}]: reads that failed
//	                  (a missing sentinel, a merge that failed on a bad
//	                  operand, a corrupt block); key null when unknown
//	not_checked       [{"check", "reason"}]
//
// Every key is a KeyRef: {"cf", "family", "key" (decoded, as format prints
// it), "hex"}. A tenant is a TenantRef: {"ord", "id" (null without a t row),
// "erased"}. The command adds one field with --repair: "repair", a
// RepairResult {"checkpoint", "operands": [{"tenant", "field", "key",
// "delta"}], "synced", "before": Report}; the top-level report is then the
// verify after the repair.
//
// # Errors
//
// Verify's error is only for what kept it from reading: mid-migration, an
// tenant the store no longer has (format.ErrNoSuchTenant), a canceled context, a failed read. A
// store it could not read to the end of a family returns the Report (with
// Corruption) and a *CorruptError, errors.Is rocks.ErrCorrupt. Findings are
// never errors.
package health
