package cmd

import "github.com/ankusa/ankusa-store/internal/cmdutil"

// The migration's methods (--method).
const (
	methodAuto  = "auto"
	methodSteps = "steps"
	methodBulk  = "bulk"
)

// methodChoices are --method's values as its help says them ("" from a caller that set
// none is auto).
var methodChoices = cmdutil.Choices{
	{Name: methodSteps, Means: "resumable, committed 500 rows at a time"},
	{Name: methodBulk, Means: "sorted table files and one atomic ingest: a store no migration has touched only"},
	{Name: methodAuto, Means: "bulk for a store no migration has touched, steps to resume one a migration left mid-way"},
}

// migrateMethod is the method a run on a store in this state uses: the one asked for, or
// for auto, bulk unless a migration left the store mid-way. Only the steps can resume one
// (its rows are partly in the new families already); a bulk run killed before its commit
// leaves no mark of a migration, so its rerun goes bulk again.
func migrateMethod(asked string, midway bool) string {
	switch {
	case asked == methodSteps, asked == methodBulk:
		return asked
	case midway:
		return methodSteps
	}
	return methodBulk
}

// methodWords names a method in migrate's summary.
var methodWords = map[string]string{
	methodSteps: "the steps (500 rows a synced batch, resumable)",
	methodBulk:  "the bulk method (sorted table files, one atomic ingest: format 2 until the commit, format 3 after it)",
}
