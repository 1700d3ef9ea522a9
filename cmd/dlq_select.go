package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/timearg"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenant"
)

// dlqSelectFlags are the flags that choose dead letters, the same in dlq scan and dlq
// export: one tenant, a dead-at window, one sink.
type dlqSelectFlags struct {
	tenant, since, until string
	sink                 uint16
	sinkSet              bool // --sink given: 0 is a sink too
}

func (s *dlqSelectFlags) add(c *cobra.Command, tenantHelp string) {
	f := c.Flags()
	f.StringVar(&s.tenant, "tenant", "", tenantHelp)
	f.StringVar(&s.since, "since", "", "only rows dead at or after this time (Unix ms, 0 the epoch; RFC 3339; or a duration ago: 90m, 1d, 0s)")
	f.StringVar(&s.until, "until", "", "only rows dead before this time (Unix ms, RFC 3339, or a duration ago)")
	f.Uint16Var(&s.sink, "sink", 0, "only this sink's deliveries")
}

// dlqSelection is what the flags chose, checked before the store is opened.
type dlqSelection struct {
	// typed is --tenant as given, checked; Tenant is the tenant it names, once resolved.
	typed        *tenant.Arg
	Tenant       format.Tenant
	Since, Until time.Time
	Sink         *uint16
}

// parse checks the flags (usage errors, exit 2).
func (s *dlqSelectFlags) parse(env *Env) (dlqSelection, error) {
	sel := dlqSelection{}
	if s.sinkSet {
		sink := s.sink
		sel.Sink = &sink
	}
	if s.tenant != "" {
		a, err := parseTenant("--tenant", s.tenant)
		if err != nil {
			return sel, err
		}
		sel.typed = &a
	}
	var err error
	if sel.Since, err = timearg.View(s.since, env.Now()); err != nil {
		return sel, exitcode.Usagef("--since: %v", err)
	}
	if sel.Until, err = timearg.View(s.until, env.Now()); err != nil {
		return sel, exitcode.Usagef("--until: %v", err)
	}
	if !sel.Since.IsZero() && !sel.Until.IsZero() && !sel.Since.Before(sel.Until) {
		return sel, exitcode.Usagef("--since %s is not before --until %s", sel.Since.Format(viewTimeLayout), sel.Until.Format(viewTimeLayout))
	}
	return sel, nil
}

// resolveTenant names the tenant by the one rule (tenantarg.go), once the store is open.
func (sel *dlqSelection) resolveTenant(ctx context.Context, env *Env, st *rocks.Store, store string) error {
	if sel.typed == nil {
		return nil
	}
	var err error
	sel.Tenant, err = env.tenant(ctx, st, store, *sel.typed)
	return err
}
