package migration

import "github.com/ankusa/ankusa-store/pkg/format"

// Migration is one registered format upgrade, as the node's Ankusa.Store.Migrate
// registry lists them ({from, to, module}).
type Migration struct {
	From, To uint32
	Name     string
	// Plan is the line a dry run prints for this step.
	Plan string
}

// TenantKeys is the 2 -> 3 migration of design record TEN-1.a.
var TenantKeys = Migration{From: format.Format2, To: format.Format3, Name: "TenantKeys", Plan: format.MigrationPlanLine}

// Registry lists every migration this tool can run, oldest first.
var Registry = []Migration{TenantKeys}

// Pending returns the migrations that take a store of format from to the
// newest format, in the order they run.
func Pending(from uint32) []Migration {
	var out []Migration
	for _, m := range Registry {
		if m.From == from {
			out = append(out, m)
			from = m.To
		}
	}
	return out
}
