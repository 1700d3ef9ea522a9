package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// shardAggregate moves part of the node aggregate of the store in dir into its 16 shards,
// as a node that shards a hot aggregate leaves it: shard s gets s+1 of each field (shard 15
// the most), the unsharded key that much less, so the contract's sum is unchanged.
func shardAggregate(t *testing.T, dir string) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := rocks.NewBatch()
	for _, f := range format.Fields {
		moved := int64(0)
		for s := range format.AggregateShards {
			b.Merge(format.CFCounters, format.CounterKey{Ord: format.AggregateOrd, Field: f, Shard: s}.Encode(), format.EncodeCounterOperand(int64(s+1)))
			moved += int64(s + 1)
		}
		b.Merge(format.CFCounters, format.CounterKey{Ord: format.AggregateOrd, Field: f, Shard: format.Unsharded}.Encode(), format.EncodeCounterOperand(-moved))
	}
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
}

// contractAggregate is the aggregate by the contract's rule, from the store's logical
// content alone: the unsharded key of ordinal 0 and all its shards, summed per field.
func contractAggregate(t *testing.T, dir string) (sum map[string]int64, shards int) {
	t.Helper()
	sum = map[string]int64{}
	for k, v := range storetest.Dump(t, dir)[format.CFCounters] {
		ck, err := format.DecodeCounterKey([]byte(k))
		if err != nil || ck.Ord != format.AggregateOrd {
			continue
		}
		n, err := format.DecodeCounterValue([]byte(v))
		if err != nil {
			t.Fatalf("aggregate counter %x: %v", k, err)
		}
		sum[format.FieldNames[ck.Field]] += n
		if ck.Shard != format.Unsharded {
			shards++
		}
	}
	return sum, shards
}

// Every view that shows the node aggregate sums its shards (docs/format.md, "a reader sums
// the unsharded key and all its shards"): status, its metrics file, tenants ls (the joined
// walk and the --prefix multi-gets), and counters verify's metrics file, each against the
// contract's sum of the dump; a tenant's own counters are not the aggregate's shards.
func TestViewsSumAggregateShards(t *testing.T) {
	dir := storetest.Extract(t, "store-v3.tar.zst")
	code, before, errOut := runAt(t, "tenants", "show", "acme", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("tenants show: exit %d\n%s", code, errOut)
	}
	shardAggregate(t, dir)
	want, shards := contractAggregate(t, dir)
	if shards != len(format.Fields)*format.AggregateShards || want["pending"] == 0 {
		t.Fatalf("the store holds %d aggregate shards (pending %d): not what the test means", shards, want["pending"])
	}
	same := func(what string, got inspect.TenantCounters) {
		t.Helper()
		g := map[string]int64{"pending": got.Pending, "scheduled": got.Scheduled, "inflight": got.Inflight,
			"dead": got.Dead, "bytes": got.Bytes, "archive_pending": got.ArchivePending}
		for f, w := range want {
			if g[f] != w {
				t.Errorf("%s: aggregate %s = %d, want %d (the unsharded key and its 16 shards)", what, f, g[f], w)
			}
		}
	}

	tmp := t.TempDir()
	statusProm, verifyProm := filepath.Join(tmp, "status.prom"), filepath.Join(tmp, "verify.prom")
	code, out, errOut := runAt(t, "status", "-o", "json", "--metrics-file", statusProm, dir)
	if code != 0 {
		t.Fatalf("status: exit %d\n%s", code, errOut)
	}
	var status struct {
		Aggregate *inspect.TenantCounters `json:"aggregate"`
	}
	if err := json.Unmarshal([]byte(out), &status); err != nil || status.Aggregate == nil {
		t.Fatalf("status -o json: %v\n%s", err, out)
	}
	same("status", *status.Aggregate)

	for _, args := range [][]string{{"tenants", "ls", "-o", "json"}, {"tenants", "ls", "--all", "-o", "json"}, {"tenants", "ls", "--prefix", "a", "-o", "json"}} {
		code, out, errOut := runAt(t, append(args, dir)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
		var l struct {
			Aggregate *inspect.TenantCounters `json:"aggregate"`
		}
		if err := json.Unmarshal([]byte(out), &l); err != nil || l.Aggregate == nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		same(strings.Join(args, " "), *l.Aggregate)
	}

	// The contract's rule is also the fold's: the store stays healthy.
	if code, _, errOut := runAt(t, "counters", "verify", "--metrics-file", verifyProm, dir); code != 0 {
		t.Fatalf("counters verify of the sharded store: exit %d\n%s", code, errOut)
	}
	for file, prefix := range map[string]string{statusProm: "ankusa_store_", verifyProm: "ankusa_store_verify_"} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		p := expfmt.NewTextParser(model.LegacyValidation)
		fams, err := p.TextToMetricFamilies(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := inspect.TenantCounters{}
		for _, m := range fams[prefix+"aggregate_rows"].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() != "field" {
					continue
				}
				v := int64(m.GetGauge().GetValue())
				switch l.GetValue() {
				case "pending":
					got.Pending = v
				case "scheduled":
					got.Scheduled = v
				case "inflight":
					got.Inflight = v
				case "dead":
					got.Dead = v
				case "archive_pending":
					got.ArchivePending = v
				}
			}
		}
		for _, m := range fams[prefix+"aggregate_bytes"].GetMetric() {
			got.Bytes = int64(m.GetGauge().GetValue())
		}
		same(filepath.Base(file), got)
	}

	// A tenant's counters are its own: the aggregate's shards do not reach them.
	if code, after, errOut := runAt(t, "tenants", "show", "acme", "-o", "json", dir); code != 0 || after != before {
		t.Errorf("tenants show acme: exit %d, before the shards\n%s\nafter\n%s\n%s", code, before, after, errOut)
	}
}
