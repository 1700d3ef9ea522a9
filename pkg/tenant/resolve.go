package tenant

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The one rule for a tenant an operator names, wherever a command takes one (tenants show
// TENANT, --tenant of dlq scan, dlq export, scan and counters verify), as gh's issue lookup
// reads `123 | #123 | URL` once: what was typed is checked once (ParseArg, before a
// store is opened), resolved once against the store (Resolve) into a format.Tenant,
// its id and ordinal, and every layer below takes that. It is the tenant's id, or @N (or
// #N, quoted) for the tenant of ordinal N (format 3), which is how an id that is hard to
// type (zürich-東京-🚀) is named. An id that is in the store is that tenant, even when it
// starts with @ or #. A tenant the store does not have is format.ErrNoSuchTenant, "no
// tenant acmee; did you mean acme?", with the ids nearest to it by case and edit distance;
// an ordinal on a store that has none (format 2) is ErrArg, whatever the number.

// ErrArg: what was typed cannot name a tenant of this store whatever the store holds
// (not a tenant id; an ordinal on a store that has none): the caller's mistake.
var ErrArg = errors.New("not a tenant of this store")

// tenantError is a resolver's error: its words as they are, its kind (ErrArg or
// format.ErrNoSuchTenant) for errors.Is.
type tenantError struct {
	msg  string
	kind error
	// helped: the message says what to do already (the ids meant, or that the store has
	// no tenants), so a caller adds no hint of its own (MissHelped).
	helped bool
}

// MissHelped reports whether a resolver's error says what to do already: the ids
// nearest to what was typed ("did you mean acme?"), or that the store has no tenants. A
// command adds its own hint to any other (the tenants it could have named).
func MissHelped(err error) bool {
	var te *tenantError
	return errors.As(err, &te) && te.helped
}

func (e *tenantError) Error() string { return e.msg }
func (e *tenantError) Unwrap() error { return e.kind }

func tenantErrf(kind error, f string, args ...any) error {
	return &tenantError{msg: fmt.Sprintf(f, args...), kind: kind}
}

// tenantSuggestScan bounds how many tenant ids a miss reads to find what was meant.
const tenantSuggestScan = 1 << 20

// Arg is a tenant as typed, checked by ParseArg.
type Arg struct {
	// Typed is what was typed.
	Typed string
	// byOrd: Typed is @N or #N, a tenant by its ordinal; ord is N, and ordOK says N is
	// a real tenant ordinal (1 to MaxOrd: 0 is the node aggregate).
	byOrd, ordOK bool
	ord          uint32
}

// ParseArg checks what was typed for a tenant: a tenant id (1 to 256 bytes of
// UTF-8), which @N and #N also are. The one validation of a typed tenant.
func ParseArg(typed string) (Arg, error) {
	if !format.ValidTenantID([]byte(typed)) {
		return Arg{}, tenantErrf(ErrArg, "%q is not a tenant id (1 to %d bytes of UTF-8; @N names the tenant of ordinal N)", typed, format.MaxTenantIDLen)
	}
	a := Arg{Typed: typed}
	a.ord, a.byOrd, a.ordOK = parseOrdinalRef(typed)
	return a, nil
}

// OrdinalSigils are the characters that name a tenant by its ordinal: @N, which no shell
// reads as anything but itself, and #N, the first spelling, which bash and zsh read as a
// comment unless it is quoted ('#2', \#2) and which keeps working quoted.
const OrdinalSigils = "@#"

// parseOrdinalRef reads @N or #N, N decimal digits: byOrd says it is one, ok that N is a
// real tenant ordinal, which ord is.
func parseOrdinalRef(s string) (ord uint32, byOrd, ok bool) {
	if len(s) < 2 || !strings.ContainsRune(OrdinalSigils, rune(s[0])) {
		return 0, false, false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return 0, false, false
		}
	}
	n, err := strconv.ParseUint(s[1:], 10, 32)
	if err != nil || uint32(n) < format.FirstOrd || uint32(n) > format.MaxOrd {
		return 0, true, false
	}
	return uint32(n), true, true
}

