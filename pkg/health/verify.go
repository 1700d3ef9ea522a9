package health

import (
	"context"
	"slices"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// VerifyOptions says what Verify checks.
type VerifyOptions struct {
	// Tenant limits the run to one tenant, resolved (tenant.Resolve); the zero
	// Tenant checks the whole store.
	Tenant format.Tenant
	// Progress, if set, counts the keys read, possibly from two goroutines at once, and
	// its Phase is told whenever a lane starts another family what the lanes read now
	// ("due + deliveries"; "" at the end), one call at a time.
	Progress reporting.Reporter

	// sizes, for tests, bounds the batches, chunks and passes (nil: tunedSizes).
	sizes *sizes
}

// Verify folds the families of st at one snapshot and checks every
// invariant of a healthy store that applies to its format (the store
// contract's list; format 2 has no counters, tenants or markers). Findings
// go in the Report; the error is only for what kept Verify from reading the
// store: a store mid-migration (rocks.ErrMidMigration), a tenant the store
// no longer has (format.ErrNoSuchTenant), a canceled context, a failed read. A store that could
// not be read to the end of a family (a missing sentinel, a merge that
// fails on a bad operand) returns the Report, with every such read in its
// Corruption, and a *CorruptError (errors.Is rocks.ErrCorrupt).
//
// Verify only reads. It is meant for a store a running node holds open
// (opened ReadOnly or Secondary) as much as for a copy.
func Verify(ctx context.Context, st *rocks.Store, o VerifyOptions) (*Report, error) {
	if err := refuseMigrating(st); err != nil {
		return nil, err
	}
	e, err := newFoldEngine(ctx, st, true, o.Tenant, o.Progress, o.sizes)
	if err != nil {
		return nil, err
	}
	defer e.close()
	if err := e.run(); err != nil {
		return nil, err
	}
	if err := e.resolve(); err != nil {
		return nil, err
	}
	e.rep.finish()
	if len(e.rep.Corruption) > 0 {
		return e.rep, e.corruptErr()
	}
	return e.rep, nil
}

// resolve turns what the reads gathered into findings and counts.
func (e *foldEngine) resolve() error {
	// In the contract's order, whatever order the run read them in.
	rank := map[string]int{}
	for i, f := range append([]format.Family{format.FamTenantByOrd, format.FamOrdByTenant, format.FamDue, format.FamInflight,
		format.FamDead, format.FamDeadByTenant, format.FamArchive, format.FamActive, format.FamCounters,
		format.FamDueV2, format.FamInflightV2}, format.FamDeliveries, format.FamHooks) {
		rank[f.Name] = i
	}
	for _, f := range e.famKeys {
		e.rep.Families = append(e.rep.Families, *f)
	}
	slices.SortStableFunc(e.rep.Families, func(a, b FamilyKeys) int { return rank[a.Family] - rank[b.Family] })
	for _, f := range append(format.AllFamilies(), format.FamDeliveries, format.FamHooks) {
		if e.broken[f.Name] {
			e.notChecked("checks of family "+f.Name, "family "+f.Name+" could not be read to its end (see corruption): its findings and counts may be incomplete")
		}
	}
	if e.format == format.Format2 {
		e.notChecked("counters", "counters do not exist before format 3, nor do tenants, active markers and dead-by-tenant keys: "+
			"a format 2 store is checked for its sentinels and for one index key per delivery row")
		return e.resolveDeliveries()
	}
	if e.r5 != nil {
		if err := e.resolveDeliveries(); err != nil {
			return err
		}
	} else {
		e.rep.Counts.IndexRowsWithoutDelivery = vfI64(e.probe.withoutDelivery)
		e.rep.Counts.IndexRowsWithoutHook = vfI64(e.probe.withoutHook)
	}
	e.rep.Counts.UndecodableDeliveryRows = vfI64(e.badDeliveries)
	e.rep.Counts.UndecodableDeliveryKeys = e.badDeliveryKeys
	if err := e.resolveMarkers(); err != nil {
		return err
	}
	if err := e.resolveDeadByTenant(); err != nil {
		return err
	}
	e.resolveOrds()
	if err := e.resolveCounters(); err != nil {
		return err
	}
	if e.scope == nil {
		e.rep.Counts.Tenants = vfI64(e.tenants)
		e.rep.Counts.ErasedTenants = vfI64(e.erased)
	}
	return nil
}
