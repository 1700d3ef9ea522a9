package format

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// Each fuzz target checks, for arbitrary bytes: no panic, and that whatever a
// decoder accepts re-encodes to exactly the input (so decoding loses nothing
// and two different keys never decode alike).

type anyKey interface {
	Encode() []byte
	String() string
}

func checkReencode[K anyKey](t *testing.T, what string, b []byte, dec func([]byte) (K, error)) {
	k, err := dec(b)
	_ = k.String()
	if err != nil {
		return
	}
	if got := k.Encode(); !bytes.Equal(got, b) {
		t.Fatalf("%s: encode(decode(%x)) = %x", what, b, got)
	}
}

func seedKeys(f *testing.F) {
	for _, c := range keyCases {
		f.Add(c.key.Encode())
	}
	for _, fam := range AllFamilies() {
		f.Add(fam.Lo)
		f.Add(fam.Hi)
	}
}

func FuzzIndexKeys(f *testing.F) {
	seedKeys(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkReencode(t, "due_v2", b, DecodeDueV2Key)
		checkReencode(t, "inflight_v2", b, DecodeInflightV2Key)
		checkReencode(t, "due", b, DecodeDueKey)
		checkReencode(t, "inflight", b, DecodeInflightKey)
		checkReencode(t, "dead", b, DecodeDeadKey)
		checkReencode(t, "dead_by_tenant", b, DecodeDeadByTenantKey)
		checkReencode(t, "archive", b, DecodeArchiveKey)
		checkReencode(t, "active", b, DecodeActiveKey)
		d := DecodeKey(CFIndex, b)
		_ = d.String()
		if k, ok := d.Key.(anyKey); ok && !bytes.Equal(k.Encode(), b) {
			t.Fatalf("DecodeKey(index, %x) = %v, which encodes to %x", b, d.Key, k.Encode())
		}
	})
}

func FuzzTenantKeys(f *testing.F) {
	seedKeys(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkReencode(t, "tenant_by_ord", b, DecodeTenantByOrdKey)
		checkReencode(t, "ord_by_tenant", b, DecodeOrdByTenantKey)
		d := DecodeKey(CFTenants, b)
		_ = d.String()
		if k, ok := d.Key.(anyKey); ok && !bytes.Equal(k.Encode(), b) {
			t.Fatalf("DecodeKey(tenants, %x) = %v", b, d.Key)
		}
	})
}

func FuzzCounterKey(f *testing.F) {
	seedKeys(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkReencode(t, "counter", b, DecodeCounterKey)
		d := DecodeKey(CFCounters, b)
		_ = d.String()
		if d.Err == nil && d.Sentinel == "" && !FamCounters.Contains(b) {
			t.Fatalf("counter key %x decodes but lies outside the sentinels", b)
		}
	})
}

func FuzzRowKeys(f *testing.F) {
	seedKeys(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkReencode(t, "hook", b, DecodeHookKey)
		checkReencode(t, "delivery", b, DecodeDeliveryKey)
	})
}

