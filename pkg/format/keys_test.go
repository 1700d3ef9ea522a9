package format

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keyCase pins one key: its bytes, its String, and that both directions agree.
type keyCase struct {
	name string
	key  interface {
		Encode() []byte
		String() string
		Validate() error
	}
	decode func([]byte) (any, error)
	hex    string
	str    string
	// variable: a byte more or less may still be a key (n keys, counters).
	variable bool
}

func dec[K any](f func([]byte) (K, error)) func([]byte) (any, error) {
	return func(b []byte) (any, error) { return f(b) }
}

var keyCases = []keyCase{
	{"due_v2", DueV2Key{At: 1764496800000, Seq: 42, Sink: 1}, dec(DecodeDueV2Key),
		"64 0000019ad4347900 000000000000002a 0001", "d at=2025-11-30T10:00:00.000Z(1764496800000) seq=42 sink=1", false},
	{"inflight_v2", InflightV2Key{Seq: 42, Sink: 0xFFFF}, dec(DecodeInflightV2Key),
		"66 000000000000002a ffff", "f seq=42 sink=65535", false},
	{"due", DueKey{Ord: 3, At: 1764496800000, Seq: 42, Sink: 1}, dec(DecodeDueKey),
		"44 00000003 0000019ad4347900 000000000000002a 0001", "D ord=3 at=2025-11-30T10:00:00.000Z(1764496800000) seq=42 sink=1", false},
	{"inflight", InflightKey{Ord: MaxOrd, Seq: MaxAtSeq, Sink: 2}, dec(DecodeInflightKey),
		"46 fffffffe 7fffffffffffffff 0002", "F ord=4294967294 seq=9223372036854775807 sink=2", false},
	{"dead", DeadKey{At: 0, Seq: 1, Sink: 0}, dec(DecodeDeadKey),
		"78 0000000000000000 0000000000000001 0000", "x at=1970-01-01T00:00:00.000Z(0) seq=1 sink=0", false},
	{"dead_by_tenant", DeadByTenantKey{Ord: 1, At: 1764496800123, Seq: 7, Sink: 3}, dec(DecodeDeadByTenantKey),
		"58 00000001 0000019ad434797b 0000000000000007 0003", "X ord=1 at=2025-11-30T10:00:00.123Z(1764496800123) seq=7 sink=3", false},
	{"archive", ArchiveKey{Seq: 9}, dec(DecodeArchiveKey), "61 0000000000000009", "a seq=9", false},
	{"active", ActiveKey{Bucket: 1764496800, Ord: 3}, dec(DecodeActiveKey),
		"41 00000000692c15a0 00000003", "A bucket=2025-11-30T10:00:00Z(1764496800) ord=3", false},
	{"tenant_by_ord", TenantByOrdKey{Ord: 5}, dec(DecodeTenantByOrdKey), "74 00000005", "t ord=5", false},
	{"ord_by_tenant", OrdByTenantKey{Tenant: "acme"}, dec(DecodeOrdByTenantKey), "6e 61636d65", `n tenant="acme"`, true},
	{"ord_by_tenant_utf8", OrdByTenantKey{Tenant: "zürich"}, dec(DecodeOrdByTenantKey), "6e 7a c3bc 72696368", `n tenant="zürich"`, true},
	{"counter", CounterKey{Ord: 3, Field: FieldBytes, Shard: Unsharded}, dec(DecodeCounterKey), "00000003 05", "counter ord=3 field=bytes(5)", false},
	{"counter_agg", CounterKey{Ord: 0, Field: FieldPending, Shard: Unsharded}, dec(DecodeCounterKey), "00000000 01", "counter ord=0 field=pending(1)", true},
	{"counter_shard", CounterKey{Ord: 0, Field: FieldArchivePending, Shard: 15}, dec(DecodeCounterKey), "00000000 06 0f", "counter ord=0 field=archive_pending(6) shard=15", true},
	{"hook", HookKey{Seq: 42}, dec(DecodeHookKey), "000000000000002a", "hook seq=42", false},
	{"delivery", DeliveryKey{Seq: 42, Sink: 1}, dec(DecodeDeliveryKey), "000000000000002a 0001", "delivery seq=42 sink=1", false},
}

