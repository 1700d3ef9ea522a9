package health

import (
	"context"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// TestVerifyNamesItsPhases: the Phase callback hears every family each format's fold reads
// (the two lanes side by side while both run: how they overlap is the scheduler's), and ""
// once both lanes are done.
func TestVerifyNamesItsPhases(t *testing.T) {
	for _, c := range []struct {
		format uint32
		want   []string
	}{
		{format.Format3, []string{"tenants", "dead", "due", "inflight", "dead_by_tenant", "archive", "counters", "format 2 keys", "deliveries"}},
		{format.Format2, []string{"due", "inflight", "dead", "archive", "deliveries"}},
	} {
		st := vtOpen(t, vtFixture(t, c.format), rocks.ReadOnly)
		log := &phaseLog{Reporter: reporting.Nop}
		if _, err := Verify(context.Background(), st, VerifyOptions{Progress: log}); err != nil {
			t.Fatal(err)
		}
		labels := log.labels
		if len(labels) == 0 || labels[len(labels)-1] != "" {
			t.Fatalf("format %d: phases %q do not end with \"\"", c.format, labels)
		}
		seen := map[string]bool{}
		for _, l := range labels[:len(labels)-1] {
			if l == "" {
				t.Errorf("format %d: phases %q say nothing is read before the end", c.format, labels)
			}
			for _, p := range strings.Split(l, " + ") {
				seen[p] = true
			}
		}
		for _, w := range c.want {
			if !seen[w] {
				t.Errorf("format %d: phases %q never name %s", c.format, labels, w)
			}
		}
	}
}

// phaseLog keeps the phases a Reporter is told.
type phaseLog struct {
	reporting.Reporter
	labels []string
}

func (p *phaseLog) Phase(l string) { p.labels = append(p.labels, l) }
