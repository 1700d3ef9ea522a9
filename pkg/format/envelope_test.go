package format

import (
	"bytes"
	"encoding/hex"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

func sampleEnvelope() Envelope {
	return Envelope{
		ID:             []byte("01JDW0K3B5N4E7Q1Z8Y6X2V9T0"),
		SourceID:       []byte("src_stripe"),
		TenantID:       []byte("acme"),
		IdempotencyKey: []byte("evt_123"),
		ReceivedAt:     1764496800123,
		Headers:        [][2][]byte{{[]byte("content-type"), []byte("application/json")}, {[]byte("x-sig"), []byte("v1=abc")}},
		Body:           bytes.Repeat([]byte(`{"type":"invoice.paid","amount":1200}`), 8),
	}
}

// envelopeMap builds an envelope map by hand, for the shapes EncodeEnvelope
// never writes.
func envelopeMap(tenant etf.Term, withTenant bool) etf.Map {
	m := etf.Map{
		{Key: etf.Atom(EnvKeyStruct), Value: etf.Atom(EnvelopeStruct)},
		{Key: etf.Atom(EnvKeyID), Value: etf.Binary("id")},
	}
	if withTenant {
		m = append(m, etf.MapPair{Key: etf.Atom(EnvKeyTenantID), Value: tenant})
	}
	return m
}

func TestTenantOf(t *testing.T) {
	env := sampleEnvelope()
	nilEnv := env
	nilEnv.TenantNil = true
	compressed := EncodeEnvelope(env, true)
	brokenCompressed := append([]byte{}, compressed...)
	brokenCompressed[len(brokenCompressed)-3] ^= 0xFF // zlib checksum no longer matches
	// tenant_id encoded as an OTP 25 ATOM_EXT key: readers accept every atom form.
	otp25 := []byte{131, 116, 0, 0, 0, 1, 100, 0, 9}
	otp25 = append(otp25, "tenant_id"...)
	otp25 = append(otp25, 109, 0, 0, 0, 3)
	otp25 = append(otp25, "t25"...)
	cases := []struct {
		name    string
		hook    []byte
		found   bool
		tenant  string
		reason  DefaultReason
		finding bool
	}{
		{"tenant", EncodeEnvelope(env, false), true, "acme", ReasonNone, false},
		{"tenant compressed", compressed, true, "acme", ReasonNone, false},
		{"atom_ext key", otp25, true, "t25", ReasonNone, false},
		// binary_to_term/1 ignores bytes after the term, so the node reads this tenant.
		{"trailing bytes", append(EncodeEnvelope(env, false), 0, 1, 2), true, "acme", ReasonNone, false},
		{"nil tenant", EncodeEnvelope(nilEnv, false), true, DefaultTenant, ReasonNilTenant, false},
		{"nil tenant compressed", EncodeEnvelope(nilEnv, true), true, DefaultTenant, ReasonNilTenant, false},
		{"no tenant_id key", mustEncode(envelopeMap(nil, false)), true, DefaultTenant, ReasonNoTenantKey, false},
		{"missing hook", nil, false, DefaultTenant, ReasonMissingHook, true},
		{"empty hook", []byte{}, true, DefaultTenant, ReasonUndecodable, true},
		{"garbage", []byte("not etf"), true, DefaultTenant, ReasonUndecodable, true},
		{"truncated", EncodeEnvelope(env, false)[:40], true, DefaultTenant, ReasonUndecodable, true},
		{"broken compressed", brokenCompressed, true, DefaultTenant, ReasonUndecodable, true},
		{"tuple", mustEncode(etf.Tuple{etf.Atom("tenant_id"), etf.Binary("acme")}), true, DefaultTenant, ReasonNotMap, true},
		{"binary", mustEncode(etf.Binary("acme")), true, DefaultTenant, ReasonNotMap, true},
		{"tenant atom", mustEncode(envelopeMap(etf.Atom("acme"), true)), true, DefaultTenant, ReasonBadTenant, true},
		{"tenant integer", mustEncode(envelopeMap(int64(7), true)), true, DefaultTenant, ReasonBadTenant, true},
		{"tenant charlist", mustEncode(envelopeMap(etf.List{Elems: []etf.Term{int64('a')}}, true)), true, DefaultTenant, ReasonBadTenant, true},
		{"tenant empty", mustEncode(envelopeMap(etf.Binary(""), true)), true, DefaultTenant, ReasonBadTenant, true},
		{"tenant bad utf8", mustEncode(envelopeMap(etf.Binary("a\xffb"), true)), true, DefaultTenant, ReasonBadTenant, true},
		{"tenant 257 bytes", mustEncode(envelopeMap(etf.Binary(strings.Repeat("t", 257)), true)), true, DefaultTenant, ReasonBadTenant, true},
		{"tenant 256 bytes", mustEncode(envelopeMap(etf.Binary(strings.Repeat("t", 256)), true)), true, strings.Repeat("t", 256), ReasonNone, false},
		{"tenant binary key", mustEncode(etf.Map{{Key: etf.Binary("tenant_id"), Value: etf.Binary("acme")}}), true, DefaultTenant, ReasonNoTenantKey, false},
		{"tenant in opaque-bearing map", mustEncode(envelopeMap(etf.Binary("ops"), true)), true, "ops", ReasonNone, false},
	}
	// The cases skimTenant answers itself; the others need the decoder.
	skimmed := map[string]bool{
		"tenant": true, "atom_ext key": true, "trailing bytes": true, "nil tenant": true,
		"no tenant_id key": true, "tenant atom": true, "tenant integer": true, "tenant empty": true,
		"tenant bad utf8": true, "tenant charlist": true, "tenant 257 bytes": true, "tenant 256 bytes": true,
		"tenant in opaque-bearing map": true,
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tenant, reason := TenantOf(c.hook, c.found)
			if tenant != c.tenant || reason != c.reason {
				t.Fatalf("TenantOf = %q, %v; want %q, %v", tenant, reason, c.tenant, c.reason)
			}
			if !c.found {
				return
			}
			// Both ways of reading a hook give this answer, and the node's
			// own envelopes are read in place.
			if dt, dr := decodeTenant(c.hook); dt != c.tenant || dr != c.reason {
				t.Fatalf("decodeTenant = %q, %v; want %q, %v", dt, dr, c.tenant, c.reason)
			}
			st, sr, ok := skimTenantText(c.hook)
			if ok && (st != c.tenant || sr != c.reason) {
				t.Fatalf("skimTenant = %q, %v; want %q, %v", st, sr, c.tenant, c.reason)
			}
			if wantSkim := skimmed[c.name]; ok != wantSkim {
				t.Fatalf("skimTenant answered: %v, want %v", ok, wantSkim)
			}
			// The bytes' reading answers as TenantOf does, the id in place where skimmed.
			id, ir := TenantIDOf(c.hook, c.found)
			if ir != c.reason || (ir == ReasonNone) != (id != nil) || ir == ReasonNone && string(id) != c.tenant {
				t.Fatalf("TenantIDOf = %q, %v; want %q, %v", id, ir, c.tenant, c.reason)
			}
			if ok && id != nil && !within(id, c.hook) {
				t.Fatal("TenantIDOf copied a tenant it read in place")
			}
			if reason.IsFinding() != c.finding {
				t.Fatalf("%v.IsFinding() = %v", reason, reason.IsFinding())
			}
		})
	}
}

