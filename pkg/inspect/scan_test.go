package inspect

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

func TestWalkFamilyChunksBothWays(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	var want [][]byte
	for i := 0; i < 10_000; i++ {
		k := format.DeadKey{At: uint64(i), Seq: uint64(i), Sink: 1}.Encode()
		s.Raw(format.CFIndex, k, nil)
		want = append(want, k)
	}
	st := s.Open()
	for _, reverse := range []bool{false, true} {
		var got [][]byte
		chunks := 0
		err := walk.Family(st.DB, format.FamDead, nil, reverse, 3, func(chunk []walk.Entry) (bool, error) {
			chunks++
			for _, e := range chunk {
				got = append(got, bytes.Clone(e.K)) // the walk reuses its buffer
			}
			return false, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		w := slices.Clone(want)
		if reverse {
			slices.Reverse(w)
		}
		if !slices.EqualFunc(got, w, bytes.Equal) {
			t.Errorf("reverse=%v: %d keys, want %d in order", reverse, len(got), len(w))
		}
		if chunks < 4 {
			t.Errorf("reverse=%v: %d chunks; the walk must resume across chunks", reverse, chunks)
		}
	}
}

func TestWalkFamilyCutShort(t *testing.T) {
	for _, missing := range []string{format.SentinelLo, format.SentinelHi} {
		s := storetest.NewQueue(t, format.Format3)
		s.Raw(format.CFIndex, format.DeadKey{At: 1, Seq: 1, Sink: 1}.Encode(), nil)
		if missing == format.SentinelLo {
			s.B.Delete(format.CFIndex, format.FamDead.Lo)
		} else {
			s.B.Delete(format.CFIndex, format.FamDead.Hi)
		}
		st := s.Open()
		for _, reverse := range []bool{false, true} {
			err := walk.Family(st.DB, format.FamDead, nil, reverse, 0, func([]walk.Entry) (bool, error) { return false, nil })
			var cs *rocks.CutShortError
			if !errors.As(err, &cs) || cs.Family != format.FamilyNameDead || !errors.Is(err, rocks.ErrCorrupt) {
				t.Errorf("%s missing, reverse=%v: got %v", missing, reverse, err)
			}
		}
	}
}

func scanFixture(t *testing.T) *rocks.Store {
	s := storetest.NewQueue(t, format.Format3)
	s.Due("acme", storetest.QueueMS(-time.Minute), 1, 1, 10, format.KindFirstAttempt)
	s.Due("beta", storetest.QueueMS(-time.Minute), 2, 1, 20, format.KindRetry)
	s.Dead("acme", storetest.QueueMS(-time.Hour), 3, 2, 30, "boom")
	s.Commit()
	// A counter whose merge fails sits between good ones.
	s.Merge(format.CounterKeyBytes(s.Ord("acme"), format.FieldDead), []byte{131, 104, 2, 100, 0, 3, 'b', 'a', 'd', 97, 1})
	s.Raw(format.CFIndex, []byte{format.PrefixDue, 1, 2}, []byte{1}) // a stray
	return s.Open()
}

func TestScanKeysFamily(t *testing.T) {
	st := scanFixture(t)
	res, err := ScanKeys(context.Background(), st, ScanOptions{Target: "due"})
	if err != nil {
		t.Fatal(err)
	}
	var sentinels []string
	var decoded, stray int
	for _, r := range res.Rows {
		switch {
		case r.Sentinel != "":
			sentinels = append(sentinels, r.Sentinel)
		case r.Error != "":
			stray++
		default:
			decoded++
			if r.FieldList[0].Name != "ord" || !strings.Contains(r.Value, "kind=") {
				t.Errorf("due row %+v", r)
			}
		}
	}
	if !slices.Equal(sentinels, []string{"lo", "hi"}) || decoded != 2 || stray != 1 {
		t.Errorf("sentinels %v, decoded %d, stray %d: %+v", sentinels, decoded, stray, res.Rows)
	}
	if res.CF != format.CFIndex || res.Family != "due" || res.NextFrom != "" {
		t.Errorf("result %+v", res)
	}
}

func TestScanKeysCountersMergedAndBadMergeShown(t *testing.T) {
	st := scanFixture(t)
	res, err := ScanKeys(context.Background(), st, ScanOptions{Target: "counters"})
	if err != nil {
		t.Fatal(err)
	}
	var bad []ScanRow
	values := map[string]string{}
	for _, r := range res.Rows {
		if r.Error != "" {
			bad = append(bad, r)
		}
		values[r.KeyText] = r.Value
	}
	if len(bad) != 1 || !strings.Contains(bad[0].KeyText, "dead") {
		t.Fatalf("want exactly the bad dead counter to show an error, got %+v", bad)
	}
	// Rows after the bad key are still there, merged.
	if v := values["counters/counters counter ord=1 field=bytes(5)"]; v != "40" {
		t.Errorf("acme bytes %q, want the merged 40 (rows %v)", v, values)
	}
	if v := values["counters/counters counter ord=2 field=scheduled(2)"]; v != "1" {
		t.Errorf("beta scheduled %q, want 1", v)
	}
	if res.Rows[len(res.Rows)-1].Sentinel != format.SentinelHi {
		t.Errorf("the scan must go on to the hi sentinel past the bad key")
	}
}

func TestScanKeysBoundsAndLimit(t *testing.T) {
	st := scanFixture(t)
	ctx := context.Background()
	all, err := ScanKeys(ctx, st, ScanOptions{Target: "cf:index"})
	if err != nil {
		t.Fatal(err)
	}
	// Paging with --limit and --from gives the same rows.
	var paged []ScanRow
	opt := ScanOptions{Target: "cf:index", Limit: 2}
	for {
		res, err := ScanKeys(ctx, st, opt)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, res.Rows...)
		if res.NextFrom == "" {
			break
		}
		if len(paged) > len(all.Rows) {
			t.Fatalf("paging read %d rows of %d and goes on: --from does not advance (next %s)", len(paged), len(all.Rows), res.NextFrom)
		}
		opt.From, _ = hex.DecodeString(res.NextFrom)
	}
	if len(paged) != len(all.Rows) || len(all.Rows) < 10 {
		t.Fatalf("paged %d rows, all %d", len(paged), len(all.Rows))
	}
	for i := range paged {
		if paged[i].Key != all.Rows[i].Key {
			t.Fatalf("row %d: %s != %s", i, paged[i].Key, all.Rows[i].Key)
		}
	}
	// --from/--to narrow a family to [from, to).
	from := format.DueKey{Ord: 2}.Encode()[:5]
	res, err := ScanKeys(ctx, st, ScanOptions{Target: "due", From: from, To: format.DueKey{Ord: 3}.Encode()[:5]})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Fields["ord"] != uint32(2) {
		t.Errorf("narrowed scan %+v", res.Rows)
	}
	if _, err := ScanKeys(ctx, st, ScanOptions{Target: "nope"}); err == nil {
		t.Error("unknown target accepted")
	}
}

func TestScanTargets(t *testing.T) {
	for _, name := range ScanTargets() {
		if _, _, err := scanTarget(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	cf, fam, _ := scanTarget("archive")
	if cf != format.CFIndex || fam == nil {
		t.Errorf("archive is the obligations family, got %s %v", cf, fam)
	}
	cf, fam, _ = scanTarget("cf:archive")
	if cf != format.CFArchive || fam != nil {
		t.Errorf("cf:archive is the column family, got %s %v", cf, fam)
	}
	cf, fam, _ = scanTarget("hooks")
	if cf != format.CFHooks || fam != nil {
		t.Errorf("hooks: %s %v", cf, fam)
	}
}

func TestDecodeAnyKey(t *testing.T) {
	due := format.DueKey{Ord: 7, At: 1796032800000, Seq: 9, Sink: 2}.Encode()
	cases := []struct {
		name     string
		key      []byte
		cf       string
		wantCF   string
		family   string
		sentinel string
		fields   string
		assumed  bool
		also     []string
		err      bool
	}{
		{"due", due, "", "index", "due", "", "ord=7 at=1796032800000 at_time=2026-11-30T10:00:00.000Z seq=9 sink=2", true, nil, false},
		{"due explicit", due, "index", "index", "due", "", "ord=7 at=1796032800000 at_time=2026-11-30T10:00:00.000Z seq=9 sink=2", false, nil, false},
		{"dead hi sentinel", format.FamDead.Hi, "", "index", "dead", "hi", "", true, nil, false},
		{"counters lo sentinel", format.FamCounters.Lo, "counters", "counters", "counters", "lo", "", false, nil, false},
		{"t row also a counter", format.TenantByOrdKey{Ord: 3}.Encode(), "", "tenants", "tenant_by_ord", "", "ord=3", true, []string{"counters"}, false},
		{"n row", format.OrdByTenantKey{Tenant: "acme"}.Encode(), "", "tenants", "ord_by_tenant", "", "tenant=acme", true, nil, false},
		{"shard", format.CounterKey{Ord: 0, Field: format.FieldBytes, Shard: 3}.Encode(), "", "counters", "counters", "", "ord=0 field=bytes(5) shard=3", true, nil, false},
		{"meta", []byte(format.KeyNextOrd), "", "default", "meta", "", "name=m:next_ord", true, []string{"deliveries"}, false},
		{"delivery", format.DeliveryKey{Seq: 5, Sink: 1}.Encode(), "", "deliveries", "deliveries", "", "seq=5 sink=1", true, nil, false},
		{"active", format.ActiveKey{Bucket: 1796032800, Ord: 2}.Encode(), "", "index", "active", "", "bucket=1796032800 bucket_time=2026-11-30T10:00:00Z ord=2", true, nil, false},
		{"stray due", []byte{'D', 1, 2}, "", "index", "due", "", "", true, nil, true},
		{"garbage", []byte{0xFE, 1, 2}, "", "", "", "", "", true, nil, true},
		{"wrong cf", due, "hooks", "hooks", "hooks", "", "", false, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := DecodeAnyKey(c.key, c.cf, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.CF != c.wantCF || r.Family != c.family || r.Sentinel != c.sentinel || r.FieldList.String() != c.fields ||
				r.Assumed != c.assumed || !slices.Equal(r.AlsoFits, c.also) || (r.Error != "") != c.err {
				t.Errorf("got %+v (fields %q)", r, r.FieldList.String())
			}
		})
	}
	if _, err := DecodeAnyKey(due, "nope", nil); err == nil {
		t.Error("unknown column family accepted")
	}
	r, _ := DecodeAnyKey(due, "", format.DueValue{Size: 10, Kind: 1}.Encode())
	if r.Value == nil || r.Value.Text != "size=10 kind=retry(1)" || r.Value.Error != "" {
		t.Errorf("value %+v", r.Value)
	}
	r, _ = DecodeAnyKey(due, "", []byte{1})
	if r.Value == nil || r.Value.Error == "" {
		t.Errorf("bad value must say so: %+v", r.Value)
	}
}

func TestKeyFieldsJSON(t *testing.T) {
	b, err := json.Marshal(KeyFieldsOf(format.DeadByTenantKey{Ord: 1, At: 2, Seq: 3, Sink: 4}).Map())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"at":2,"at_time":"1970-01-01T00:00:00.002Z","ord":1,"seq":3,"sink":4}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestParseKeyHex(t *testing.T) {
	for in, want := range map[string]string{
		"0x4400":       "4400",
		"44 00\n":      "4400",
		"0X44":         "44",
		"  78ff ff ff": "78ffffff",
	} {
		got, err := ParseKeyHex(in)
		if err != nil || hex.EncodeToString(got) != want {
			t.Errorf("%q: %x, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "0x", "abc", "zz"} {
		if _, err := ParseKeyHex(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func FuzzDecodeAnyKey(f *testing.F) {
	f.Add([]byte(format.DueKey{Ord: 1, At: 2, Seq: 3, Sink: 4}.Encode()), "", []byte{0, 0, 0, 1, 0})
	f.Add([]byte("m:format"), "default", []byte{0, 0, 0, 3})
	f.Add([]byte{0, 0, 0, 1, 5}, "counters", []byte{131, 97, 5})
	f.Add([]byte{'x'}, "", []byte{})
	f.Fuzz(func(t *testing.T, key []byte, cf string, value []byte) {
		if !slices.Contains(KeyColumnFamilies, cf) {
			cf = ""
		}
		r, err := DecodeAnyKey(key, cf, value)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("report does not marshal: %v", err)
		}
		if r.Error == "" && r.Sentinel == "" && r.CF != "" && r.Family == "" {
			t.Fatalf("decoded without a family: %+v", r)
		}
	})
}
