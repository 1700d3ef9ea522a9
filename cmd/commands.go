package cmd

import "github.com/spf13/cobra"

// commands are the top-level commands, in the order help lists them (by name). A new
// command is added here, where a reader finds every one; TestCommandsAreListedByName
// holds the order.
func commands(env *Env) []*cobra.Command {
	return []*cobra.Command{
		newCheckpointsCmd(env),
		newCountersCmd(env),
		newDiffCmd(env),
		newDLQCmd(env),
		newFixtureCmd(env),
		newKeysCmd(env),
		newMigrateCmd(env),
		newRawReadCmd(env),
		newScanCmd(env),
		newStatusCmd(env),
		newTenantsCmd(env),
		newVersionCmd(env),
	}
}
