package migration

import (
	"hash/maphash"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"pgregory.net/rapid"
)

// The names number each tenant once, whether it is asked by its name (who, the steps' hook
// table) or by its id's bytes and their hash made elsewhere (whoHashed, the bulk method's
// hooks' scan), in any mix and through the table's growth: a name asked again is the number
// it got first, a new one the next number, and of gives the name back. The join warms the
// table for each batch of hooks before it asks (warm, which only reads), here for batches of
// any length, defaults among them, as it does.
func TestHookNamesWhoIsOneNumberAName(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := newHookNames()
		defer h.free()
		// Few letters and short names, so that names repeat; enough of them to grow the
		// table (1,024 slots at first) more than once.
		names := rapid.SliceOfN(rapid.StringMatching(`[ab]{0,11}`), 1, 4000).Draw(t, "names")
		hashed := rapid.SliceOfN(rapid.Bool(), len(names), len(names)).Draw(t, "hashed")
		batch := rapid.IntRange(1, 300).Draw(t, "batch")
		first := map[string]uint32{}
		for i, name := range names {
			if i%batch == 0 {
				hooks := make([]scannedHook, 0, batch)
				for _, n := range names[i:min(i+batch, len(names))] {
					if n == "b" {
						hooks = append(hooks, scannedHook{reason: format.ReasonNilTenant})
					} else {
						hooks = append(hooks, scannedHook{hash: maphash.String(h.seed, n)})
					}
				}
				h.warm(hooks)
			}
			var who uint32
			if hashed[i] {
				id := []byte(name)
				who = h.whoHashed(id, maphash.Bytes(h.seed, id), format.ReasonNone)
				clear(id) // the names keep their own copy
			} else {
				who = h.who(name, format.ReasonNone)
			}
			want, seen := first[name]
			if !seen {
				want = uint32(numReasons + len(first))
				first[name] = want
			}
			if who != want {
				t.Fatalf("name %d %q: who %d, want %d", i, name, who, want)
			}
		}
		for name, who := range first {
			if got, reason, _ := h.of(who); got != name || reason != format.ReasonNone {
				t.Fatalf("of(%d) = %q, %v; want %q", who, got, reason, name)
			}
		}
		// A default's reason is its who, asked either way.
		if w := h.whoHashed(nil, 0, format.ReasonNilTenant); w != uint32(format.ReasonNilTenant) {
			t.Fatalf("whoHashed of a nil tenant: %d", w)
		}
	})
}