// FuzzKeyRoundTrip builds keys from fields: decode(encode(k)) == k exactly
// when k is valid, and a decoder refuses what Validate refuses.
func FuzzKeyRoundTrip(f *testing.F) {
	f.Add(uint32(3), uint64(1764496800000), uint64(42), uint16(1), uint8(5), int8(-1), "acme")
	f.Add(SentinelOrd, uint64(1)<<63, ^uint64(0), uint16(0), uint8(0), int8(16), "")
	f.Add(uint32(0), MaxAtSeq, MaxAtSeq, uint16(65535), uint8(6), int8(15), "\xff")
	f.Fuzz(func(t *testing.T, ord uint32, at, seq uint64, sink uint16, field uint8, shard int8, tenant string) {
		sh := int(shard)
		if sh < -1 {
			sh = -1
		}
		rt := func(k interface {
			anyKey
			Validate() error
		}, dec func([]byte) (any, error)) {
			back, err := dec(k.Encode())
			if verr := k.Validate(); (verr == nil) != (err == nil) {
				t.Fatalf("%v: Validate %v, decode %v", k, verr, err)
			}
			if err == nil && back != any(k) {
				t.Fatalf("decode(encode(%v)) = %v", k, back)
			}
		}
		rt(DueV2Key{at, seq, sink}, dec(DecodeDueV2Key))
		rt(InflightV2Key{seq, sink}, dec(DecodeInflightV2Key))
		rt(DueKey{ord, at, seq, sink}, dec(DecodeDueKey))
		rt(InflightKey{ord, seq, sink}, dec(DecodeInflightKey))
		rt(DeadKey{at, seq, sink}, dec(DecodeDeadKey))
		rt(DeadByTenantKey{ord, at, seq, sink}, dec(DecodeDeadByTenantKey))
		rt(ArchiveKey{seq}, dec(DecodeArchiveKey))
		rt(ActiveKey{at, ord}, dec(DecodeActiveKey))
		rt(TenantByOrdKey{ord}, dec(DecodeTenantByOrdKey))
		rt(OrdByTenantKey{tenant}, dec(DecodeOrdByTenantKey))
		rt(CounterKey{ord, Field(field), sh}, dec(DecodeCounterKey))
		rt(HookKey{seq}, dec(DecodeHookKey))
		rt(DeliveryKey{seq, sink}, dec(DecodeDeliveryKey))
	})
}

// FuzzDecodeAny drives the pretty-printers with any column family, key and value.
func FuzzDecodeAny(f *testing.F) {
	cfs := append([]string{"mystery"}, FamiliesV3...)
	f.Add(uint8(0), []byte("D"), []byte{})
	f.Add(uint8(3), DueKey{Ord: 1}.Encode(), DueValue{Size: 1}.Encode())
	f.Add(uint8(1), []byte(KeyMigrating3), []byte{2, 'f', 0})
	f.Add(uint8(2), HookKey{Seq: 1}.Encode(), EncodeEnvelope(sampleEnvelope(), true))
	f.Add(uint8(8), CounterKeyBytes(1, FieldBytes), EncodeCounterValue(5))
	f.Fuzz(func(t *testing.T, cf uint8, key, value []byte) {
		c := cfs[int(cf)%len(cfs)]
		d := DecodeKey(c, key)
		_ = d.String()
		if d.Err != nil && d.Key != nil {
			t.Fatalf("Key %v with Err %v", d.Key, d.Err)
		}
		_, _ = DecodeValue(c, key, value)
	})
}

// FuzzFixedValues: the fixed-width values re-encode to their input.
func FuzzFixedValues(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1})
	f.Add([]byte{0, 0, 0, 1, 1})
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 2})
	f.Add([]byte{3, 'x', 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := DecodeSize(b); err == nil && !bytes.Equal(EncodeSize(n), b) {
			t.Fatalf("size %x", b)
		}
		if n, err := DecodeU32(b); err == nil && !bytes.Equal(EncodeU32(n), b) {
			t.Fatalf("u32 %x", b)
		}
		if n, err := DecodeU64(b); err == nil && !bytes.Equal(EncodeU64(n), b) {
			t.Fatalf("u64 %x", b)
		}
		if v, err := DecodeDueValue(b); err == nil && !bytes.Equal(v.Encode(), b) {
			t.Fatalf("due value %x", b)
		}
		if v, err := DecodeArchiveValue(b); err == nil && !bytes.Equal(v.Encode(), b) {
			t.Fatalf("archive value %x", b)
		}
		if c, err := DecodeMigrationCursor(b); err == nil {
			_ = c.String()
			if !bytes.Equal(c.Encode(), b) {
				t.Fatalf("cursor %x", b)
			}
		}
	})
}