// Resolve names the tenant a in st: the tenant whose id a is, or the one behind
// #N. A store mid-migration is left to the view, which refuses it (the tenant is a as
// typed, without an ordinal).
func Resolve(ctx context.Context, st *rocks.Store, a Arg) (format.Tenant, error) {
	if st.Migrating {
		return format.Tenant{ID: a.Typed}, nil
	}
	switch st.Format {
	case format.Format3:
		return resolveTenant3(ctx, st, a)
	case format.Format2:
		return resolveTenant2(ctx, st, a)
	}
	return format.Tenant{ID: a.Typed}, nil
}

func resolveTenant3(ctx context.Context, st *rocks.Store, a Arg) (format.Tenant, error) {
	if ord, err := OrdOf(st.DB, a.Typed); err == nil {
		return format.Tenant{ID: a.Typed, Ord: ord}, nil
	} else if !errors.Is(err, format.ErrNoSuchTenant) {
		return format.Tenant{}, err
	}
	if a.byOrd && !a.ordOK {
		return format.Tenant{}, tenantErrf(format.ErrNoSuchTenant, "no tenant %s: a tenant's ordinal is %d to %d (0 is the node aggregate)", a.Typed, format.FirstOrd, format.MaxOrd)
	}
	if a.byOrd {
		id, found, err := OfOrd(st.DB, a.ord)
		switch {
		case err != nil:
			return format.Tenant{}, err
		case !found:
			return format.Tenant{}, tenantErrf(format.ErrNoSuchTenant, "no tenant %s: this store has no tenant of ordinal %d", a.Typed, a.ord)
		case id == "":
			return format.Tenant{}, tenantErrf(format.ErrNoSuchTenant, "no tenant %s: the tenant of ordinal %d was erased", a.Typed, a.ord)
		}
		return format.Tenant{ID: id, Ord: a.ord}, nil
	}
	var ids []string
	err := EachByID(ctx, st, "", func(t format.Tenant) error {
		ids = append(ids, t.ID)
		if len(ids) >= tenantSuggestScan {
			return rocks.Stop
		}
		return nil
	})
	if err != nil {
		return format.Tenant{}, err
	}
	return format.Tenant{}, noTenantErr(a.Typed, ids)
}

// resolveTenant2: a format 2 store has no tenant rows and no ordinals; a tenant is the
// tenant of some hook. The first hook of the tenant ends the read; a miss reads every hook.
// An ordinal (@N, #N, whatever N) is the same mistake on format 2 whether or not N could
// be a tenant's elsewhere, unless a tenant's id is that text.
func resolveTenant2(ctx context.Context, st *rocks.Store, a Arg) (format.Tenant, error) {
	seen := map[string]bool{}
	found := false
	err := EachByID(ctx, st, "", func(t format.Tenant) error {
		if t.ID == a.Typed {
			found = true
			return rocks.Stop
		}
		if len(seen) < tenantSuggestScan {
			seen[t.ID] = true
		}
		return nil
	})
	if err != nil {
		return format.Tenant{}, err
	}
	if found {
		return format.Tenant{ID: a.Typed}, nil
	}
	if a.byOrd {
		return format.Tenant{}, tenantErrf(ErrArg, "%s names a tenant by its ordinal, and a format 2 store has none: give the tenant id", a.Typed)
	}
	ids := make([]string, 0, len(seen))
	for t := range seen {
		ids = append(ids, t)
	}
	return format.Tenant{}, noTenantErr(a.Typed, ids)
}

