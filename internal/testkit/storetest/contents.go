package storetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Contents is the logical content of a store: every key of every column
// family with its value as a reader sees it (counters merged), by column
// family then key. Two stores with equal contents answer every read the
// same, however their files and merge operands are laid out.
type Contents map[string]map[string]string

// Dump reads the logical content of the store in dir (opened read-only).
func Dump(t testing.TB, dir string) Contents {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	return DumpOpen(t, st)
}

// DumpOpen is Dump of a store that is already open.
func DumpOpen(t testing.TB, st *rocks.Store) Contents {
	t.Helper()
	out := Contents{}
	for _, cf := range st.Families() {
		m := map[string]string{}
		err := st.Scan(cf, nil, nil, rocks.ReadOpts{}, func(k, v []byte) error {
			m[string(k)] = string(v)
			return nil
		})
		if err != nil {
			t.Fatalf("dump %s/%s: %v", st.Dir, cf, err)
		}
		out[cf] = m
	}
	return out
}

// Diff describes how got differs from want, keys decoded, at most five keys
// per column family; "" when they are equal.
func Diff(want, got Contents) string {
	var b strings.Builder
	cfs := map[string]bool{}
	for cf := range want {
		cfs[cf] = true
	}
	for cf := range got {
		cfs[cf] = true
	}
	for _, cf := range slices.Sorted(maps.Keys(cfs)) {
		w, g := want[cf], got[cf]
		n := 0
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			wv, wok := w[k]
			gv, gok := g[k]
			if wok == gok && wv == gv {
				continue
			}
			if n++; n > 5 {
				fmt.Fprintf(&b, "  %s: ...\n", cf)
				break
			}
			d := format.DecodeKey(cf, []byte(k))
			switch {
			case !gok:
				fmt.Fprintf(&b, "  %s %v: missing (want %x)\n", cf, d, wv)
			case !wok:
				fmt.Fprintf(&b, "  %s %v: unexpected %x\n", cf, d, gv)
			default:
				fmt.Fprintf(&b, "  %s %v: %x, want %x\n", cf, d, gv, wv)
			}
		}
	}
	return b.String()
}

// AssertSame fails the test unless got equals want, saying where they differ.
func AssertSame(t testing.TB, want, got Contents) {
	t.Helper()
	if d := Diff(want, got); d != "" {
		t.Fatalf("stores differ:\n%s", d)
	}
}
