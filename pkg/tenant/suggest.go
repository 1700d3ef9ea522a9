package tenant

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ankusa/ankusa-store/internal/nearest"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// noTenantErr is the one message for a tenant the store does not have (exit 1).
func noTenantErr(typed string, ids []string) error {
	e := &tenantError{msg: "no tenant " + Shown(typed), kind: format.ErrNoSuchTenant}
	if s := suggestTenants(typed, ids); len(s) > 0 {
		for i := range s {
			s[i] = Shown(s[i])
		}
		e.msg += "; did you mean " + strings.Join(s, " or ") + "?"
		e.helped = true
	} else if len(ids) == 0 {
		e.msg += " (the store has no tenants)"
		e.helped = true
	}
	return e
}

// Shown prints an id as it is typed: bare when it is one printable word, else quoted.
func Shown(id string) string {
	for _, r := range id {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) || r == '"' || r == '\'' {
			return strconv.Quote(id)
		}
	}
	return id
}

// suggestTenants returns the ids nearest to typed by edit distance with case folded (Acme
// is acme, at distance 0), at most 2 or a third of its length; at most three, the nearest.
func suggestTenants(typed string, ids []string) []string {
	limit := max(2, utf8.RuneCountInString(typed)/3)
	best := limit + 1
	var out []string
	lt := strings.ToLower(typed)
	for _, id := range ids {
		d := nearest.Distance(lt, strings.ToLower(id))
		switch {
		case d < best:
			best, out = d, []string{id}
		case d == best:
			out = append(out, id)
		}
	}
	if best > limit {
		return nil
	}
	sort.Strings(out)
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}