func TestKeyRoundTrip(t *testing.T) {
	for _, c := range keyCases {
		t.Run(c.name, func(t *testing.T) {
			want := mustHex(t, c.hex)
			if err := c.key.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if got := c.key.Encode(); string(got) != string(want) {
				t.Fatalf("Encode = %x, want %x", got, want)
			}
			if got := c.key.String(); got != c.str {
				t.Errorf("String = %q, want %q", got, c.str)
			}
			back, err := c.decode(want)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if back != any(c.key) {
				t.Fatalf("decode = %#v, want %#v", back, c.key)
			}
			if c.variable {
				return
			}
			if _, err := c.decode(want[:len(want)-1]); !errors.Is(err, ErrBadKey) {
				t.Errorf("decode of a short key: err = %v, want ErrBadKey", err)
			}
			if _, err := c.decode(append(append([]byte{}, want...), 0)); !errors.Is(err, ErrBadKey) {
				t.Errorf("decode of a long key: err = %v, want ErrBadKey", err)
			}
		})
	}
}

func TestKeyAppendAppends(t *testing.T) {
	k := DueKey{Ord: 1, At: 2, Seq: 3, Sink: 4}
	got := k.Append([]byte("pre"))
	if string(got[:3]) != "pre" || string(got[3:]) != string(k.Encode()) {
		t.Fatalf("Append = %x", got)
	}
}

func TestKeyDecodeErrors(t *testing.T) {
	big := uint64(1) << 63
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"due short", func() error { _, err := DecodeDueKey(make([]byte, 19)); return err }(), "due key: want 23 bytes, got 19"},
		{"due prefix", func() error { _, err := DecodeDueKey(DueV2Key{}.Encode()[:0:0]); return err }(), "due key: want 23 bytes, got 0"},
		{"due wrong prefix", func() error { b := DueKey{}.Encode(); b[0] = 'X'; _, err := DecodeDueKey(b); return err }(), `due key: want prefix 'D', got 0x58`},
		{"due at", func() error { _, err := DecodeDueKey(DueKey{At: big}.Encode()); return err }(), "due key: at 9223372036854775808 is not below 2^63"},
		{"due ord", func() error { _, err := DecodeDueKey(DueKey{Ord: SentinelOrd}.Encode()); return err }(), "due key: ord 0xffffffff is the hi sentinel"},
		{"dead seq", func() error { _, err := DecodeDeadKey(DeadKey{Seq: ^uint64(0)}.Encode()); return err }(), "dead key: seq 18446744073709551615 is not below 2^63"},
		{"active bucket", func() error { _, err := DecodeActiveKey(ActiveKey{Bucket: MaxAtSeq/1000 + 1}.Encode()); return err }(), "active key: bucket 9223372036854776 is beyond"},
		{"hook seq", func() error { _, err := DecodeHookKey(HookKey{Seq: big}.Encode()); return err }(), "hook key: seq"},
		{"delivery len", func() error { _, err := DecodeDeliveryKey(make([]byte, 8)); return err }(), "delivery key: want 10 bytes, got 8"},
		{"tenant empty", func() error { _, err := DecodeOrdByTenantKey([]byte("n")); return err }(), "ord_by_tenant key: want at least 2 bytes, got 1"},
		{"tenant utf8", func() error { _, err := DecodeOrdByTenantKey([]byte("n\xff")); return err }(), "not valid UTF-8"},
		{"tenant long", func() error { _, err := DecodeOrdByTenantKey([]byte("n" + strings.Repeat("a", 257))); return err }(), "tenant id of 257 bytes is longer than 256"},
		{"counter field", func() error { _, err := DecodeCounterKey([]byte{0, 0, 0, 1, 7}); return err }(), "counter key: unknown field 7"},
		{"counter field 0", func() error { _, err := DecodeCounterKey([]byte{0, 0, 0, 0, 0}); return err }(), "counter key: unknown field 0"},
		{"counter shard range", func() error { _, err := DecodeCounterKey([]byte{0, 0, 0, 0, 1, 16}); return err }(), "shard 16 out of range 0..15"},
		{"counter shard ord", func() error { _, err := DecodeCounterKey([]byte{0, 0, 0, 1, 1, 0}); return err }(), "only the aggregate (ord 0) is sharded"},
		{"counter len", func() error { _, err := DecodeCounterKey([]byte{0, 0, 0, 1}); return err }(), "counter key: want 5 or 6 bytes, got 4"},
		{"checked", func() error { _, err := InflightV2Key{Seq: big}.EncodeChecked(); return err }(), "inflight_v2 key: seq"},
		{"checked tenant", func() error { _, err := OrdByTenantKey{}.EncodeChecked(); return err }(), "empty tenant id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil || !strings.Contains(c.err.Error(), c.want) || !errors.Is(c.err, ErrBadKey) {
				t.Fatalf("err = %v, want ErrBadKey containing %q", c.err, c.want)
			}
		})
	}
}

