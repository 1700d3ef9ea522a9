package cmd

import (
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/spf13/cobra"
)

// newDLQCmd is the parent of the dead-letter views; each subcommand lives in
// dlq_<name>.go.
func newDLQCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "dlq",
		Short: "Show the dead-letter queue of a store",
		Args:  cobra.ArbitraryArgs,
		RunE:  cmdutil.GroupRunE,
	}
	c.AddCommand(newDLQScanCmd(env))
	c.AddCommand(newDLQShowCmd(env))
	c.AddCommand(newDLQExportCmd(env))
	return c
}