func TestReasonNames(t *testing.T) {
	want := map[DefaultReason]string{
		ReasonNone: "none", ReasonNilTenant: "nil_tenant", ReasonNoTenantKey: "no_tenant_key",
		ReasonMissingHook: "missing_hook", ReasonUndecodable: "undecodable", ReasonNotMap: "not_map",
		ReasonBadTenant: "bad_tenant", DefaultReason(99): "reason?(99)",
	}
	for r, s := range want {
		if r.String() != s {
			t.Errorf("%d.String() = %q, want %q", r, r.String(), s)
		}
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	env := sampleEnvelope()
	nilEnv := Envelope{ID: []byte("i"), SourceID: []byte("s"), TenantNil: true, Body: []byte{}}
	// Empty binaries, which must not come back as the nil atom.
	emptyEnv := Envelope{ID: []byte{}, SourceID: []byte{}, TenantID: []byte{}, IdempotencyKey: []byte{}, Body: []byte{}}
	for _, e := range []Envelope{env, nilEnv, emptyEnv} {
		for _, compressed := range []bool{false, true} {
			b := EncodeEnvelope(e, compressed)
			if compressed != (b[1] == 80) {
				t.Fatalf("compressed=%v: tag %d", compressed, b[1])
			}
			back, err := DecodeEnvelope(b)
			if err != nil {
				t.Fatal(err)
			}
			// A node's plain envelope is read in place, as the decoder reads it;
			// a compressed one is left to the decoder.
			if skimmed, ok := decodeEnvelopeSkim(b); ok == compressed || (ok && !reflect.DeepEqual(skimmed, back)) {
				t.Fatalf("compressed=%v: read in place: %v, %+v; decoded %+v", compressed, ok, skimmed, back)
			}
			if !etf.Equal(back.Term(), e.Term()) {
				t.Fatalf("round trip:\n got %s\nwant %s", etf.Format(back.Term()), etf.Format(e.Term()))
			}
			if back.IdempotencyKey == nil != (e.IdempotencyKey == nil) || back.TenantNil != e.TenantNil {
				t.Fatalf("nil flags lost: %+v", back)
			}
		}
	}
	if b := EncodeEnvelope(env, true); len(b) >= len(EncodeEnvelope(env, false)) {
		t.Errorf("the repetitive sample did not compress: %d bytes", len(b))
	}
	for name, b := range map[string][]byte{
		"tuple":          mustEncode(etf.Tuple{}),
		"id atom":        mustEncode(etf.Map{{Key: etf.Atom("id"), Value: etf.Atom("x")}}),
		"tenant int":     mustEncode(envelopeMap(int64(1), true)),
		"headers tuple":  mustEncode(etf.Map{{Key: etf.Atom("headers"), Value: etf.Tuple{}}}),
		"header 3-tuple": mustEncode(etf.Map{{Key: etf.Atom("headers"), Value: etf.List{Elems: []etf.Term{etf.Tuple{etf.Binary("a"), etf.Binary("b"), etf.Binary("c")}}}}}),
		"received float": mustEncode(etf.Map{{Key: etf.Atom("received_at"), Value: 1.0}}),
	} {
		if _, err := DecodeEnvelope(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// TestEnvelopeErlang asks a real Erlang node to read our compressed envelope:
// binary_to_term must accept the tag 80 framing and find the tenant, and
// term_to_binary of what it read must be our uncompressed bytes.
func TestEnvelopeErlang(t *testing.T) {
	erl, err := exec.LookPath("erl")
	if err != nil {
		t.Skip("erl not installed")
	}
	env := sampleEnvelope()
	env.TenantID = []byte("zürich-ü")
	comp := hex.EncodeToString(EncodeEnvelope(env, true))
	plain := hex.EncodeToString(EncodeEnvelope(env, false))
	script := `B = binary:decode_hex(<<"` + comp + `">>),
P = binary:decode_hex(<<"` + plain + `">>),
T = binary_to_term(B),
#{tenant_id := Tn, '__struct__' := S} = T,
io:format("tenant=~s~n", [binary:encode_hex(Tn)]),
io:format("struct=~s~n", [S]),
io:format("same=~p~n", [term_to_binary(T, [{minor_version, 2}]) =:= P]),
io:format("plain=~p~n", [binary_to_term(P) =:= T]),
halt().`
	out, err := exec.Command(erl, "-noshell", "-eval", script).CombinedOutput()
	if err != nil {
		t.Fatalf("erl: %v\n%s", err, out)
	}
	want := "tenant=" + strings.ToUpper(hex.EncodeToString(env.TenantID)) + "\nstruct=Elixir.Ankusa.Envelope\nsame=true\nplain=true\n"
	if string(out) != want {
		t.Fatalf("erl said:\n%s\nwant:\n%s", out, want)
	}
}

// BenchmarkTenantOf: the hook read in place against the whole decode, on the
// node's envelope (go test -bench TenantOf ./pkg/format).
func BenchmarkTenantOf(b *testing.B) {
	hook := EncodeEnvelope(sampleEnvelope(), false)
	for _, c := range []struct {
		name string
		read func([]byte) (string, DefaultReason)
	}{
		{"in-place", func(h []byte) (string, DefaultReason) { return TenantOf(h, true) }},
		{"decoded", decodeTenant},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(hook)))
			for b.Loop() {
				if tenant, _ := c.read(hook); tenant != "acme" {
					b.Fatal(tenant)
				}
			}
		})
	}
}

// BenchmarkDecodeEnvelope: the node's envelope read in place against the
// whole decode (go test -bench DecodeEnvelope ./pkg/format).
func BenchmarkDecodeEnvelope(b *testing.B) {
	benchReaders(b, EncodeEnvelope(sampleEnvelope(), false), ValueReader.DecodeEnvelope)
}

// within reports whether part lies inside whole's bytes (a slice of it, not a copy).
func within(part, whole []byte) bool {
	p, w := uintptr(unsafe.Pointer(unsafe.SliceData(part))), uintptr(unsafe.Pointer(unsafe.SliceData(whole)))
	return p >= w && p+uintptr(len(part)) <= w+uintptr(len(whole))
}

// skimTenantText is skimTenant with its id spelled as TenantOf spells it ("default" where
// the reason is not ReasonNone).
func skimTenantText(hook []byte) (string, DefaultReason, bool) {
	id, reason, ok := skimTenant(hook)
	if reason != ReasonNone {
		return DefaultTenant, reason, ok
	}
	return string(id), reason, ok
}
