package format

import (
	"bytes"
	"cmp"
	"testing"

	"pgregory.net/rapid"
)

// Generators of valid keys: the ranges are exactly what Validate accepts, so
// rapid's edge bias hits 0, MaxOrd and 2^63-1.
var (
	genOrd    = rapid.Uint32Range(0, MaxOrd)
	genAtSeq  = rapid.Uint64Range(0, MaxAtSeq)
	genSink   = rapid.Uint16()
	genBucket = rapid.Uint64Range(0, MaxAtSeq/BucketMillis)
	genField  = rapid.Custom(func(t *rapid.T) Field { return rapid.SampledFrom(Fields).Draw(t, "field") })
	genTenant = rapid.Custom(func(t *rapid.T) string {
		// maxLen is in bytes: a tenant id is at most 256 bytes of UTF-8.
		return rapid.StringOfN(rapid.Rune(), 1, 64, MaxTenantIDLen).Draw(t, "tenant")
	})
)

// ordered ties a key generator to the tuple its bytes must sort by.
type ordered struct {
	fam   Family
	gen   *rapid.Generator[[]byte]
	tuple func(b []byte) []uint64 // from the decoded key
}

func tup(vs ...uint64) []uint64 { return vs }

var orderedFamilies = []ordered{
	{FamDueV2, rapid.Custom(func(t *rapid.T) []byte {
		return DueV2Key{At: genAtSeq.Draw(t, "at"), Seq: genAtSeq.Draw(t, "seq"), Sink: genSink.Draw(t, "sink")}.Encode()
	}), func(b []byte) []uint64 { k, _ := DecodeDueV2Key(b); return tup(k.At, k.Seq, uint64(k.Sink)) }},
	{FamInflightV2, rapid.Custom(func(t *rapid.T) []byte {
		return InflightV2Key{Seq: genAtSeq.Draw(t, "seq"), Sink: genSink.Draw(t, "sink")}.Encode()
	}), func(b []byte) []uint64 { k, _ := DecodeInflightV2Key(b); return tup(k.Seq, uint64(k.Sink)) }},
	{FamDue, rapid.Custom(func(t *rapid.T) []byte {
		return DueKey{Ord: genOrd.Draw(t, "ord"), At: genAtSeq.Draw(t, "at"), Seq: genAtSeq.Draw(t, "seq"), Sink: genSink.Draw(t, "sink")}.Encode()
	}), func(b []byte) []uint64 {
		k, _ := DecodeDueKey(b)
		return tup(uint64(k.Ord), k.At, k.Seq, uint64(k.Sink))
	}},
	{FamInflight, rapid.Custom(func(t *rapid.T) []byte {
		return InflightKey{Ord: genOrd.Draw(t, "ord"), Seq: genAtSeq.Draw(t, "seq"), Sink: genSink.Draw(t, "sink")}.Encode()
	}), func(b []byte) []uint64 {
		k, _ := DecodeInflightKey(b)
		return tup(uint64(k.Ord), k.Seq, uint64(k.Sink))
	}},
	{FamDead, rapid.Custom(func(t *rapid.T) []byte {
		return DeadKey{At: genAtSeq.Draw(t, "at"), Seq: genAtSeq.Draw(t, "seq"), Sink: genSink.Draw(t, "sink")}.Encode()
	}), func(b []byte) []uint64 { k, _ := DecodeDeadKey(b); return tup(k.At, k.Seq, uint64(k.Sink)) }},
	{FamDeadByTenant, rapid.Custom(func(t *rapid.T) []byte {
		return DeadByTenantKey{Ord: genOrd.Draw(t, "ord"), At: genAtSeq.Draw(t, "at"), Seq: genAtSeq.Draw(t, "seq"), Sink: genSink.Draw(t, "sink")}.Encode()
	}), func(b []byte) []uint64 {
		k, _ := DecodeDeadByTenantKey(b)
		return tup(uint64(k.Ord), k.At, k.Seq, uint64(k.Sink))
	}},
	{FamArchive, rapid.Custom(func(t *rapid.T) []byte {
		return ArchiveKey{Seq: genAtSeq.Draw(t, "seq")}.Encode()
	}), func(b []byte) []uint64 { k, _ := DecodeArchiveKey(b); return tup(k.Seq) }},
	{FamActive, rapid.Custom(func(t *rapid.T) []byte {
		return ActiveKey{Bucket: genBucket.Draw(t, "bucket"), Ord: genOrd.Draw(t, "ord")}.Encode()
	}), func(b []byte) []uint64 { k, _ := DecodeActiveKey(b); return tup(k.Bucket, uint64(k.Ord)) }},
	{FamTenantByOrd, rapid.Custom(func(t *rapid.T) []byte {
		return TenantByOrdKey{Ord: genOrd.Draw(t, "ord")}.Encode()
	}), func(b []byte) []uint64 { k, _ := DecodeTenantByOrdKey(b); return tup(uint64(k.Ord)) }},
	{FamCounters, rapid.Custom(func(t *rapid.T) []byte {
		k := CounterKey{Ord: genOrd.Draw(t, "ord"), Field: genField.Draw(t, "field"), Shard: Unsharded}
		if k.Ord == AggregateOrd {
			k.Shard = rapid.IntRange(Unsharded, AggregateShards-1).Draw(t, "shard")
		}
		return k.Encode()
	}), func(b []byte) []uint64 {
		k, _ := DecodeCounterKey(b)
		// Unsharded (-1) sorts before shard 0: the shorter key is a prefix.
		return tup(uint64(k.Ord), uint64(k.Field), uint64(k.Shard+1))
	}},
}

