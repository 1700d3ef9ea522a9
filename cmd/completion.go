package cmd

import (
	"github.com/spf13/cobra"
)

// Shell completion: flag values and arguments complete from the values the tool accepts,
// and store arguments complete as directories (a store is one). Cobra serves them through
// its hidden __complete command, which the scripts of `ankusa-store completion` call.

func registerGlobalCompletions(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("output", fixedValues("table", "tsv", "json"))
	_ = root.RegisterFlagCompletionFunc("progress", fixedValues(progressModes...))
}

// fixedValues completes a flag or argument from a fixed list.
func fixedValues(vals ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return vals, cobra.ShellCompDirectiveNoFileComp
	}
}

// storeArgs completes positional arguments: before the store (index < storeAt), from
// before(); the store itself as a directory; nothing after it.
func storeArgs(storeAt int, before cobra.CompletionFunc) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case len(args) < storeAt && before != nil:
			return before(c, args, toComplete)
		case len(args) == storeAt:
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// dirFlag completes a flag that names a directory (a checkpoint, a backup).
func dirFlag(c *cobra.Command, name string) {
	_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
}
