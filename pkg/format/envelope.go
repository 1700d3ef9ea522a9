package format

import (
	"bytes"
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// DefaultReason says why a hook's rows were filed under a tenant: ReasonNone for
// a real tenant id, else which rule sent them to "default".
type DefaultReason uint8

// Why a hook files under "default". The order is part of no format; the
// String names are (they appear in JSON).
const (
	ReasonNone DefaultReason = iota
	ReasonNilTenant
	ReasonNoTenantKey
	ReasonMissingHook
	ReasonUndecodable
	ReasonNotMap
	ReasonBadTenant
)

var reasonNames = [...]string{
	ReasonNone:        "none",
	ReasonNilTenant:   "nil_tenant",
	ReasonNoTenantKey: "no_tenant_key",
	ReasonMissingHook: "missing_hook",
	ReasonUndecodable: "undecodable",
	ReasonNotMap:      "not_map",
	ReasonBadTenant:   "bad_tenant",
}

func (r DefaultReason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason?(%d)", uint8(r))
}

// IsFinding reports whether the tool must count and report the hook. A nil
// tenant, or a map without tenant_id (the contract reads it as nil), is how the
// node spells "default"; a missing, undecodable or malformed hook is not.
func (r DefaultReason) IsFinding() bool {
	switch r {
	case ReasonMissingHook, ReasonUndecodable, ReasonNotMap, ReasonBadTenant:
		return true
	}
	return false
}

var atomTenantID = etf.Atom(EnvKeyTenantID)

// TenantOf returns the tenant a hook's rows belong to and, when that is
// "default", why. found is false when the hook row is gone.
func TenantOf(hook []byte, found bool) (tenant string, reason DefaultReason) {
	id, reason := TenantIDOf(hook, found)
	if reason != ReasonNone {
		return DefaultTenant, reason
	}
	return string(id), ReasonNone
}

// TenantIDOf is TenantOf for a reader of every hook that keeps the tenant's bytes
// itself (the bulk migration's hooks' scan): the tenant id is returned in place, a part
// of hook, where the envelope is one a node writes, and is nil where reason is not
// ReasonNone (the tenant is then "default").
func TenantIDOf(hook []byte, found bool) (id []byte, reason DefaultReason) {
	if !found {
		return nil, ReasonMissingHook
	}
	if id, reason, ok := skimTenant(hook); ok {
		return id, reason
	}
	tenant, reason := decodeTenant(hook)
	if reason != ReasonNone {
		return nil, reason
	}
	return []byte(tenant), ReasonNone
}

// skimTenant is TenantOf for the envelopes a node writes, read in place
// (etf.FindMapAtom): a migration or a fold asks it of every hook. The id is a
// part of hook, nil unless reason is ReasonNone; ok is false when only decoding
// the hook can say.
func skimTenant(hook []byte) (id []byte, reason DefaultReason, ok bool) {
	v, found, isMap, ok := etf.FindMapAtom(hook, EnvKeyTenantID)
	switch {
	case !ok || !isMap:
		return nil, 0, false
	case !found:
		return nil, ReasonNoTenantKey, true
	case len(v) >= 5 && v[0] == etf.TagBinary:
		if b := v[5:]; ValidTenantID(b) {
			return b, ReasonNone, true
		}
		return nil, ReasonBadTenant, true
	}
	// FindMapAtom has checked the value: it decodes (bit binaries, the one
	// other way to spell a binary, it leaves to the decoder), and an atom
	// here is an ASCII one.
	var text []byte
	switch v[0] {
	case etf.TagSmallAtom, etf.TagSmallAtomUTF8:
		text = v[2:]
	case etf.TagAtom, etf.TagAtomUTF8:
		text = v[3:]
	}
	if text != nil && string(text) == string(etf.AtomNil) {
		return nil, ReasonNilTenant, true
	}
	return nil, ReasonBadTenant, true
}

// decodeTenant is TenantOf by decoding the whole hook.
func decodeTenant(hook []byte) (tenant string, reason DefaultReason) {
	t, err := decodeNodeTerm(hook)
	if err != nil {
		return DefaultTenant, ReasonUndecodable
	}
	m, ok := t.(etf.Map)
	if !ok {
		return DefaultTenant, ReasonNotMap
	}
	v, ok := m.Get(atomTenantID)
	if !ok {
		return DefaultTenant, ReasonNoTenantKey
	}
	return tenantOfValue(v)
}

func tenantOfValue(v etf.Term) (string, DefaultReason) {
	switch v := v.(type) {
	case etf.Atom:
		if v == etf.AtomNil {
			return DefaultTenant, ReasonNilTenant
		}
	case etf.Binary:
		if ValidTenantID(v) {
			return string(v), ReasonNone
		}
	}
	return DefaultTenant, ReasonBadTenant
}

// Envelope is the hook envelope, %Ankusa.Envelope{}.
type Envelope struct {
	ID, SourceID []byte
	TenantID     []byte
	TenantNil    bool // tenant_id is nil (TenantID is then ignored)
	// IdempotencyKey nil encodes as the atom nil; an empty non-nil slice as <<>>.
	IdempotencyKey []byte
	ReceivedAt     int64
	Headers        [][2][]byte
	Body           []byte
}

// Term builds the struct map with its keys in Erlang term order, which is how
// term_to_binary writes a small map, so fixtures look like the node's bytes.
func (e Envelope) Term() etf.Map {
	var tenant, idem etf.Term = etf.Binary(orEmpty(e.TenantID)), etf.AtomNil
	if e.TenantNil {
		tenant = etf.AtomNil
	}
	if e.IdempotencyKey != nil {
		idem = etf.Binary(e.IdempotencyKey)
	}
	hs := make([]etf.Term, len(e.Headers))
	for i, h := range e.Headers {
		hs[i] = etf.Tuple{etf.Binary(orEmpty(h[0])), etf.Binary(orEmpty(h[1]))}
	}
	return etf.Map{
		{Key: etf.Atom(EnvKeyStruct), Value: etf.Atom(EnvelopeStruct)},
		{Key: etf.Atom(EnvKeyBody), Value: etf.Binary(orEmpty(e.Body))},
		{Key: etf.Atom(EnvKeyHeaders), Value: etf.List{Elems: hs}},
		{Key: etf.Atom(EnvKeyID), Value: etf.Binary(orEmpty(e.ID))},
		{Key: etf.Atom(EnvKeyIdempotencyKey), Value: idem},
		{Key: etf.Atom(EnvKeyReceivedAt), Value: e.ReceivedAt},
		{Key: etf.Atom(EnvKeySourceID), Value: etf.Binary(orEmpty(e.SourceID))},
		{Key: etf.Atom(EnvKeyTenantID), Value: tenant},
	}
}

func orEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// EncodeEnvelope writes the envelope as term_to_binary would, optionally as
// term_to_binary(E, [compressed]).
func EncodeEnvelope(e Envelope, compressed bool) []byte {
	b := mustEncode(e.Term())
	if compressed {
		return CompressTerm(b)
	}
	return b
}

// kept is a binary of a term DecodeEnvelope decoded, as the envelope keeps
// it: the decoder's own bytes (they never alias its input), not a copy (at
// 10^6 hooks a dlq export copied every body twice); empty but not nil, as an
// absent field is.
func kept(v etf.Binary) []byte {
	if v == nil {
		return []byte{}
	}
	return v
}

// envelopeFields are the keys decodeEnvelopeSkim reads, in its order.
var envelopeFields = []string{EnvKeyID, EnvKeySourceID, EnvKeyIdempotencyKey, EnvKeyBody, EnvKeyTenantID, EnvKeyReceivedAt, EnvKeyHeaders}

// decodeEnvelopeSkim is DecodeEnvelope of an envelope whose fields are each
// of the shape a node writes (binaries, nil, a small integer, a list of
// pairs of binaries), read in place after the skimmer has checked the whole
// term as the decoder would (etf.MapAtoms): a tenth of the decoder's time,
// which boxed every element, and was an eighth of dlq export. Any other
// envelope is not answered (false), and DecodeEnvelope decodes it whole, for
// the same envelope or for its error in its words.
func decodeEnvelopeSkim(b []byte) (Envelope, bool) {
	// The envelope's bytes are its own, as the decoder's copies are: one
	// copy of the term, not one a field.
	own := bytes.Clone(b)
	var v [7][]byte
	if isMap, ok := etf.MapAtoms(own, envelopeFields, v[:]); !ok || !isMap {
		return Envelope{}, false
	}
	var e Envelope
	bin := func(v []byte, dst *[]byte, nilOK bool) bool {
		if v == nil {
			return true
		}
		if b, ok := etf.ReadBinary(v); ok {
			*dst = b
			return true
		}
		a, ok := etf.ReadAtom(v)
		return nilOK && ok && string(a) == string(etf.AtomNil)
	}
	if !bin(v[0], &e.ID, false) || !bin(v[1], &e.SourceID, false) || !bin(v[2], &e.IdempotencyKey, true) || !bin(v[3], &e.Body, false) {
		return Envelope{}, false
	}
	e.TenantNil = true
	if v[4] != nil {
		if b, ok := etf.ReadBinary(v[4]); ok {
			e.TenantID, e.TenantNil = b, false
		} else if a, ok := etf.ReadAtom(v[4]); !ok || string(a) != string(etf.AtomNil) {
			return Envelope{}, false
		}
	}
	if v[5] != nil {
		n, ok := etf.ReadInt64(v[5])
		if !ok {
			return Envelope{}, false
		}
		e.ReceivedAt = n
	}
	if v[6] != nil && !etf.ReadBinaryPairs(v[6], func(k, val []byte) { e.Headers = append(e.Headers, [2][]byte{k, val}) }) {
		return Envelope{}, false
	}
	return e, true
}

// DecodeEnvelope decodes a hook fully. Unknown keys are ignored, as the node
// does; a known key with the wrong type is an error. tenant_id may be anything
// here: TenantOf judges it.
func DecodeEnvelope(b []byte) (Envelope, error) {
	if e, ok := decodeEnvelopeSkim(b); ok {
		return e, nil
	}
	return decodeEnvelopeTerm(b)
}

// decodeEnvelopeTerm is DecodeEnvelope by the decoder: the whole term, then
// its fields.
func decodeEnvelopeTerm(b []byte) (Envelope, error) {
	t, err := decodeNodeTerm(b)
	if err != nil {
		return Envelope{}, valueErr("envelope", "%v", err)
	}
	m, ok := t.(etf.Map)
	if !ok {
		return Envelope{}, valueErr("envelope", "not a map: %s", etf.Format(t))
	}
	var e Envelope
	bin := func(key string, dst *[]byte, nilOK bool) error {
		v, ok := m.Get(etf.Atom(key))
		if !ok {
			return nil
		}
		switch v := v.(type) {
		case etf.Binary:
			*dst = kept(v)
			return nil
		case etf.Atom:
			if nilOK && v == etf.AtomNil {
				*dst = nil
				return nil
			}
		}
		return valueErr("envelope", "%s: want a binary, got %s", key, etf.Format(v))
	}
	if err := bin(EnvKeyID, &e.ID, false); err != nil {
		return e, err
	}
	if err := bin(EnvKeySourceID, &e.SourceID, false); err != nil {
		return e, err
	}
	if err := bin(EnvKeyIdempotencyKey, &e.IdempotencyKey, true); err != nil {
		return e, err
	}
	if err := bin(EnvKeyBody, &e.Body, false); err != nil {
		return e, err
	}
	if v, ok := m.Get(etf.Atom(EnvKeyTenantID)); ok {
		switch v := v.(type) {
		case etf.Binary:
			e.TenantID = kept(v)
		case etf.Atom:
			if v != etf.AtomNil {
				return e, valueErr("envelope", "tenant_id: want a binary or nil, got %s", etf.Format(v))
			}
			e.TenantNil = true
		default:
			return e, valueErr("envelope", "tenant_id: want a binary or nil, got %s", etf.Format(v))
		}
	} else {
		e.TenantNil = true
	}
	if v, ok := m.Get(etf.Atom(EnvKeyReceivedAt)); ok {
		n, ok := v.(int64)
		if !ok {
			return e, valueErr("envelope", "received_at: want a 64-bit integer, got %s", etf.Format(v))
		}
		e.ReceivedAt = n
	}
	if v, ok := m.Get(etf.Atom(EnvKeyHeaders)); ok {
		l, ok := v.(etf.List)
		if !ok || l.Tail != nil {
			return e, valueErr("envelope", "headers: want a proper list, got %s", etf.Format(v))
		}
		for _, h := range l.Elems {
			tup, ok := h.(etf.Tuple)
			if !ok || len(tup) != 2 {
				return e, valueErr("envelope", "header: want {binary, binary}, got %s", etf.Format(h))
			}
			k, ok1 := tup[0].(etf.Binary)
			val, ok2 := tup[1].(etf.Binary)
			if !ok1 || !ok2 {
				return e, valueErr("envelope", "header: want {binary, binary}, got %s", etf.Format(h))
			}
			e.Headers = append(e.Headers, [2][]byte{kept(k), kept(val)})
		}
	}
	return e, nil
}
