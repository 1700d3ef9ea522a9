package cmd

import (
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/spf13/cobra"
)

// newCountersCmd is the parent of the counter tools; each subcommand lives in
// counters_<name>.go.
func newCountersCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "counters",
		Short: "Check the per-tenant counters of a store against its rows",
		Args:  cobra.ArbitraryArgs,
		RunE:  cmdutil.GroupRunE,
	}
	c.AddCommand(newCountersVerifyCmd(env))
	return c
}
