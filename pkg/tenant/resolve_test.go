package tenant

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func TestSuggestTenants(t *testing.T) {
	ids := []string{"acme", "initech", "zürich-東京-🚀", "default", "globex", "Umbrella", "GLOBEX-Corp"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"acmee", []string{"acme"}},
		{"Acme", []string{"acme"}},
		{"ACME", []string{"acme"}},
		{"acm", []string{"acme"}},
		{"inetech", []string{"initech"}},
		{"umbrella", []string{"Umbrella"}},
		{"globex-corp", []string{"GLOBEX-Corp"}},
		{"zürich-東京-🚁", []string{"zürich-東京-🚀"}},
		{"nobody-at-all", nil},
		{"x", nil},
	} {
		if got := suggestTenants(tc.typed, ids); !slices.Equal(got, tc.want) {
			t.Errorf("suggestTenants(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

func TestParseOrdinalRef(t *testing.T) {
	for _, tc := range []struct {
		s         string
		ord       uint32
		byOrd, ok bool
	}{
		{"#1", 1, true, true}, {"@1", 1, true, true}, {"#4294967294", 4294967294, true, true}, {"@4294967294", 4294967294, true, true},
		{"#0", 0, true, false}, {"@0", 0, true, false}, {"#4294967295", 0, true, false}, {"@99999999999", 0, true, false},
		{"#", 0, false, false}, {"@", 0, false, false}, {"#x", 0, false, false}, {"1", 0, false, false}, {"#-1", 0, false, false},
		{"@+1", 0, false, false}, {"@1x", 0, false, false}, {"acme@1", 0, false, false},
	} {
		ord, byOrd, ok := parseOrdinalRef(tc.s)
		if byOrd != tc.byOrd || ok != tc.ok || ord != tc.ord {
			t.Errorf("parseOrdinalRef(%q) = %d, %v, %v; want %d, %v, %v", tc.s, ord, byOrd, ok, tc.ord, tc.byOrd, tc.ok)
		}
	}
}

// tenantStore writes a store of the given format whose hooks are those of tenants, one
// each (the default tenant's envelope with a nil tenant, as a node writes it), each
// tenant with its t and n rows on format 3; extra is written as it is. The store is
// returned open read-only, as a command resolves against it.
func tenantStore(t *testing.T, storeFormat uint32, tenants []string, extra func(w *storetest.Writer)) *rocks.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	w := storetest.NewWriter(storeFormat)
	for i, id := range tenants {
		seq := uint64(100 + i)
		e := format.Envelope{ID: []byte(fmt.Sprintf("hook-%d", seq)), TenantID: []byte(id), TenantNil: id == format.DefaultTenant, ReceivedAt: 1}
		w.B.Put(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(e, false))
		if storeFormat == format.Format3 {
			w.Ord(id)
		}
	}
	if extra != nil {
		extra(w)
	}
	w.Commit(t, storetest.Create(t, dir, storeFormat, rocks.Tuning{}), true)
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatalf("open read-only: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// The resolver: an id, #N, a miss with what was meant, an erased ordinal, #N on format 2,
// an id that is no tenant id; one error for a tenant the store does not have.
func TestResolveTenant(t *testing.T) {
	st := tenantStore(t, format.Format3, []string{"acme", "beta", format.DefaultTenant}, nil)
	ctx := context.Background()
	resolve := func(st *rocks.Store, typed string) (format.Tenant, error) {
		a, err := ParseArg(typed)
		if err != nil {
			return format.Tenant{}, err
		}
		return Resolve(ctx, st, a)
	}
	acme, err := resolve(st, "acme")
	if err != nil || acme.ID != "acme" || !acme.HasOrd() {
		t.Fatalf("acme: %+v %v", acme, err)
	}
	for _, sigil := range OrdinalSigils {
		byOrd, err := resolve(st, fmt.Sprintf("%c%d", sigil, acme.Ord))
		if err != nil || byOrd != acme {
			t.Errorf("%c%d: %+v %v, want %+v", sigil, acme.Ord, byOrd, err, acme)
		}
	}
	for _, tc := range []struct{ typed, msg string }{
		{"acmee", "no tenant acmee; did you mean acme?"},
		{"nobody-at-all", "no tenant nobody-at-all"},
		{"#99", "no tenant #99: this store has no tenant of ordinal 99"},
		{"@99", "no tenant @99: this store has no tenant of ordinal 99"},
		{"@0", "no tenant @0: a tenant's ordinal is 1 to 4294967294 (0 is the node aggregate)"},
		{"#0", "no tenant #0: a tenant's ordinal is 1 to 4294967294 (0 is the node aggregate)"},
	} {
		if _, err := resolve(st, tc.typed); !errors.Is(err, format.ErrNoSuchTenant) || err.Error() != tc.msg {
			t.Errorf("%s: %v, want ErrNoSuchTenant %q", tc.typed, err, tc.msg)
		}
	}
	if _, err := resolve(st, strings.Repeat("x", 300)); !errors.Is(err, ErrArg) {
		t.Errorf("a tenant id of 300 bytes: %v, want ErrArg", err)
	}

	erased := tenantStore(t, format.Format3, []string{"acme"}, func(w *storetest.Writer) {
		w.B.Put(format.CFTenants, format.TenantByOrdKey{Ord: 7}.Encode(), nil)
	})
	if _, err := resolve(erased, "#7"); !errors.Is(err, format.ErrNoSuchTenant) || err.Error() != "no tenant #7: the tenant of ordinal 7 was erased" {
		t.Errorf("#7 erased: %v", err)
	}

	st2 := tenantStore(t, format.Format2, []string{"acme", "beta", format.DefaultTenant}, nil)
	if got, err := resolve(st2, "acme"); err != nil || got != (format.Tenant{ID: "acme"}) {
		t.Errorf("format 2 acme: %+v %v", got, err)
	}
	// The same mistake is the same error on format 2, whatever the number.
	for _, typed := range []string{"#1", "@1", "#0", "@0", "@99999999999"} {
		if _, err := resolve(st2, typed); !errors.Is(err, ErrArg) {
			t.Errorf("format 2 %s: %v, want ErrArg", typed, err)
		}
	}
	if _, err := resolve(st2, "Acme"); !errors.Is(err, format.ErrNoSuchTenant) || err.Error() != "no tenant Acme; did you mean acme?" {
		t.Errorf("format 2 Acme: %v", err)
	}
}

// The ordinals completion offers for @N typed in part: those whose digits start with what
// is typed, ascending, and a caller that stops is heard across the spans (one per length).
func TestEachTenantByOrdPrefix(t *testing.T) {
	ords := []uint32{1, 2, 9, 10, 12, 19, 20, 100, 123, 129, 130, 1000, 1234, 12345, 99999, format.MaxOrd}
	st := tenantStore(t, format.Format3, nil, func(w *storetest.Writer) {
		for _, o := range ords {
			w.B.Put(format.CFTenants, format.TenantByOrdKey{Ord: o}.Encode(), []byte(fmt.Sprintf("t%d", o)))
		}
		w.B.Put(format.CFTenants, format.TenantByOrdKey{Ord: 121}.Encode(), nil) // erased: no tenant
	})
	ctx := context.Background()
	for _, tc := range []struct {
		digits string
		stop   int // stop after this many (0: never)
		want   []uint32
	}{
		{"", 0, ords},
		{"1", 0, []uint32{1, 10, 12, 19, 100, 123, 129, 130, 1000, 1234, 12345}},
		{"12", 0, []uint32{12, 123, 129, 1234, 12345}},
		{"12", 2, []uint32{12, 123}},
		{"1", 4, []uint32{1, 10, 12, 19}},
		{"121", 0, nil},
		{"9", 0, []uint32{9, 99999}},
		{"4294967294", 0, []uint32{format.MaxOrd}},
		{"42949672", 0, []uint32{format.MaxOrd}},
		{"4294967295", 0, nil},
		{"0", 0, nil},
		{"01", 0, nil},
		{"x", 0, nil},
		{"99999999999999999999999", 0, nil},
	} {
		var got []uint32
		err := EachByOrdPrefix(ctx, st, tc.digits, func(tn format.Tenant) error {
			if tn.ID != fmt.Sprintf("t%d", tn.Ord) {
				t.Errorf("%q: ordinal %d has id %q", tc.digits, tn.Ord, tn.ID)
			}
			got = append(got, tn.Ord)
			if len(got) == tc.stop {
				return rocks.Stop
			}
			return nil
		})
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("EachByOrdPrefix(%q, stop %d) = %v, %v; want %v", tc.digits, tc.stop, got, err, tc.want)
		}
	}
}
