package faults

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// A damaged file never aborts a command and is never a usage error: each read-only command
// either exits 3 naming the damaged file ("store is corrupt: ... in 000041.sst ...: do not
// migrate or repair; ..."), or, when it never reads the damaged bytes, does what it does on
// the undamaged store. Damage that RocksDB meets while the store opens (footer, metaindex,
// properties and index blocks, a truncated table file, the MANIFEST, a WAL record before the
// tail) fails every command. A torn WAL tail is what a crash leaves: it is recovered, by
// design, and the store reads as healthy. No command changes the damaged store.

// damageCase damages a store (extracted fixture) and returns the name of the damaged file.
type damageCase struct {
	name   string
	damage func(t *testing.T, dir, table string) string
	atOpen bool // every command must fail (exit 3)
	torn   bool // every command must succeed as on the undamaged store
}

var damageCases = []damageCase{
	{name: "properties block restart count", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		// The last byte of the properties block's restart count: its top bit is the
		// data-block-hash-index flag, which made RocksDB abort (num_buckets_ > 0).
		meta, _ := footer(t, filepath.Join(dir, table))
		flip(t, filepath.Join(dir, table), int64(meta.off)-5-1)
		return table
	}},
	{name: "properties block content", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		meta, _ := footer(t, filepath.Join(dir, table))
		flip(t, filepath.Join(dir, table), int64(meta.off)-5-200)
		return table
	}},
	{name: "metaindex block", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		meta, _ := footer(t, filepath.Join(dir, table))
		flip(t, filepath.Join(dir, table), int64(meta.off)+2)
		return table
	}},
	{name: "index block", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		_, idx := footer(t, filepath.Join(dir, table))
		flip(t, filepath.Join(dir, table), int64(idx.off)+2)
		return table
	}},
	{name: "footer magic", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		flip(t, filepath.Join(dir, table), size(t, filepath.Join(dir, table))-3)
		return table
	}},
	{name: "footer format version", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		flip(t, filepath.Join(dir, table), size(t, filepath.Join(dir, table))-10)
		return table
	}},
	{name: "truncated table file", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		p := filepath.Join(dir, table)
		if err := os.Truncate(p, size(t, p)-100); err != nil {
			t.Fatal(err)
		}
		return table
	}},
	{name: "missing table file", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		if err := os.Remove(filepath.Join(dir, table)); err != nil {
			t.Fatal(err)
		}
		// Named as the store lists it (RocksDB 9.11 tries the .sst name only; older ones
		// reported their fallback .ldb name, which the message maps back).
		return table
	}},
	{name: "data block", damage: func(t *testing.T, dir, table string) string {
		flip(t, filepath.Join(dir, table), 100)
		return table
	}},
	{name: "MANIFEST", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		m := only(t, dir, `^MANIFEST-[0-9]+$`)
		flip(t, filepath.Join(dir, m), size(t, filepath.Join(dir, m))/2)
		return m
	}},
	{name: "WAL record before the tail", atOpen: true, damage: func(t *testing.T, dir, table string) string {
		w := only(t, dir, `^[0-9]+\.log$`)
		flip(t, filepath.Join(dir, w), size(t, filepath.Join(dir, w))/2)
		return w
	}},
	{name: "torn WAL tail", torn: true, damage: func(t *testing.T, dir, table string) string {
		w := only(t, dir, `^[0-9]+\.log$`)
		p := filepath.Join(dir, w)
		if err := os.Truncate(p, size(t, p)-100); err != nil {
			t.Fatal(err)
		}
		return w
	}},
}

func TestDamagedFiles(t *testing.T) {
	// The family whose newest table file is damaged: one every command's open loads and
	// counters verify folds (counters in format 3; index, the biggest, in format 2).
	for _, fx := range []struct{ fixture, family string }{{"store-v3", "counters"}, {"store-v2", "index"}} {
		clean := extract(t, fx.fixture, t.TempDir())
		baseline := map[string]int{}
		for _, args := range roCommands {
			r := run(t, append(args, clean)...)
			if r.Signaled {
				t.Fatalf("%v on the undamaged %s: %s", args, fx.fixture, r)
			}
			baseline[strings.Join(args, " ")] = r.Code
		}
		table := tableOf(t, clean, fx.family)
		for _, c := range damageCases {
			t.Run(fx.fixture+"/"+c.name, func(t *testing.T) {
				dir := extract(t, fx.fixture, t.TempDir())
				file := c.damage(t, dir, table)
				before := storetest.TreeOf(t, dir)
				for _, args := range roCommands {
					r := run(t, append(args, dir)...)
					storetest.SameTree(t, before, storetest.TreeOf(t, dir))
					name := strings.Join(args, " ")
					if r.Signaled || r.Code == 2 || r.Code > 4 {
						t.Fatalf("%s: %s", name, r)
					}
					mustFail := c.atOpen || (name == "counters verify" && !c.torn)
					switch {
					case c.torn:
						expect(t, r, baseline[name])
					case mustFail:
						expect(t, r, 3, "corrupt: ", " in "+file, "do not migrate or repair")
					case r.Code != baseline[name]:
						expect(t, r, 3, "corrupt: ", " in "+file, "do not migrate or repair")
					}
					if r.Code == 3 && strings.Count(r.Stderr, "Error: ") != 1 {
						t.Errorf("%s: want one error line:\n%s", name, r.Stderr)
					}
				}
				if c.torn {
					expect(t, run(t, "counters", "verify", dir), 0)
				}
			})
		}
	}
}

