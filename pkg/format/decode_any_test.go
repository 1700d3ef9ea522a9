package format

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/format")

var goldenDir = filepath.Join("..", "..", "testdata", "format")

// goldenKeys covers every family, every sentinel, strays and the failure modes
// DecodeKey reports; its output is what `keys decode` shows an operator.
var goldenKeys = []struct{ cf, hex string }{
	{CFIndex, "64"}, {CFIndex, "64ff"},
	{CFIndex, "64 0000019ad4347900 000000000000002a 0001"},
	{CFIndex, "64 0000019ad4347900 000000000000002a"},
	{CFIndex, "66 000000000000002a 0001"}, {CFIndex, "66ff"},
	{CFIndex, "44"}, {CFIndex, "44ffffffff"},
	{CFIndex, "44 00000003 0000019ad4347900 000000000000002a 0001"},
	{CFIndex, "44 ffffffff 0000019ad4347900 000000000000002a 0001"},
	{CFIndex, "46 00000003 000000000000002a 0001"},
	{CFIndex, "78 0000019ad4347900 000000000000002a 0001"}, {CFIndex, "78"}, {CFIndex, "78ff"},
	{CFIndex, "78 8000000000000000 000000000000002a 0001"},
	{CFIndex, "58 00000003 0000019ad4347900 000000000000002a 0001"}, {CFIndex, "58ffffffff"},
	{CFIndex, "61 000000000000002a"}, {CFIndex, "61"}, {CFIndex, "61ff"},
	{CFIndex, "41 00000000692c15a0 00000003"}, {CFIndex, "41ff"},
	{CFIndex, "63 000000000000002a"}, {CFIndex, "6b 000000000000002a0001"},
	{CFIndex, "75 61636d6500 6b6579"}, {CFIndex, "65 0000019ad4347900 61636d6500"},
	{CFIndex, "7a 01"}, {CFIndex, ""},
	{CFTenants, "74"}, {CFTenants, "74 00000003"}, {CFTenants, "74ffffffff"},
	{CFTenants, "6e"}, {CFTenants, "6e 61636d65"}, {CFTenants, "6eff"}, {CFTenants, "6e ff61"}, {CFTenants, "7a"},
	{CFCounters, "0000000000"}, {CFCounters, "ffffffffff"},
	{CFCounters, "00000000 01"}, {CFCounters, "00000003 05"}, {CFCounters, "00000000 05 0f"},
	{CFCounters, "00000003 05 00"}, {CFCounters, "00000003 09"}, {CFCounters, "000003"},
	{CFHooks, "000000000000002a"}, {CFHooks, "2a"},
	{CFDeliveries, "000000000000002a 0001"}, {CFDeliveries, "000000000000002a"},
	{CFDefault, hexOf(KeyFormat)}, {CFDefault, hexOf(KeyNextOrd)}, {CFDefault, hexOf(KeyMigrating3)},
	{CFDefault, hexOf(KeyMigrating3Now)}, {CFDefault, hexOf("m:other")},
	{CFAudit, "61 000000000000002a 0000019ad4347900"}, {CFQuarantine, "01"}, {CFArchive, "02"},
	{"mystery", "00"},
}

func hexOf(s string) string { return fmt.Sprintf("%x", s) }

