package cmd

import (
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenant"
)

// keysDecodeTenant adds the tenant behind r's ordinal (keys decode --store):
// a "tenant" field after "ord", read from the store's t row.
func keysDecodeTenant(env *Env, store string, r *inspect.KeyReport) error {
	ordV, ok := r.Fields["ord"]
	if !ok {
		return nil
	}
	var ord uint32
	switch v := ordV.(type) {
	case uint32:
		ord = v
	case uint64:
		ord = uint32(v)
	case int:
		ord = uint32(v)
	default:
		return nil
	}
	st, closeStore, err := env.openStore(store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	name := "(aggregate: the node's sum over every tenant)"
	switch {
	case !st.HasFamily(format.CFTenants):
		// A format 2 store has no ordinals, so no tenant names to read: the key still
		// decodes, and this says why no name follows it.
		name = fmt.Sprintf("(none: this format %d store has no tenants column family; ordinals and their names come with format 3)", st.Format)
	case ord != format.AggregateOrd:
		id, found, err := tenant.OfOrd(st.DB, ord)
		switch {
		case err != nil:
			return err
		case !found:
			name = "(no t row in this store)"
		case id == "":
			name = "(erased)"
		default:
			name = id
		}
	}
	r.Fields["tenant"] = name
	out := make(inspect.KeyFields, 0, len(r.FieldList)+1)
	for _, f := range r.FieldList {
		out = append(out, f)
		if f.Name == "ord" {
			out = append(out, inspect.KeyField{Name: "tenant", Value: name})
		}
	}
	r.FieldList = out
	return nil
}
