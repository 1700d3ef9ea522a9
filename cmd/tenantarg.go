package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A tenant an operator names, wherever a command takes one (tenants show TENANT, --tenant
// of dlq scan, dlq export, scan and counters verify), is read by the one rule of
// pkg/inspect (tenant_resolve.go): checked once (inspect.ParseTenantArg), resolved once
// (inspect.ResolveTenant) into a format.Tenant that every layer below takes. What is left
// here is the command's side of it: the exit codes and the note.

// parseTenant checks a typed tenant before a store is opened (exit 2); flag is the flag
// that gave it ("" for an argument).
func parseTenant(flag, typed string) (inspect.TenantArg, error) {
	a, err := inspect.ParseTenantArg(typed)
	if err != nil {
		if flag != "" {
			return a, usageErr("%s %v", flag, err)
		}
		return a, usageErr("%v", err)
	}
	return a, nil
}

// tenant resolves a for a command: what the store cannot have is exit 2, a tenant it does
// not have exit 1 (with what was meant); when #N named the tenant, a note on stderr says
// which id that is.
func (env *Env) tenant(ctx context.Context, st *rocks.Store, a inspect.TenantArg) (format.Tenant, error) {
	t, err := inspect.ResolveTenant(ctx, st, a)
	switch {
	case errors.Is(err, inspect.ErrTenantArg):
		return t, usageErr("%v", err)
	case errors.Is(err, format.ErrNoSuchTenant):
		return t, findingsErr("%v", err)
	case err != nil:
		return t, err
	}
	if t.ID != a.Typed && !env.Quiet && !env.JSON() {
		fmt.Fprintf(env.IO.Err, "note: %s is tenant %s\n", a.Typed, inspect.TenantShown(t.ID))
	}
	return t, nil
}