// TestKeyOrder: encoded byte order is the (ord, at, seq, sink) tuple order,
// which is what makes a range scan of a tenant or a time window correct.
func TestKeyOrder(t *testing.T) {
	for _, o := range orderedFamilies {
		t.Run(o.fam.Name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				a, b := o.gen.Draw(t, "a"), o.gen.Draw(t, "b")
				if got, want := bytes.Compare(a, b), slicesCompare(o.tuple(a), o.tuple(b)); got != want {
					t.Fatalf("bytes.Compare(%x, %x) = %d, tuple order %d", a, b, got, want)
				}
			})
		})
	}
}

func slicesCompare(a, b []uint64) int {
	for i := range a {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// TestSentinelsBracketEveryKey: every valid key of a family sorts strictly
// between its lo and hi, and DecodeKey files it under that family.
func TestSentinelsBracketEveryKey(t *testing.T) {
	all := append([]ordered{}, orderedFamilies...)
	all = append(all, ordered{fam: FamOrdByTenant, gen: rapid.Custom(func(t *rapid.T) []byte {
		return OrdByTenantKey{Tenant: genTenant.Draw(t, "tenant")}.Encode()
	})})
	for _, o := range all {
		t.Run(o.fam.Name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				k := o.gen.Draw(t, "key")
				if bytes.Compare(o.fam.Lo, k) >= 0 || bytes.Compare(k, o.fam.Hi) >= 0 {
					t.Fatalf("key %x not strictly between lo %x and hi %x", k, o.fam.Lo, o.fam.Hi)
				}
				if o.fam.IsSentinel(k) || !o.fam.Contains(k) {
					t.Fatalf("key %x: IsSentinel or !Contains", k)
				}
				if o.fam.KeyLen != 0 && len(k) != o.fam.KeyLen {
					t.Fatalf("key %x: len %d, family KeyLen %d", k, len(k), o.fam.KeyLen)
				}
				d := DecodeKey(o.fam.CF, k)
				if d.Err != nil || d.Family != o.fam.Name || d.Sentinel != "" || d.Key == nil {
					t.Fatalf("DecodeKey(%s, %x) = %+v", o.fam.CF, k, d)
				}
			})
		})
	}
}

// TestTenantKeysOrderAsStrings: n keys sort as their tenant ids.
func TestTenantKeysOrderAsStrings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genTenant.Draw(t, "a"), genTenant.Draw(t, "b")
		if got := bytes.Compare(OrdByTenantKey{Tenant: a}.Encode(), OrdByTenantKey{Tenant: b}.Encode()); got != cmp.Compare(a, b) {
			t.Fatalf("%q vs %q: %d", a, b, got)
		}
	})
}
