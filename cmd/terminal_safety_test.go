package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ankusa/ankusa-store/internal/safetext"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// What a hostile node (or a hostile client of one) can put in a store: tenant ids,
// source ids, hook ids, last_error, headers and bodies holding escape sequences (an OSC 52
// clipboard write, a screen clear, a window title, SGR that hides text), C1 controls as
// code points and as raw bytes, bidi overrides and isolates, and a noncharacter that
// terminals draw with different widths.
var (
	hostileTenants = []string{
		"evil\x1b]52;c;cHduZWQ=\x07",
		"t\x1b[2J\x1b[31mred",
		"abc\u202edcba",
		"iso\u2066x\u2069",
		"c1\u009b31m",
		"wide\U0010ffff",
		"title\x1b]0;pwned\x07",
		"nul\x00del\x7f\u2028",
	}
	hostileSource    = "src\x1b[8m\u202e"
	hostileHookID    = "hk\x1b[5m\x9b"
	hostileLastError = "HTTP 500\x1b]52;c;ZXZpbA==\x07\r\n\u202e fake \x9b31m done"
	hostileBody      = `{"a":"` + "\x1b[2J\x1b]0;x\x07\u202e" + `"}`
	hostileHeader    = [2][]byte{[]byte("x-evil\x1b[2J"), []byte("\x1b]0;t\x07\u2067")}
)

// hostileStore writes a format 3 store with a dead letter of each hostile tenant, and a
// counter that differs from its fold (so that counters verify reports a mismatch, whose
// next: line names the store), in a directory whose name holds ESC and BEL. It returns the
// store and the refs of the dead letters.
func hostileStore(t *testing.T) (string, []string) { return hostileStoreOf(t, format.Format3) }

// hostileStoreOf is hostileStore in either format; format 2 also gets a hook whose
// tenant_id is not UTF-8 (filed under default, a finding of the migration).
func hostileStoreOf(t *testing.T, storeFormat uint32) (string, []string) {
	t.Helper()
	src := viewsFixture(t, storeFormat, 40)
	st, err := rocks.OpenStore(src, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	q, err := fixture.NewQueue(st.DB, storeFormat, fixture.DefaultNow)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	var ord uint32
	for i, tn := range hostileTenants {
		tenant := tn
		h, err := q.Ingest(&tenant, []uint16{1}, 64, false,
			fixture.IngestIDs(hostileSource, fmt.Sprintf("%s%d", hostileHookID, i)),
			fixture.IngestBody([]byte(hostileBody)), fixture.IngestHeaders([][2][]byte{hostileHeader}))
		if err != nil {
			t.Fatal(err)
		}
		r, err := q.Claim(h.Refs[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.DeadLetter(r, uint64(fixture.DefaultNow.UnixMilli()), []byte(hostileLastError)); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, fmt.Sprintf("%d:%d", h.Seq, 1))
		ord = h.Ord
	}
	if storeFormat == format.Format3 {
		b := rocks.NewBatch()
		b.Merge(format.CFCounters, format.CounterKeyBytes(ord, format.FieldDead), format.EncodeCounterOperand(5))
		if err := st.Write(b, true); err != nil {
			t.Fatal(err)
		}
	} else if _, err := q.Ingest(nil, []uint16{1}, 64, false, fixture.IngestTenantBytes([]byte("\x9b\xff\x1b[2J"))); err != nil {
		t.Fatal(err)
	}
	st.Close()
	dir := filepath.Join(t.TempDir(), "st\x1b]0;pwn\x07ore")
	if err := os.Rename(src, dir); err != nil {
		t.Fatal(err)
	}
	return dir, refs
}

// terminalFaults lists what in out a terminal would act on, or draw at a width it may
// disagree on: any C0 control but tab, newline and the carriage return a pty puts before
// each newline; DEL and C1, as code points or as bytes; bidi overrides and isolates; any
// other rune safetext escapes; and ESC, except (when colour is on) the SGR colours the
// tool draws itself.
func terminalFaults(out string, colour bool) []string { return terminalFaultsLive(out, colour, false) }

// terminalFaultsLive is terminalFaults that also lets through, when live is set, the live
// progress line's "\r\x1b[K".
func terminalFaultsLive(out string, colour, live bool) []string {
	var bad []string
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			bad = append(bad, fmt.Sprintf("byte %#x at %d", out[i], i))
		case live && strings.HasPrefix(out[i:], "\r\x1b[K"):
			n = 4
		case r == '\r' && strings.HasPrefix(out[i:], "\r\n"), r == '\n', r == '\t':
		case r == 0x1b && colour:
			seq := out[i:]
			end := strings.IndexByte(seq, 'm')
			if !strings.HasPrefix(seq, "\x1b[") || end < 0 || strings.Trim(seq[2:end], "0123456789;") != "" {
				bad = append(bad, fmt.Sprintf("%q at %d", seq[:min(len(seq), 12)], i))
				break
			}
			for _, p := range strings.Split(seq[2:end], ";") {
				switch p {
				case "", "0", "1", "2", "22", "31", "32", "33", "39":
				default:
					bad = append(bad, fmt.Sprintf("SGR %q at %d", seq[:end+1], i))
				}
			}
			n = end + 1
		case safetext.Unsafe(r), r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			bad = append(bad, fmt.Sprintf("%U at %d", r, i))
		}
		i += n
	}
	return bad
}

