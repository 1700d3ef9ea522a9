package cmd

import (
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/spf13/cobra"
)

// newKeysCmd is the parent of the key tools; each subcommand lives in
// keys_<name>.go.
func newKeysCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "keys",
		Short: "Decode store keys",
		Args:  cobra.ArbitraryArgs,
		RunE:  cmdutil.GroupRunE,
	}
	c.AddCommand(newKeysDecodeCmd(env))
	return c
}
