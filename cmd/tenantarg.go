package cmd

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The one rule for a tenant an operator names, wherever a command takes one (tenants show
// TENANT, --tenant of dlq scan, scan and counters verify): its id, or #N for the tenant of
// ordinal N (format 3), which is how an id that is hard to type (zürich-東京-🚀) is named.
// An id that is in the store is that tenant, even when it starts with #. A tenant the
// store does not have is exit 1 everywhere, "no tenant acmee; did you mean acme?", with
// the ids nearest to it by case and edit distance.

// tenantSuggestScan bounds how many tenant ids a miss reads to find what was meant.
const tenantSuggestScan = 1 << 20

// resolveTenant returns the tenant id typed names in st (typed itself, or the id behind
// #N). A store mid-migration is left to the view, which refuses it.
func resolveTenant(ctx context.Context, st *rocks.Store, typed string) (string, error) {
	if st.Migrating {
		return typed, nil
	}
	if !format.ValidTenantID([]byte(typed)) {
		return "", usageErr("%q is not a tenant id (1 to %d bytes of UTF-8; #N names the tenant of ordinal N)", typed, format.MaxTenantIDLen)
	}
	switch st.Format {
	case format.Format3:
		return resolveTenant3(st.DB, typed)
	case format.Format2:
		return resolveTenant2(ctx, st.DB, typed)
	}
	return typed, nil
}

func resolveTenant3(db *rocks.DB, typed string) (string, error) {
	if _, err := inspect.TenantOrd(db, typed); err == nil {
		return typed, nil
	} else if !errors.Is(err, inspect.ErrNoSuchTenant) {
		return "", err
	}
	if ord, ok := parseOrdinalRef(typed); ok {
		name, found, err := inspect.TenantOfOrd(db, ord)
		switch {
		case err != nil:
			return "", err
		case !found:
			return "", findingsErr("no tenant %s: this store has no tenant of ordinal %d", typed, ord)
		case name == "(erased)":
			return "", findingsErr("no tenant %s: the tenant of ordinal %d was erased", typed, ord)
		}
		return name, nil
	}
	var ids []string
	lo, hi := format.FamOrdByTenant.Prefix, format.FamOrdByTenant.PrefixEnd()
	err := db.ScanKeys(format.CFTenants, lo, hi, rocks.ReadOpts{}, func(k []byte) error {
		if len(k) > 1 && k[len(k)-1] != 0xFF {
			ids = append(ids, string(k[1:]))
		}
		if len(ids) >= tenantSuggestScan {
			return rocks.Stop
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return "", noTenantErr(typed, ids)
}

// resolveTenant2: a format 2 store has no tenant rows and no ordinals; a tenant is the
// tenant of some hook. The first hook of the tenant ends the read; a miss reads every hook.
func resolveTenant2(ctx context.Context, db *rocks.DB, typed string) (string, error) {
	if _, ok := parseOrdinalRef(typed); ok {
		return "", usageErr("%s names a tenant by its ordinal, and a format 2 store has none: give the tenant id", typed)
	}
	seen := map[string]bool{}
	found := false
	err := db.Scan(format.CFHooks, nil, nil, rocks.ReadOpts{}, func(k, v []byte) error {
		if len(k) != format.KeyLenHook {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		t, _ := format.TenantOf(v, true)
		if t == typed {
			found = true
			return rocks.Stop
		}
		if len(seen) < tenantSuggestScan {
			seen[t] = true
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if found {
		return typed, nil
	}
	ids := make([]string, 0, len(seen))
	for t := range seen {
		ids = append(ids, t)
	}
	return "", noTenantErr(typed, ids)
}

// parseOrdinalRef reads #N (N a real tenant ordinal).
func parseOrdinalRef(s string) (uint32, bool) {
	if !strings.HasPrefix(s, "#") {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:], 10, 32)
	if err != nil || uint32(n) < format.FirstOrd || uint32(n) > format.MaxOrd {
		return 0, false
	}
	return uint32(n), true
}

// noTenantErr is the one message for a tenant the store does not have (exit 1).
func noTenantErr(typed string, ids []string) error {
	msg := "no tenant " + tenantShown(typed)
	if s := suggestTenants(typed, ids); len(s) > 0 {
		for i := range s {
			s[i] = tenantShown(s[i])
		}
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	} else if len(ids) == 0 {
		msg += " (the store has no tenants)"
	}
	return findingsErr("%s", msg)
}

// tenantShown prints an id as it is typed: bare when it is one printable word, else quoted.
func tenantShown(id string) string {
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
		d := editDistance(lt, strings.ToLower(id))
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
	return firstN(out, 3)
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// editDistance is the Levenshtein distance of a and b, by runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// tenant is resolveTenant for a command: when #N named the tenant, a note on stderr says
// which id that is.
func (env *Env) tenant(ctx context.Context, st *rocks.Store, typed string) (string, error) {
	id, err := resolveTenant(ctx, st, typed)
	if err == nil && id != typed && !env.Quiet && !env.JSON() {
		fmt.Fprintf(env.IO.Err, "note: %s is tenant %s\n", typed, tenantShown(id))
	}
	return id, err
}