// FuzzETFValues: the ETF values never panic, and what decodes survives an
// encode/decode cycle unchanged (the input itself may use non-canonical tags).
func FuzzETFValues(f *testing.F) {
	f.Add(DeadValue{SourceID: []byte("s"), ID: []byte("i"), Ord: 3, HasOrd: true}.Encode())
	f.Add(EncodeDelivery(Delivery{Sink: 1, Status: StatusDead, Size: 9, LastError: []byte("e")}))
	f.Add(EncodeEnvelope(sampleEnvelope(), false))
	f.Add(EncodeEnvelope(sampleEnvelope(), true))
	f.Add(EncodeCounterOperand(-5))
	f.Add(EncodeCounterValue(1 << 40))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, ok := decodeDeadValueSkim(b); ok {
			if w, err := decodeDeadValueTerm(b); err != nil || !reflect.DeepEqual(v, w) {
				t.Fatalf("dead value %x: read in place %+v; decoded %+v, %v", b, v, w, err)
			}
		}
		if v, err := DecodeDeadValue(b); err == nil {
			back, err := DecodeDeadValue(v.Encode())
			if err != nil || back.String() != v.String() || back.HasOrd != v.HasOrd {
				t.Fatalf("dead value %x: %v then %v, %v", b, v, back, err)
			}
		}
		if d, ok := decodeDeliverySkim(b); ok {
			if w, err := decodeDeliveryTerm(b); err != nil || !reflect.DeepEqual(d, w) {
				t.Fatalf("delivery %x: read in place %+v; decoded %+v, %v", b, d, w, err)
			}
		}
		if d, err := DecodeDelivery(b); err == nil {
			back, err := DecodeDelivery(EncodeDelivery(d))
			if err != nil || back.String() != d.String() {
				t.Fatalf("delivery %x: %v then %v, %v", b, d, back, err)
			}
		}
		tenant, reason := TenantOf(b, true)
		if dt, dr := decodeTenant(b); dt != tenant || dr != reason {
			t.Fatalf("hook %x: read in place %q, %v; decoded %q, %v", b, tenant, reason, dt, dr)
		}
		// The envelope read in place, when it answers, is the decoder's, nil
		// fields and empty ones told apart.
		if e, ok := decodeEnvelopeSkim(b); ok {
			if w, err := decodeEnvelopeTerm(b); err != nil || !reflect.DeepEqual(e, w) {
				t.Fatalf("envelope %x: read in place %+v; decoded %+v, %v", b, e, w, err)
			}
		}
		if e, err := DecodeEnvelope(b); err == nil {
			// Re-encoded plain for every envelope, and compressed for an input that was
			// compressed: the framing both ways (CompressTerm, the decoder's inflate).
			// Compressing every envelope put the standard library's deflate in every
			// exec: a third of its cost, and most of the new coverage the fuzzer
			// found was deflate's, each input minimized for up to a minute (in
			// scripts/fuzz-ci.sh's 20 s, some 10,000 executions).
			comps := []bool{false}
			if len(b) > 1 && b[1] == etfCompressed {
				comps = append(comps, true)
			}
			for _, comp := range comps {
				back, err := DecodeEnvelope(EncodeEnvelope(e, comp))
				if err != nil || !etf.Equal(back.Term(), e.Term()) {
					t.Fatalf("envelope %x: re-decode %v", b, err)
				}
			}
			if reason == ReasonNone && (e.TenantNil || string(e.TenantID) != tenant) {
				t.Fatalf("TenantOf = %q but the envelope says %q", tenant, e.TenantID)
			}
		}
		if reason == ReasonNone && !ValidTenantID([]byte(tenant)) {
			t.Fatalf("TenantOf returned an invalid tenant %q", tenant)
		}
		if reason != ReasonNone && tenant != DefaultTenant {
			t.Fatalf("reason %v with tenant %q", reason, tenant)
		}
		if n, err := DecodeCounterValue(b); err == nil {
			if m, err := DecodeCounterValue(EncodeCounterValue(n)); err != nil || m != n {
				t.Fatalf("counter value %x", b)
			}
		}
		if n, err := DecodeCounterOperand(b); err == nil {
			if m, err := DecodeCounterOperand(EncodeCounterOperand(n)); err != nil || m != n {
				t.Fatalf("counter operand %x", b)
			}
		}
	})
}
