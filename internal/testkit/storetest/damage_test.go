package storetest

import (
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// Each stray key lies strictly inside one old family's sentinels (so a fold hands it over)
// and is none of that family's keys (so a migration must count it a stray, not move it).
func TestStrayKeysAreInsideAFamilyAndNoneOfItsKeys(t *testing.T) {
	fams := []format.Family{format.FamDueV2, format.FamInflightV2, format.FamDead, format.FamArchive}
	seen := map[string]bool{}
	for _, k := range StrayKeys() {
		var in *format.Family
		for i := range fams {
			if fams[i].Contains(k) {
				in = &fams[i]
			}
		}
		if in == nil {
			t.Errorf("stray %x is inside no old family", k)
			continue
		}
		seen[in.Name] = true
		if _, err := in.DecodeKey(k); err == nil {
			t.Errorf("stray %x decodes as a key of %s", k, in.Name)
		}
	}
	for _, f := range fams {
		if !seen[f.Name] {
			t.Errorf("no stray in %s", f.Name)
		}
	}
}

// DamageRows deletes the first of each n hooks and delivery rows and garbles the second
// hook, and nothing else.
func TestDamageRowsDamagesWhatItSays(t *testing.T) {
	dir := Extract(t, "store-v2.tar.zst")
	before := Dump(t, dir)
	DamageRows(t, dir, 4)
	after := Dump(t, dir)
	for _, cf := range []string{format.CFHooks, format.CFDeliveries} {
		n := len(before[cf])
		wantGone := (n + 3) / 4
		if gone := n - len(after[cf]); gone != wantGone {
			t.Errorf("%s: %d of %d rows gone, want %d", cf, gone, n, wantGone)
		}
		changed := 0
		for k, v := range after[cf] {
			if before[cf][k] != v {
				changed++
			}
		}
		want := 0
		if cf == format.CFHooks {
			want = (n + 2) / 4
		}
		if changed != want {
			t.Errorf("%s: %d rows changed, want %d", cf, changed, want)
		}
	}
	for cf, m := range before {
		if cf == format.CFHooks || cf == format.CFDeliveries {
			continue
		}
		if d := Diff(Contents{cf: m}, Contents{cf: after[cf]}); d != "" {
			t.Errorf("%s changed:\n%s", cf, d)
		}
	}
}
