package cmd

import (
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/spf13/cobra"
)

// newTenantsCmd is the parent of the tenant views; each subcommand lives in
// tenants_<name>.go.
func newTenantsCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "tenants",
		Short: "Show the tenants of a store",
		Args:  cobra.ArbitraryArgs,
		RunE:  cmdutil.GroupRunE,
	}
	c.AddCommand(newTenantsLsCmd(env))
	c.AddCommand(newTenantsShowCmd(env))
	return c
}
