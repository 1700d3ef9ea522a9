package health

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Helpers of the verify tests (prefix vt).

// vtFixture extracts a copy of the committed fixture store of the given
// format (testdata/store-v2.tar.zst, store-v3.tar.zst) and returns its
// directory.
func vtFixture(t testing.TB, storeFormat uint32) string {
	t.Helper()
	return storetest.Extract(t, fmt.Sprintf("store-v%d.tar.zst", storeFormat))
}

func vtOpen(t testing.TB, dir string, mode rocks.Mode) *rocks.Store {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: mode})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// vtVerify opens dir read-only and verifies it.
func vtVerify(t testing.TB, dir string, o VerifyOptions) (*Report, error) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	return Verify(context.Background(), st, o)
}

// vtReportBytes verifies dir with the batches, chunks and passes sz bounds (nil: the tuned
// ones) and returns its report as JSON without the keys read and the families' key counts:
// what must not change with the number of passes a run makes.
func vtReportBytes(t testing.TB, dir string, sz *sizes) []byte {
	t.Helper()
	rep, err := vtVerify(t, dir, VerifyOptions{sizes: sz})
	if err != nil {
		t.Fatal(err)
	}
	rep.Keys, rep.Families = 0, nil
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// vtHealthy verifies dir and fails unless it is healthy.
func vtHealthy(t testing.TB, dir string) *Report {
	t.Helper()
	rep, err := vtVerify(t, dir, VerifyOptions{})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if !rep.Healthy {
		t.Fatalf("verify: %s\n%s", rep.Summary(), vtDump(rep))
	}
	return rep
}

// vtPlant opens dir read-write, lets plant fill one batch and writes it.
func vtPlant(t testing.TB, dir string, plant func(st *rocks.Store, b *rocks.Batch)) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	b := rocks.NewBatch()
	plant(st, b)
	if err := st.Write(b, true); err != nil {
		t.Fatalf("plant: %v", err)
	}
}

// vtRows returns the first n rows of a family (sentinels skipped) that
// match keep (nil: all).
func vtRows(t testing.TB, st *rocks.Store, f format.Family, n int, keep func(k, v []byte) bool) [][2][]byte {
	t.Helper()
	var out [][2][]byte
	lo, hi := f.Lo, f.PrefixEnd()
	err := st.Scan(f.CF, lo, hi, rocks.ReadOpts{}, func(k, v []byte) error {
		if f.Lo != nil && (bytes.Equal(k, f.Lo) || bytes.Equal(k, f.Hi)) {
			return nil
		}
		if keep == nil || keep(k, v) {
			out = append(out, [2][]byte{bytes.Clone(k), bytes.Clone(v)})
		}
		if len(out) == n {
			return rocks.Stop
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < n {
		t.Fatalf("family %s has %d matching rows, want %d", f.Name, len(out), n)
	}
	return out
}

// vtOrd returns a tenant's ordinal.
func vtOrd(t testing.TB, st *rocks.Store, tenant string) uint32 {
	t.Helper()
	v, ok, err := st.Get(format.CFTenants, format.OrdByTenantKey{Tenant: tenant}.Encode())
	if err != nil || !ok {
		t.Fatalf("ordinal of %q: found=%v err=%v", tenant, ok, err)
	}
	ord, err := format.DecodeU32(v)
	if err != nil {
		t.Fatal(err)
	}
	return ord
}

// vtTenant is tenant as tenant.Resolve resolves it: its id and its ordinal.
func vtTenant(t testing.TB, st *rocks.Store, tenant string) format.Tenant {
	t.Helper()
	return format.Tenant{ID: tenant, Ord: vtOrd(t, st, tenant)}
}

// vtNobody is a tenant the store does not have (resolved, then gone).
var vtNobody = format.Tenant{ID: "nobody", Ord: 99}

// vtFindings returns the findings of one check.
func vtFindings(rep *Report, check string) []Finding {
	var out []Finding
	for _, f := range rep.Findings {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

func vtHex(k []byte) string { return hex.EncodeToString(k) }

func vtDump(rep *Report) string {
	var b strings.Builder
	for _, c := range rep.Corruption {
		fmt.Fprintf(&b, "corrupt: %s\n", c)
	}
	for _, m := range rep.CounterMismatches {
		fmt.Fprintf(&b, "counter %s %s stored=%d folded=%d\n", m.Tenant.String(), m.Field, m.Stored, m.Folded)
	}
	for _, f := range rep.Findings {
		fmt.Fprintf(&b, "%s: %s: %s %v\n", f.Check, f.Key.Key, f.Detail, f.Related)
	}
	return b.String()
}