// No byte 0x00-0x1f (but tab and newline), 0x7f-0x9f, U+202A-U+202E or U+2066-U+2069 from
// the store's contents, its path or an argument reaches a terminal, in any output mode:
// tables, records, TSV and JSON on the terminal, the dlq show block, the verify report,
// errors. The escaped forms are shown instead, and every line fits the terminal exactly
// (the noncharacter among them).
func TestHostileStoreOnTheTerminal(t *testing.T) {
	dir, refs := hostileStore(t)
	hostile := hostileTenants[1]
	// The same store under a path shaped like the tool's own colour, which the stream guard
	// lets through with colour on: only the source's escaping stops it.
	red := filepath.Join(filepath.Dir(dir), "st\x1b[31mred")
	if err := os.Symlink(dir, red); err != nil {
		t.Fatal(err)
	}
	runs := [][]string{
		{"counters", "verify", "-o", "table", red},
		{"status", red},
		{"tenants", "ls", red},
		{"counters", "verify", "--metrics-file", filepath.Join(red, "no", "m.prom"), red},
		{"tenants", "ls", dir},
		{"tenants", "ls", "--wide", dir},
		{"tenants", "ls", "-o", "tsv", dir},
		{"tenants", "ls", "-o", "json", dir},
		{"tenants", "show", hostile, dir},
		{"tenants", "show", "-o", "tsv", hostile, dir},
		{"dlq", "scan", dir},
		{"dlq", "scan", "--wide", dir},
		{"dlq", "scan", "-o", "tsv", dir},
		{"dlq", "scan", "-o", "json", dir},
		{"dlq", "show", refs[0], dir},
		{"dlq", "show", "--full", refs[1], dir},
		{"dlq", "show", "-o", "tsv", refs[0], dir},
		{"dlq", "show", "-o", "json", refs[0], dir},
		{"status", dir},
		{"status", "-o", "tsv", dir},
		{"counters", "verify", dir},
		{"counters", "verify", "-o", "tsv", dir},
		{"scan", "dead", dir},
		{"scan", "hooks", "--limit", "3", dir},
		{"scan", "tenants", "-o", "tsv", dir},
		// Errors that echo a path or an argument.
		{"tenants", "ls", filepath.Join(dir, "no\x1b[2Jthing")},
		{"tenants", "show", "no\x1b]52;c;eA==\x07such", dir},
		{"tenants", "ls", filepath.Join(dir, "no\x1b[31mred")},
		{"dlq", "show", "1\x1b[2J", dir},
		{"keys", "decode", "\x1b]0;x\x07"},
		{"tenants", "ls", "-o", "json", filepath.Join(dir, "gone")},
	}
	for _, cols := range []int{80, 160} {
		for _, args := range runs {
			for _, colour := range []bool{false, true} {
				if colour && cols == 160 {
					continue
				}
				env := []string{"NO_COLOR=1", progress.Env + "=none"}
				if colour {
					env = []string{progress.Env + "=none"}
				}
				out, code := runOnTerminal(t, cols, env, args...)
				if code > 4 {
					t.Errorf("%d columns, %q: exit %d\n%s", cols, args, code, out)
				}
				for _, f := range terminalFaults(out, colour) {
					t.Errorf("%d columns, colour %v, %q: %s reaches the terminal:\n%q", cols, colour, args, f, out)
				}
				// A colour of the store's own passes for one of the tool's at the stream;
				// only the source can tell them apart.
				if strings.Contains(out, "\x1b[31mred") {
					t.Errorf("%d columns, colour %v, %q: the tenant's own SGR reaches the terminal:\n%q", cols, colour, args, out)
				}
				if a := strings.Join(args, " "); code <= 1 && !strings.Contains(a, "json") && !strings.Contains(a, "tsv") && !strings.Contains(a, "--wide") {
					for _, l := range screenLines(out) {
						if w := ansi.StringWidth(l); w > cols {
							t.Errorf("%d columns, %q: a line of %d columns:\n%s", cols, args, w, l)
						}
					}
				}
			}
		}
	}
	// What was escaped is shown, not dropped.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tenants", "ls", "--wide", dir}, `evil\x1b]52;c;cHduZWQ=\x07`},
		{[]string{"tenants", "ls", "-o", "tsv", dir}, `wide\U0010ffff`},
		{[]string{"tenants", "ls", "-o", "json", dir}, `"abc\u202edcba"`},
		{[]string{"dlq", "scan", "-o", "tsv", dir}, `HTTP 500\x1b]52;c;ZXZpbA==\x07\r\n\u202e fake \x9b31m done`},
		{[]string{"dlq", "show", refs[0], dir}, `{"a":"\x1b[2J\x1b]0;x\x07\u202e"}`},
		{[]string{"counters", "verify", dir}, `st\x1b]0;pwn\x07ore`},
		{[]string{"tenants", "ls", filepath.Join(dir, "nothing")}, `st\x1b]0;pwn\x07ore`},
		{[]string{"dlq", "show", "1\x1b[2J", dir}, `1\x1b[2J`},
	} {
		out, _ := runOnTerminal(t, 400, []string{"NO_COLOR=1", progress.Env + "=none"}, tc.args...)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%q: %q not shown:\n%s", tc.args, tc.want, out)
		}
	}
}

