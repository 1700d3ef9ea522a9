package cmd

import (
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/spf13/cobra"
)

// newCheckpointsCmd is the parent of the checkpoint commands (checkpoints_<name>.go).
func newCheckpointsCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "checkpoints",
		Short: "List and remove the checkpoints the tool took of a store",
		Args:  cobra.ArbitraryArgs,
		RunE:  cmdutil.GroupRunE,
	}
	c.AddCommand(newCheckpointsLsCmd(env))
	c.AddCommand(newCheckpointsRmCmd(env))
	return c
}
