package cmd

import (
	"fmt"
	"strings"
)

// The words of the errors about a command's arguments and about what a store does not
// have, in one place: which one is said is decided where the arguments are read
// (storearg.go, tenantarg.go). Each says one thing (issue 46: "STORE is missing ...; s3
// is a store, so the TENANT is missing before it" said two), in the shape every error
// has: the reason, then what to do (withHint).

// missingArgsMsg: path takes names, and missing of them were not given.
func missingArgsMsg(path string, names, missing []string) string {
	verb := "is"
	if len(missing) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("%s takes %s: %s %s missing", path, strings.Join(names, " "), strings.Join(missing, " and "), verb)
}

// noStoreMsg: path was given no store at all, by any of storeRule's three ways.
func noStoreMsg(path string) string {
	return fmt.Sprintf("%s needs STORE (a store directory or .tar.zst): give it as the last argument, with --store STORE, or in $%s", path, storeEnv)
}

// storeMissingMsg: path was given its other arguments, and no store.
func storeMissingMsg(path string, names []string) string {
	return missingArgsMsg(path, names, []string{"STORE"}) +
		fmt.Sprintf(" (give it as the last argument, with --store STORE, or in $%s)", storeEnv)
}

// argMissingMsg: path was given a store (given, which is one) and not the argument name
// before it.
func argMissingMsg(path string, names []string, name, given string) string {
	return missingArgsMsg(path, names, []string{name}) + fmt.Sprintf(" (%s is the store)", given)
}

// noTenantHint is what to do about a tenant the store typed as store does not have, when
// nothing it has is near: list them.
func noTenantHint(store string) string {
	return "the store's tenants: `" + rootName + " tenants ls " + shellArg(store) + "`"
}

// noDeadLetterHint is what to do about a dead letter the store does not have: list them.
func noDeadLetterHint(store string) string {
	return "the store's dead letters: `" + rootName + " dlq scan " + shellArg(store) + "`"
}

// rootName is the program's name, as a command to copy starts.
const rootName = "ankusa-store"