// A path shaped like the tool's own colour (ESC [ 31 m) passes the stream guard, which
// cannot tell it from a colour the tool draws: every place that prints a store path, a
// checkpoint, a metrics file or an output directory must escape it at the source. The store
// (format 2, so that migrate runs too) and every path the runs name hold "\x1b[31m"; colour
// is on, so the guard lets SGR through, and any raw "\x1b[31mred" is the path's.
func TestColourShapedPathOnTheTerminal(t *testing.T) {
	src, _ := hostileStoreOf(t, format.Format2)
	base := t.TempDir()
	dir := filepath.Join(base, "st\x1b[31mred")
	if err := os.Rename(src, dir); err != nil {
		t.Fatal(err)
	}
	// A metrics path whose write fails at the end (its link points into a directory that
	// does not exist): the error line after the report names it.
	prom := filepath.Join(base, "m\x1b[31mred.prom")
	if err := os.Symlink(filepath.Join(base, "gone", "m.prom"), prom); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string // the path, escaped, as the output shows it
	}{
		{[]string{"counters", "verify", "--metrics-file", prom, dir}, `--metrics-file ` + base + `/m\x1b[31mred.prom not written`},
		{[]string{"fixture", "--format", "3", "--hooks", "30", "--dir", filepath.Join(base, "fix\x1b[31mred")}, `wrote ` + base + `/fix\x1b[31mred`},
		{[]string{"fixture", "--format", "3", "--hooks", "30", "-o", "tsv", "--dir", filepath.Join(base, "fix2\x1b[31mred")}, "wrote\t" + base + `/fix2\x1b[31mred`},
		{[]string{"migrate", "--backup", filepath.Join(base, "cp\x1b[31mred"), dir}, `checkpoint of the store before migrating: ` + base + `/cp\x1b[31mred`},
		{[]string{"checkpoints", "rm", filepath.Join(base, "cp\x1b[31mred")}, `would remove ` + base + `/cp\x1b[31mred`},
	} {
		got, code := runOnTerminal(t, 400, []string{progress.Env + "=none"}, tc.args...)
		if code > 2 {
			t.Errorf("%q: exit %d\n%s", tc.args, code, got)
		}
		if strings.Contains(got, "\x1b[31mred") {
			t.Errorf("%q: the path's own SGR reaches the terminal:\n%q", tc.args, got)
		}
		for _, f := range terminalFaults(got, true) {
			t.Errorf("%q: %s reaches the terminal:\n%q", tc.args, f, got)
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: %q not shown:\n%s", tc.args, tc.want, got)
		}
	}
}

