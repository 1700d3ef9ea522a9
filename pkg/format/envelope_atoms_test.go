package format

import (
	"encoding/binary"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// atomForms are the four atom encodings, each with its length field's size:
// nodes of OTP 25 and older write 100 (and 115), of OTP 26 and later 119 (and
// 118), and the fast path reads the text at a different offset for each.
var atomForms = []struct {
	tag    byte
	wide   bool // a 16-bit length
	latin1 bool
}{
	{etf.TagAtom, true, true},
	{etf.TagSmallAtom, false, true},
	{etf.TagAtomUTF8, true, false},
	{etf.TagSmallAtomUTF8, false, false},
}

func appendAtomForm(dst []byte, form int, text string) []byte {
	f := atomForms[form]
	dst = append(dst, f.tag)
	if f.wide {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(text)))
	} else {
		dst = append(dst, byte(len(text)))
	}
	return append(dst, text...)
}

// hookOf writes a map of the given pairs, each already encoded.
func hookOf(pairs ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32([]byte{131, etf.TagMap}, uint32(len(pairs)/2))
	for _, p := range pairs {
		b = append(b, p...)
	}
	return b
}

// Every atom form of tenant_id's value and of the key itself reaches its
// branch of skimTenant, which must read as the decoder does: nil is the nil
// tenant whichever tag spells it, any other atom a bad tenant.
func TestSkimTenantAtomForms(t *testing.T) {
	values := []struct {
		text   string
		reason DefaultReason
	}{
		{"nil", ReasonNilTenant},
		{"acme", ReasonBadTenant},
		{"ni", ReasonBadTenant},
		{"nill", ReasonBadTenant},
		{"Nil", ReasonBadTenant},
		{"", ReasonBadTenant},
	}
	for keyForm := range atomForms {
		for valForm := range atomForms {
			for _, v := range values {
				name := fmt.Sprintf("key %d, value %d %q", atomForms[keyForm].tag, atomForms[valForm].tag, v.text)
				t.Run(name, func(t *testing.T) {
					hook := hookOf(appendAtomForm(nil, keyForm, EnvKeyTenantID), appendAtomForm(nil, valForm, v.text),
						appendAtomForm(nil, valForm, "id"), []byte{etf.TagBinary, 0, 0, 0, 1, 'i'})
					tenant, reason, ok := skimTenantText(hook)
					if !ok {
						t.Fatal("the fast path gave up on a node's envelope")
					}
					if tenant != DefaultTenant || reason != v.reason {
						t.Fatalf("skimTenant = %q, %v; want %q, %v", tenant, reason, DefaultTenant, v.reason)
					}
					if dt, dr := decodeTenant(hook); dt != tenant || dr != reason {
						t.Fatalf("decoded %q, %v; read in place %q, %v", dt, dr, tenant, reason)
					}
				})
			}
		}
	}
}

// The fast path against the slow one (the decoder and the tenant rules) on
// generated hooks: maps of up to 12 ASCII atom keys in any of the four forms,
// tenant_id among them or not, its value a binary, an atom (nil above all)
// in any form, an integer, a tuple or a list, other values like them, and
// perhaps bytes after the term. Everything generated is what the fast path
// reads itself, so it must answer, and answer as decodeTenant does. Each
// generated map is also checked with tenant_id's value replaced by an atom
// (nil, and the drawn text) in each of the four forms, so that every example
// reaches every atom branch of skimTenant, ATOM_EXT's offset included: left to
// chance, a run of 100 examples missed it in 4 seeds of 10.
func TestSkimTenantMatchesDecoder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		form := rapid.IntRange(0, len(atomForms)-1)
		atomText := rapid.SampledFrom([]string{"nil", "nil", "acme", "ni", "nill", "Nil", "true", "", "tenant_id", "id"})
		var value func(depth int) *rapid.Generator[[]byte]
		value = func(depth int) *rapid.Generator[[]byte] {
			return rapid.Custom(func(t *rapid.T) []byte {
				kind := rapid.IntRange(0, 5).Draw(t, "kind")
				if depth > 2 && kind >= 4 {
					kind = 0
				}
				switch kind {
				case 0:
					s := rapid.SliceOfN(rapid.Byte(), 0, 258).Draw(t, "bin")
					return append(binary.BigEndian.AppendUint32([]byte{etf.TagBinary}, uint32(len(s))), s...)
				case 1:
					return appendAtomForm(nil, form.Draw(t, "form"), atomText.Draw(t, "atom"))
				case 2:
					return []byte{etf.TagSmallInteger, rapid.Byte().Draw(t, "int")}
				case 3:
					return binary.BigEndian.AppendUint32([]byte{etf.TagInteger}, rapid.Uint32().Draw(t, "int32"))
				case 4:
					n := rapid.IntRange(0, 3).Draw(t, "arity")
					b := []byte{etf.TagSmallTuple, byte(n)}
					for range n {
						b = append(b, value(depth+1).Draw(t, "elem")...)
					}
					return b
				default:
					n := rapid.IntRange(0, 3).Draw(t, "len")
					if n == 0 {
						return []byte{etf.TagNil}
					}
					b := binary.BigEndian.AppendUint32([]byte{etf.TagList}, uint32(n))
					for range n {
						b = append(b, value(depth+1).Draw(t, "elem")...)
					}
					return append(b, etf.TagNil)
				}
			})
		}
		keys := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{
			EnvKeyTenantID, EnvKeyTenantID, "__struct__", "id", "source_id", "idempotency_key",
			"received_at", "headers", "body", "x", "tenant", "tenant_idx", "tenant_i",
		}), 0, 12, func(s string) string { return s }).Draw(t, "keys")
		var pairs [][]byte
		for _, k := range keys {
			pairs = append(pairs, appendAtomForm(nil, form.Draw(t, "keyform"), k), value(0).Draw(t, "value"))
		}
		trailing := rapid.SliceOfN(rapid.Byte(), 0, 3).Draw(t, "trailing")
		check := func(pairs [][]byte) {
			hook := append(hookOf(pairs...), trailing...)
			tenant, reason, ok := skimTenantText(hook)
			if !ok {
				t.Fatalf("the fast path gave up on %x", hook)
			}
			if dt, dr := decodeTenant(hook); dt != tenant || dr != reason {
				t.Fatalf("%x: read in place %q, %v; decoded %q, %v", hook, tenant, reason, dt, dr)
			}
			if tt, tr := TenantOf(hook, true); tt != tenant || tr != reason {
				t.Fatalf("%x: TenantOf %q, %v; skimTenant %q, %v", hook, tt, tr, tenant, reason)
			}
		}
		check(pairs)

		// The same map with tenant_id (put in if it is not there) an atom of each form.
		at := -1
		for i, k := range keys {
			if k == EnvKeyTenantID {
				at = 2*i + 1
			}
		}
		if at < 0 {
			pairs = append(pairs, appendAtomForm(nil, form.Draw(t, "keyform"), EnvKeyTenantID), nil)
			at = len(pairs) - 1
		}
		for _, text := range []string{"nil", atomText.Draw(t, "atom")} {
			for f := range atomForms {
				pairs[at] = appendAtomForm(nil, f, text)
				check(pairs)
			}
		}
	})
}
