package cmd

import (
	"context"
	"errors"
	"slices"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// checkScanTenant refuses, before the store is opened, a --tenant that
// cannot apply.
func checkScanTenant(opts *scanOptions) error {
	switch {
	case opts.tenant == "":
		return nil
	case opts.from != "" || opts.to != "":
		return exitcode.Usagef("--tenant picks the range itself; it excludes --from and --to")
	case !slices.Contains(inspect.TenantScanFamilies, opts.target):
		return exitcode.Usagef("--tenant scans a tenant-keyed family (%v), not %s", inspect.TenantScanFamilies, opts.target)
	}
	return nil
}

// scanTenantRange narrows a scan to one tenant's range (scan --tenant).
func scanTenantRange(env *Env, st *rocks.Store, opts *scanOptions, o *inspect.ScanOptions) error {
	var t format.Tenant
	if st.Format == format.Format3 {
		typed, err := parseTenant("--tenant", opts.tenant)
		if err != nil {
			return err
		}
		if t, err = env.tenant(context.Background(), st, opts.store, typed); err != nil {
			return err
		}
	}
	lo, hi, err := inspect.TenantRange(st, opts.target, t)
	switch {
	case errors.Is(err, rocks.ErrCorrupt):
		return err
	case err != nil:
		return exitcode.Usagef("%v", err)
	}
	if !env.JSON() {
		env.note("tenant %q is ordinal %d: scanning %x .. %x", t.ID, t.Ord, lo, hi)
	}
	o.From, o.To = lo, hi
	return nil
}
