package health

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/archive"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The faulty stores the end-to-end tests (testdata/script/verify_*.txtar)
// run the command on, committed under testdata/health, and the golden JSON
// report of one of them. `go test ./pkg/health -run TestVerifyArchives
// -update` rebuilds them; without -update the test checks that each archive
// still holds its faults, so a stale archive fails here first.

func init() {
	// The package's other tests may define -update too: one flag serves both.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files and generated test stores")
	}
}

func vtUpdating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// vtArchiveBase is the small store the archives are made from.
var vtArchiveBase = fixture.Options{Format: format.Format3, Seed: 7, Tenants: 5, Hooks: 40}

type vtArchive struct {
	plant func(t *testing.T, st *rocks.Store, b *rocks.Batch)
	check func(t *testing.T, rep *Report, err error)
}

func vtExtraOperands(t *testing.T, st *rocks.Store, b *rocks.Batch) {
	b.Merge(format.CFCounters, format.CounterKeyBytes(vtOrd(t, st, "acme"), format.FieldPending), format.EncodeCounterOperand(3))
	b.Merge(format.CFCounters, format.CounterKey{Ord: 0, Field: format.FieldBytes, Shard: 7}.Encode(), format.EncodeCounterOperand(-40))
}

var vtArchives = map[string]vtArchive{
	// Every kind of finding at once; its report is the golden JSON.
	"verify-faults": {
		plant: func(t *testing.T, st *rocks.Store, b *rocks.Batch) {
			vtExtraOperands(t, st, b)
			globex := vtOrd(t, st, "globex")
			due := vtRows(t, st, format.FamDue, 1, func(k, _ []byte) bool { return be.Uint32(k[1:]) == globex })[0]
			dk, _ := format.DecodeDueKey(due[0])
			b.Delete(format.CFIndex, dk.ActiveKey().Encode())
			dead := vtRows(t, st, format.FamDead, 1, nil)[0]
			xk, _ := format.DecodeDeadKey(dead[0])
			dv, _ := format.DecodeDeadValue(dead[1])
			b.Delete(format.CFIndex, xk.ByTenant(dv.Ord).Encode())
			b.Put(format.CFIndex, format.DeadByTenantKey{Ord: globex, At: 1_700_000_000_000, Seq: 999_999, Sink: 9}.Encode(), nil)
			b.Put(format.CFTenants, format.OrdByTenantKey{Tenant: "acme"}.Encode(), format.EncodeU32(globex))
			inf := vtRows(t, st, format.FamInflight, 1, nil)[0]
			fk, _ := format.DecodeInflightKey(inf[0])
			size, _ := format.DecodeSize(inf[1])
			twin := format.DueKey{Ord: fk.Ord, At: 1_800_000_000_000, Seq: fk.Seq, Sink: fk.Sink}
			b.Put(format.CFIndex, twin.Encode(), format.DueValue{Size: size}.Encode())
			b.Put(format.CFIndex, twin.ActiveKey().Encode(), nil)
		},
		check: func(t *testing.T, rep *Report, err error) {
			if err != nil || rep.Verdict != VerdictFindings {
				t.Fatalf("verify: %v %s", err, rep.Summary())
			}
			for _, c := range []string{CheckMarkerMissing, CheckDeadByTenantMissing, CheckDeadMissing, CheckTenantMaps, CheckDeliveryIndexKeys} {
				if len(vtFindings(rep, c)) == 0 {
					t.Errorf("no %s finding:\n%s", c, vtDump(rep))
				}
			}
			if len(rep.CounterMismatches) < 2 {
				t.Errorf("counter mismatches:\n%s", vtDump(rep))
			}
		},
	},
	// Counter mismatches only: a repair makes it healthy.
	"verify-counters": {
		plant: vtExtraOperands,
		check: func(t *testing.T, rep *Report, err error) {
			if err != nil || len(rep.Findings) != 0 || len(rep.CounterMismatches) != 2 {
				t.Fatalf("verify: %v\n%s", err, vtDump(rep))
			}
		},
	},
	"verify-hi-sentinel": {
		plant: func(_ *testing.T, _ *rocks.Store, b *rocks.Batch) { b.Delete(format.CFIndex, format.FamDue.Hi) },
		check: func(t *testing.T, rep *Report, err error) {
			if !isCorrupt(err) || len(rep.Corruption) != 1 || rep.Corruption[0].Key.Hex != vtHex(format.FamDue.Hi) {
				t.Fatalf("verify: %v\n%s", err, vtDump(rep))
			}
		},
	},
	"verify-bad-operand": {
		plant: func(t *testing.T, st *rocks.Store, b *rocks.Batch) {
			b.Merge(format.CFCounters, format.CounterKeyBytes(vtOrd(t, st, "globex"), format.FieldDead),
				[]byte{131, 104, 2, 119, 7, 'i', 'n', 't', '_', 's', 'u', 'b', 97, 1})
		},
		check: func(t *testing.T, rep *Report, err error) {
			if !isCorrupt(err) || len(rep.Corruption) != 1 || rep.Corruption[0].Family != format.FamilyNameCounters {
				t.Fatalf("verify: %v\n%s", err, vtDump(rep))
			}
		},
	},
	"verify-migrating": {
		plant: func(_ *testing.T, _ *rocks.Store, b *rocks.Batch) {
			b.Put(format.CFDefault, []byte(format.KeyMigrating3), format.MigrationCursor{Phase: format.MigPhaseDead}.Encode())
		},
		check: func(t *testing.T, rep *Report, err error) {
			if rep != nil || !isMidMigration(err) {
				t.Fatalf("verify mid-migration: %v", err)
			}
		},
	},
}

func isMidMigration(err error) bool { return err != nil && errors.Is(err, rocks.ErrMidMigration) }

func TestVerifyArchives(t *testing.T) {
	for name, a := range vtArchives {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "health", name+".tar.zst")
			if vtUpdating() {
				dir := filepath.Join(t.TempDir(), "store")
				if _, err := fixture.Generate(context.Background(), dir, vtArchiveBase); err != nil {
					t.Fatal(err)
				}
				vtPlant(t, dir, func(st *rocks.Store, b *rocks.Batch) { a.plant(t, st, b) })
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := archive.PackArchive(dir, path); err != nil {
					t.Fatal(err)
				}
			}
			dir := filepath.Join(t.TempDir(), "x")
			if err := archive.ExtractArchive(path, dir); err != nil {
				t.Fatalf("%v (run with -update to build it)", err)
			}
			rep, err := vtVerify(t, dir, VerifyOptions{})
			a.check(t, rep, err)
			if name == "verify-faults" {
				vtGolden(t, filepath.Join("..", "..", "testdata", "health", name+".golden.json"), rep)
			}
		})
	}
}

// vtGolden compares v's indented JSON with a golden file (-update rewrites
// it): the report's schema is an interface, so any change to it shows here.
func vtGolden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if vtUpdating() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update if the change is meant):\n%s", path, got)
	}
}
