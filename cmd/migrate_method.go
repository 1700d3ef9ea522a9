package cmd

import "github.com/ankusa/ankusa-store/internal/cmdutil"

const (
	methodAuto  = "auto"
	methodSteps = "steps"
	methodBulk  = "bulk"
)

// methodChoices are --method's values as its help says them ("" from a caller that set
// none is auto).
var methodChoices = cmdutil.Choices{
	{Name: methodSteps, Means: "resumable, committed 500 rows at a time"},
	{Name: methodBulk, Means: "sorted table files and one atomic ingest; a prototype: a store no migration has touched only"},
	{Name: methodAuto, Means: "steps, for now: docs/migration.md says why"},
}