type handle struct{ off, size uint64 }

// footer reads a block-based table file's metaindex and index handles (format_version >= 1:
// checksum type, two handles, padding to 40 bytes, version, magic).
func footer(t *testing.T, path string) (meta, index handle) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint64(b[len(b)-8:]) != 0x88e241b785f4cff7 {
		t.Fatalf("%s: not a block-based table (format_version >= 1)", path)
	}
	p := b[len(b)-53+1:]
	var n int
	meta.off, n = binary.Uvarint(p)
	p = p[n:]
	meta.size, n = binary.Uvarint(p)
	p = p[n:]
	index.off, n = binary.Uvarint(p)
	p = p[n:]
	index.size, _ = binary.Uvarint(p)
	return meta, index
}

// tableOf names the newest table file of a column family, as sst_dump (RocksDB's own tool)
// reports the files' properties.
func tableOf(t *testing.T, dir, family string) string {
	t.Helper()
	ms, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	sort.Strings(ms)
	var found string
	for _, m := range ms {
		out, err := exec.Command("sst_dump", "--file="+m, "--show_properties").CombinedOutput()
		if err != nil {
			t.Fatalf("sst_dump %s: %v\n%s", m, err, out)
		}
		if regexp.MustCompile(`column family name: ` + family + `\n`).Match(out) {
			found = filepath.Base(m)
		}
	}
	if found == "" {
		t.Fatalf("no table file of family %s in %s", family, dir)
	}
	return found
}

func only(t *testing.T, dir, re string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if regexp.MustCompile(re).MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) != 1 {
		t.Fatalf("want one file matching %s in %s, have %v", re, dir, names)
	}
	return names[0]
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// flip inverts every bit of the byte at off.
func flip(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A family cut short by damage leaves its counter fields unjudged: their mismatches would be
// the damage's (the fold stopped early, or the stored values were not all read), so counters
// verify lists them as not checked instead of reporting them, and still exits 3.
func TestDamagedFamilyWithholdsItsCounters(t *testing.T) {
	clean := extract(t, "store-v3", t.TempDir())
	for _, c := range []struct{ family, fields string }{
		{"counters", "counter fields pending, scheduled, inflight, dead, bytes, archive_pending"},
		{"index", "counter fields pending, scheduled, bytes"},
	} {
		t.Run(c.family, func(t *testing.T) {
			table := tableOf(t, clean, c.family)
			dir := extract(t, "store-v3", t.TempDir())
			flip(t, filepath.Join(dir, table), 100)
			r := run(t, "counters", "verify", "-o", "json", dir)
			if r.Code != 3 {
				t.Fatalf("want exit 3: %s", r)
			}
			var rep struct {
				Mismatches []json.RawMessage        `json:"counter_mismatches"`
				NotChecked []struct{ Check string } `json:"not_checked"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
				t.Fatalf("report: %v\n%s", err, r)
			}
			if len(rep.Mismatches) != 0 {
				t.Errorf("%d counter mismatches reported from a cut-short fold", len(rep.Mismatches))
			}
			found := false
			for _, n := range rep.NotChecked {
				found = found || n.Check == c.fields
			}
			if !found {
				t.Errorf("not checked %+v: no %q", rep.NotChecked, c.fields)
			}
			// The error names the class once: "store is corrupt: due (index): block checksum
			// mismatch in ...", not "...(index): corrupt: block ...".
			text := run(t, "counters", "verify", dir)
			if strings.Contains(text.Stderr, "): corrupt: ") || !strings.Contains(text.Stderr, "Error: store is corrupt: ") {
				t.Errorf("error line:\n%s", text.Stderr)
			}
		})
	}
}