// EachByID calls f with the tenants of st whose id starts with prefix, until f
// returns an error (rocks.Stop ends the walk with none): on format 3 its n rows, in id
// order, each with its ordinal (0 when the n row's value does not decode, which counters
// verify reports); on format 2, where a tenant is the tenant of some hook, the tenant of
// each hook in seq order, once per hook (the caller folds repeats). What it reads is the
// caller's to bound (ctx, or f's count).
func EachByID(ctx context.Context, st *rocks.Store, prefix string, f func(t format.Tenant) error) error {
	if st.Format == format.Format2 {
		return st.DB.Scan(format.CFHooks, nil, nil, rocks.ReadOpts{}, func(k, v []byte) error {
			if len(k) != format.KeyLenHook {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			t, _ := format.TenantOf(v, true)
			if !strings.HasPrefix(t, prefix) {
				return nil
			}
			return f(format.Tenant{ID: t})
		})
	}
	lo := format.OrdByTenantKey{Tenant: prefix}.Encode()
	return st.DB.Scan(format.CFTenants, lo, format.FamOrdByTenant.Hi, rocks.ReadOpts{}, func(k, v []byte) error {
		id := string(k[1:])
		if !strings.HasPrefix(id, prefix) {
			return rocks.Stop
		}
		if len(k) == 1 {
			return nil // the family's lo sentinel
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		ord, _ := format.DecodeU32(v)
		return f(format.Tenant{ID: id, Ord: ord})
	})
}

// EachByOrd calls f with the tenants of a format 3 store in ordinal order (its t
// rows), from the first ordinal, until f returns an error (rocks.Stop ends the walk with
// none). An erased tenant (an empty t row) is no tenant, and is left out.
func EachByOrd(ctx context.Context, st *rocks.Store, f func(t format.Tenant) error) error {
	return eachTenantInOrds(ctx, st, uint64(format.FirstOrd), uint64(format.MaxOrd)+1, f)
}

// EachByOrdPrefix is EachByOrd for the ordinals whose decimal digits start with
// digits ("12": 12, 120-129, 1200-1299, ...), shortest first and ascending within a length,
// which is ascending: each length is one span of t rows, so a caller that stops after n
// tenants read n rows and a few seeks, not every t row (completion of @12 on a store of
// millions). No ordinal is written with a leading zero, so "0..." names none.
func EachByOrdPrefix(ctx context.Context, st *rocks.Store, digits string, f func(t format.Tenant) error) error {
	if digits == "" {
		return EachByOrd(ctx, st, f)
	}
	p, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || digits[0] == '0' {
		return nil
	}
	// rocks.Stop ends one span's scan without an error: the walk of the spans must hear it too.
	stop := false
	heard := func(t format.Tenant) error {
		err := f(t)
		stop = err == rocks.Stop
		return err
	}
	for lo, hi := p, p+1; lo <= uint64(format.MaxOrd) && !stop; lo, hi = lo*10, hi*10 {
		err := eachTenantInOrds(ctx, st, max(lo, uint64(format.FirstOrd)), min(hi, uint64(format.MaxOrd)+1), heard)
		if err != nil {
			return err
		}
	}
	return nil
}

// eachTenantInOrds calls f with the tenants of ordinals lo <= ord < hi.
func eachTenantInOrds(ctx context.Context, st *rocks.Store, lo, hi uint64, f func(t format.Tenant) error) error {
	if lo >= hi {
		return nil
	}
	end := format.FamTenantByOrd.Hi
	if hi <= uint64(format.MaxOrd) {
		end = format.TenantByOrdKey{Ord: uint32(hi)}.Encode()
	}
	return st.DB.Scan(format.CFTenants, format.TenantByOrdKey{Ord: uint32(lo)}.Encode(), end, rocks.ReadOpts{}, func(k, v []byte) error {
		if len(k) != format.KeyLenTenantByOrd || len(v) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		kk, err := format.DecodeTenantByOrdKey(k)
		if err != nil {
			return nil
		}
		return f(format.Tenant{ID: string(v), Ord: kk.Ord})
	})
}

// OrdOf reads the ordinal of the tenant id from its n row: format.ErrNoSuchTenant when
// it has none.
func OrdOf(db *rocks.DB, id string) (uint32, error) {
	v, ok, err := db.Get(format.CFTenants, format.OrdByTenantKey{Tenant: id}.Encode())
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%w: %q has no n row in this store (never seen, or erased)", format.ErrNoSuchTenant, id)
	}
	ord, err := format.DecodeU32(v)
	if err != nil {
		return 0, fmt.Errorf("%w: the n row of %q is %x: %v", rocks.ErrCorrupt, id, v, err)
	}
	return ord, nil
}

// OfOrd reads the id of the tenant of ord from its t row: found is false when there
// is none, and an erased tenant (an empty t row) is found with id "".
func OfOrd(db *rocks.DB, ord uint32) (id string, found bool, err error) {
	v, found, err := db.Get(format.CFTenants, format.TenantByOrdKey{Ord: ord}.Encode())
	if err != nil || !found {
		return "", false, err
	}
	return string(v), true, nil
}