func TestEncodeCheckedAccepts(t *testing.T) {
	for _, c := range keyCases {
		type checked interface{ EncodeChecked() ([]byte, error) }
		b, err := c.key.(checked).EncodeChecked()
		if err != nil || string(b) != string(c.key.Encode()) {
			t.Errorf("%s: EncodeChecked = %x, %v", c.name, b, err)
		}
	}
}

func TestDerivedKeys(t *testing.T) {
	d := DueKey{Ord: 4, At: 1764496800999, Seq: 1, Sink: 2}
	if got := d.ActiveKey(); got != (ActiveKey{Bucket: 1764496800, Ord: 4}) {
		t.Errorf("ActiveKey = %v", got)
	}
	x := DeadKey{At: 5, Seq: 6, Sink: 7}
	if got := x.ByTenant(9); got.DeadKey() != x || got.Ord != 9 {
		t.Errorf("ByTenant = %v", got)
	}
	if got := (DeliveryKey{Seq: 3, Sink: 1}).HookKey(); got != (HookKey{Seq: 3}) {
		t.Errorf("HookKey = %v", got)
	}
}

func TestFieldNames(t *testing.T) {
	for _, f := range Fields {
		g, ok := FieldByName(FieldNames[f])
		if !ok || g != f {
			t.Errorf("FieldByName(%q) = %v, %v", FieldNames[f], g, ok)
		}
	}
	if Field(9).Valid() || Field(0).Valid() {
		t.Error("fields 0 and 9 are not valid")
	}
	if got := Field(9).String(); got != "field?(9)" {
		t.Errorf("String = %q", got)
	}
}

func TestMetadataCodecs(t *testing.T) {
	if b := EncodeU32(3); string(b) != "\x00\x00\x00\x03" {
		t.Fatalf("EncodeU32 = %x", b)
	}
	if v, err := DecodeU32(EncodeU32(0xdeadbeef)); err != nil || v != 0xdeadbeef {
		t.Fatalf("DecodeU32 = %x, %v", v, err)
	}
	if v, err := DecodeU64(EncodeU64(1 << 60)); err != nil || v != 1<<60 {
		t.Fatalf("DecodeU64 = %x, %v", v, err)
	}
	if _, err := DecodeU32([]byte{1}); err == nil {
		t.Fatal("DecodeU32 of 1 byte")
	}
	if _, err := DecodeU64(make([]byte, 4)); err == nil {
		t.Fatal("DecodeU64 of 4 bytes")
	}
	for _, c := range []MigrationCursor{
		{Phase: MigPhaseDue},
		{Phase: MigPhaseDead, LastKey: DeadKey{At: 1, Seq: 2, Sink: 3}.Encode()},
		{Phase: MigPhaseFinish},
	} {
		b := c.Encode()
		if b[0] != c.Phase || string(b[1:]) != string(c.LastKey) {
			t.Fatalf("Encode(%v) = %x", c, b)
		}
		back, err := DecodeMigrationCursor(b)
		if err != nil || back.Phase != c.Phase || string(back.LastKey) != string(c.LastKey) {
			t.Fatalf("DecodeMigrationCursor(%x) = %v, %v", b, back, err)
		}
	}
	if got := (MigrationCursor{Phase: 3, LastKey: DeadKey{At: 0, Seq: 2, Sink: 3}.Encode()}).String(); got != "phase=3 last_key=x at=1970-01-01T00:00:00.000Z(0) seq=2 sink=3" {
		t.Errorf("String = %q", got)
	}
	for _, b := range [][]byte{nil, {0}, {6, 'd'}} {
		if _, err := DecodeMigrationCursor(b); !errors.Is(err, ErrBadValue) {
			t.Errorf("DecodeMigrationCursor(%x): err = %v", b, err)
		}
	}
}