func TestDecodeKeyGolden(t *testing.T) {
	var b strings.Builder
	for _, k := range goldenKeys {
		key := mustHex(t, k.hex)
		fmt.Fprintf(&b, "%s\t%x\t%s\n", k.cf, key, DecodeKey(k.cf, key))
	}
	path := filepath.Join(goldenDir, "decode_key.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Fatalf("DecodeKey output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func TestDecodeKeyErrorsAreBadKey(t *testing.T) {
	for _, k := range goldenKeys {
		d := DecodeKey(k.cf, mustHex(t, k.hex))
		if d.Err != nil && !errors.Is(d.Err, ErrBadKey) {
			t.Errorf("%s %s: %v is not ErrBadKey", k.cf, k.hex, d.Err)
		}
		if d.Err != nil && d.Key != nil {
			t.Errorf("%s %s: Key %v with Err", k.cf, k.hex, d.Key)
		}
	}
}

func TestDecodeValue(t *testing.T) {
	env := sampleEnvelope()
	cases := []struct {
		cf       string
		key, val []byte
		want     string
		wantErr  bool
	}{
		{CFIndex, DueV2Key{At: 1, Seq: 2}.Encode(), EncodeSize(12), "size=12", false},
		{CFIndex, DueV2Key{At: 1, Seq: 2}.Encode(), []byte{1}, "0x01 (1 bytes)", true},
		{CFIndex, InflightKey{Ord: 1, Seq: 2}.Encode(), EncodeSize(7), "size=7", false},
		{CFIndex, DueKey{Ord: 1}.Encode(), DueValue{Size: 3, Kind: 0}.Encode(), "size=3 kind=first_attempt(0)", false},
		{CFIndex, DeadKey{At: 1}.Encode(), DeadValue{SourceID: []byte("s"), ID: []byte("i"), Ord: 2, HasOrd: true}.Encode(), `source_id="s" id="i" ord=2`, false},
		{CFIndex, DeadKey{At: 1}.Encode(), DeadValue{SourceID: []byte("s"), ID: []byte("i")}.Encode(), `source_id="s" id="i"`, false},
		{CFIndex, DeadByTenantKey{Ord: 1}.Encode(), nil, "", false},
		{CFIndex, ActiveKey{Ord: 1}.Encode(), []byte{1}, "0x01 (1 bytes)", true},
		{CFIndex, ArchiveKey{Seq: 1}.Encode(), ArchiveValue{Size: 4, Ord: 9, HasOrd: true}.Encode(), "size=4 ord=9", false},
		{CFIndex, FamDue.Hi, nil, "", false},
		{CFIndex, FamDue.Lo, []byte{0}, "0x00 (1 bytes)", true},
		{CFTenants, TenantByOrdKey{Ord: 3}.Encode(), []byte("acme"), `"acme"`, false},
		{CFTenants, TenantByOrdKey{Ord: 3}.Encode(), nil, "(erased)", false},
		{CFTenants, OrdByTenantKey{Tenant: "acme"}.Encode(), EncodeU32(3), "ord=3", false},
		{CFCounters, CounterKeyBytes(3, FieldBytes), EncodeCounterValue(-12), "-12", false},
		{CFCounters, CounterKeyBytes(3, FieldBytes), EncodeCounterOperand(1), "", true},
		{CFDefault, []byte(KeyFormat), EncodeU32(3), "3", false},
		{CFDefault, []byte(KeyNextOrd), EncodeU32(17), "17", false},
		{CFDefault, []byte(KeyMigrating3), MigrationCursor{Phase: 2, LastKey: InflightV2Key{Seq: 5, Sink: 1}.Encode()}.Encode(), "phase=2 last_key=f seq=5 sink=1", false},
		{CFDefault, []byte(KeyMigrating3), []byte{1}, "phase=1 last_key=none", false},
		{CFDefault, []byte(KeyMigrating3Now), EncodeU64(1764496800000), "2025-11-30T10:00:00.000Z(1764496800000)", false},
		{CFDeliveries, DeliveryKey{Seq: 1}.Encode(), EncodeDelivery(Delivery{Sink: 1, Status: StatusDue, Size: 5, LastErrorNil: true}),
			"#{attempts => 0,last_error => nil,sink => 1,size => 5,status => due}", false},
		{CFHooks, HookKey{Seq: 1}.Encode(), []byte("junk"), "", true},
	}
	for _, c := range cases {
		got, err := DecodeValue(c.cf, c.key, c.val)
		if (err != nil) != c.wantErr || (c.want != "" && got != c.want) {
			t.Errorf("DecodeValue(%s, %x, %x) = %q, %v; want %q, err %v", c.cf, c.key, c.val, got, err, c.want, c.wantErr)
		}
	}
	// A compressed hook shows as the term it holds.
	got, err := DecodeValue(CFHooks, HookKey{Seq: 1}.Encode(), EncodeEnvelope(env, true))
	if err != nil || !strings.Contains(got, `tenant_id => <<"acme">>`) {
		t.Errorf("hook value = %q, %v", got, err)
	}
	_ = etf.Format
}
