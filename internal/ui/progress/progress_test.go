package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// At 80 columns the live line keeps what it is for (issue 21): the command, what it is
// doing (the phase), done/total and the ETA; the store path goes first, then the rate,
// then the digits of the counts. Wider, the path's end and the rate come back. At 60
// the phase text stays whole (issue 29: "backlog p…"): the percentage, the ETA and the
// command's name go first. A total that is RocksDB's estimate says so, with no
// percentage (issue 29: "~1.1M keys" while 737,115 were read).
func TestProgressLineKeepsWhatMatters(t *testing.T) {
	long := "/var/lib/ankusa/very/long/path/to/the/stores/of/this/node/store"
	for _, tc := range []struct {
		s                 counterSnap
		at60, at80, at120 []string
	}{
		{counterSnap{label: "migrate " + long + ": phase dead", unit: "rows", done: 41000, total: 82829, phaseDone: 41000,
			elapsed: 3 * time.Second, phaseAge: 3 * time.Second},
			[]string{"migrate: phase dead", "41,000/82,829 rows"},
			[]string{"migrate", ": phase dead", "41,000/82,829 rows (49%)", "13,666 rows/s", "ETA "},
			[]string{"migrate …", "/node/store: phase dead", "41,000/82,829 rows (49%)", "13,666 rows/s", "ETA "}},
		{counterSnap{label: "tenants ls " + long + ": backlog pass (format 2)", unit: "rows", done: 12345, total: 20000,
			phaseDone: 12345, elapsed: 2 * time.Second, phaseAge: 2 * time.Second},
			[]string{"backlog pass (format 2)", "12.3k/20.0k rows"},
			[]string{"tenants ls: backlog pass (format 2)", "12,345/20,000 rows (61%)", "ETA "},
			[]string{"tenants ls …", "/store: backlog pass (format 2)", "12,345/20,000 rows (61%)", "6,172 rows/s", "ETA "}},
		{counterSnap{label: "counters verify " + long + ": reading due + deliveries", unit: "keys", done: 1500000, total: 3000000, approx: true,
			phaseDone: 1500000, elapsed: 9 * time.Second, phaseAge: 9 * time.Second},
			[]string{"reading due + deliveries", "1.5M of ~3.0M keys"},
			[]string{"counters verify: reading due + deliveries", "1.5M of ~3.0M keys", "ETA ~9s"},
			[]string{"counters verify …", "/store: reading due + deliveries", "1,500,000 of ~3,000,000 keys", "166,666 keys/s", "ETA ~9s"}},
		{counterSnap{label: "counters verify " + long + ": reading due + deliveries", unit: "keys", done: 3100000, total: 3000000, approx: true,
			phaseDone: 3100000, elapsed: 9 * time.Second, phaseAge: 9 * time.Second},
			[]string{"reading due + deliveries", "3,100,000 keys"},
			[]string{"counters verify: reading due + deliveries", "3,100,000 keys"},
			[]string{"counters verify …", "/store: reading due + deliveries", "3,100,000 keys", "344,444 keys/s"}},
	} {
		for width, wants := range map[int][]string{59: tc.at60, 79: tc.at80, 119: tc.at120} {
			got := fitProgressLine(tc.s, width)
			if w := ansi.StringWidth(got); w > width {
				t.Errorf("%d: %d columns: %q", width, w, got)
			}
			for _, w := range strings.Fields(got) {
				if strings.Contains(w, "…") && !strings.Contains(w, "/") {
					t.Errorf("%d: %q cuts the line's text (only the store path may be cut)", width, got)
				}
			}
			if tc.s.approx && strings.Contains(got, "%") {
				t.Errorf("%d: %q: a percentage of an estimate", width, got)
			}
			for _, w := range wants {
				if !strings.Contains(got, w) {
					t.Errorf("%d: %q lacks %q", width, got, w)
				}
			}
		}
	}
}
