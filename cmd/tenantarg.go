package cmd

import (
	"context"
	"errors"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenant"
)

// A tenant an operator names, wherever a command takes one (tenants show TENANT, --tenant
// of dlq scan, dlq export, scan and counters verify), is read by the one rule of
// pkg/tenant: checked once (tenant.ParseArg), resolved once
// (tenant.Resolve) into a format.Tenant that every layer below takes. What is left
// here is the command's side of it: the exit codes and the note.

// parseTenant checks a typed tenant before a store is opened (exit 2); flag is the flag
// that gave it ("" for an argument).
func parseTenant(flag, typed string) (tenant.Arg, error) {
	a, err := tenant.ParseArg(typed)
	if err != nil {
		if flag != "" {
			return a, exitcode.Usagef("%s %v", flag, err)
		}
		return a, exitcode.Usagef("%v", err)
	}
	return a, nil
}

// tenant resolves a for a command on st, the store typed as store: what the store cannot
// have is exit 2, a tenant it does not have exit 1, an error with what was meant or, when
// nothing is near, the command that lists the tenants (noTenantHint); when #N named the
// tenant, a note on stderr says which id that is.
func (env *Env) tenant(ctx context.Context, st *rocks.Store, store string, a tenant.Arg) (format.Tenant, error) {
	t, err := tenant.Resolve(ctx, st, a)
	switch {
	case errors.Is(err, tenant.ErrArg):
		return t, exitcode.Usagef("%v", err)
	case errors.Is(err, format.ErrNoSuchTenant):
		return t, noTenantErr(err, store)
	case err != nil:
		return t, err
	}
	if t.ID != a.Typed && !env.JSON() {
		env.note("%s is tenant %s", a.Typed, tenant.Shown(t.ID))
	}
	return t, nil
}

// noTenantErr is exit 1 for a tenant the store typed as store does not have, with the
// command that lists its tenants when the resolver named none that was meant.
func noTenantErr(err error, store string) error {
	hint := ""
	if !tenant.MissHelped(err) {
		hint = noTenantHint(store)
	}
	return notFoundErr(err, hint)
}
