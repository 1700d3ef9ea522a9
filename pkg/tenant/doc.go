// Package tenant is the one rule for a tenant an operator names, wherever a command takes
// one (tenants show TENANT; --tenant of dlq scan, dlq export, scan and counters verify;
// completion): what was typed is checked once (ParseArg, before a store is opened) and
// resolved once against the store (Resolve) into a format.Tenant, its id and ordinal, which
// every layer below takes. A miss is format.ErrNoSuchTenant with the ids meant ("did you
// mean acme?"); the listings completion offers (EachByID, EachByOrd, EachByOrdPrefix) read
// the same rows. It stands on pkg/rocks and pkg/format only: the views, the health check
// and the commands all use it, so it is none of theirs.
package tenant