// The same for a format 2 store (tenants from the hooks, one not UTF-8) and the commands
// that write: migrate's plan, summary and findings, fixture's summary, and the live
// progress line, whose label names a hostile path.
func TestHostileStoreOnTheTerminalFormat2(t *testing.T) {
	dir, refs := hostileStoreOf(t, format.Format2)
	out := filepath.Join(filepath.Dir(dir), "fix\x1b]0;t\x07ture")
	for _, tc := range []struct {
		args []string
		live bool
	}{
		{[]string{"tenants", "ls", dir}, false},
		{[]string{"tenants", "ls", dir}, true},
		{[]string{"dlq", "scan", dir}, false},
		{[]string{"dlq", "show", refs[2], dir}, false},
		{[]string{"status", dir}, false},
		{[]string{"counters", "verify", dir}, true},
		{[]string{"migrate", "--dry-run", dir}, true},
		{[]string{"migrate", "--dry-run", "-o", "tsv", dir}, false},
		{[]string{"migrate", "--no-backup", dir}, true},
		{[]string{"tenants", "ls", dir}, false},
		{[]string{"fixture", "--format", "3", "--hooks", "30", "--dir", out}, true},
	} {
		for _, colour := range []bool{false, true} {
			env := []string{progress.Env + "=none"}
			if tc.live {
				env = []string{progress.Env + "=tty", progress.IntervalEnv + "=1ms"}
			}
			if !colour {
				env = append(env, "NO_COLOR=1")
			}
			if tc.args[0] == "migrate" && tc.args[1] == "--no-backup" && colour {
				continue // migrated once
			}
			if tc.args[0] == "fixture" {
				os.RemoveAll(out)
			}
			got, code := runOnTerminal(t, 80, env, tc.args...)
			if code > 1 {
				t.Errorf("%q: exit %d\n%s", tc.args, code, got)
			}
			for _, f := range terminalFaultsLive(got, colour, tc.live) {
				t.Errorf("colour %v, %q: %s reaches the terminal:\n%q", colour, tc.args, f, got)
			}
			quotes := tc.args[0] != "migrate" && tc.args[0] != "counters" // their output names no tenant, source or path here
			if quotes && !strings.Contains(got, `\x1b`) && !strings.Contains(got, `\u202e`) && !strings.Contains(got, `\x9b`) {
				t.Errorf("colour %v, %q: nothing hostile shown, escaped:\n%s", colour, tc.args, got)
			}
		}
	}
}

// Piped, TSV and JSON are byte-exact: a script gets the store's bytes (TSV's own escapes
// of tab, newline, carriage return and backslash aside; JSON as encoding/json escapes).
func TestHostileStorePipedIsExact(t *testing.T) {
	dir, refs := hostileStore(t)
	code, out, errOut := runCLI(t.Context(), []string{"dlq", "scan", "-o", "tsv", dir})
	if code != 0 {
		t.Fatalf("dlq scan: exit %d\n%s", code, errOut)
	}
	for _, tn := range hostileTenants {
		if !strings.Contains(out, "\t"+ui.TSVEscape(tn)+"\t"+ui.TSVEscape(hostileSource)+"\t") {
			t.Errorf("dlq scan -o tsv: no exact row for %q:\n%q", tn, out)
		}
	}
	if !strings.Contains(out, "\t"+ui.TSVEscape(hostileLastError)+"\t") {
		t.Errorf("dlq scan -o tsv: last_error not exact:\n%q", out)
	}
	code, out, errOut = runCLI(t.Context(), []string{"tenants", "ls", "-o", "json", dir})
	if code != 0 {
		t.Fatalf("tenants ls: exit %d\n%s", code, errOut)
	}
	var l struct{ Tenants []struct{ Tenant string } }
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range l.Tenants {
		seen[r.Tenant] = true
	}
	for _, tn := range hostileTenants {
		if !seen[tn] {
			t.Errorf("tenants ls -o json: %q not there exactly", tn)
		}
	}
	code, out, errOut = runCLI(t.Context(), []string{"dlq", "show", "-o", "json", refs[0], dir})
	if code != 0 {
		t.Fatalf("dlq show: exit %d\n%s", code, errOut)
	}
	var d struct {
		DeadLetters []struct {
			SourceID string `json:"source_id"`
			Delivery struct {
				LastError string `json:"last_error"`
			}
			Hook struct {
				BodyText string `json:"body_text"`
			}
		} `json:"dead_letters"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.DeadLetters) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	dl := d.DeadLetters[0]
	if dl.SourceID != hostileSource || dl.Delivery.LastError != strings.ToValidUTF8(hostileLastError, "\ufffd") || dl.Hook.BodyText != hostileBody {
		t.Errorf("dlq show -o json is not exact: %+v", dl)
	}
}
