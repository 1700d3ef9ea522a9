package progress

import (
	"io"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"testing"
	"time"
)

// The lower layers name their phases in their own words; Scoped puts them in the
// command's, and a phase that restarts the rate moves the phase's start while one that
// only relabels keeps it (a fold's one estimate covers every family).
func TestScoped(t *testing.T) {
	label := func(phase string) string { return "migrate s: phase " + phase }
	for _, tc := range []struct {
		name         string
		restart      bool
		label        func(string) string
		wantLabel    string
		wantNewPhase bool
	}{
		{"a phase restarts the rate", true, label, "migrate s: phase due", true},
		{"a phase relabels only", false, label, "migrate s: phase due", false},
		{"phases ignored", false, nil, "start", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Stream{W: io.Discard, Mode: None}, "start", "rows", 0)
			defer p.Done()
			r := p.Scoped(tc.label, tc.restart)
			r.Add(5)
			before := p.snap(time.Now())
			time.Sleep(2 * time.Millisecond)
			r.Phase("due")
			r.Add(3)
			r.SetTotal(10)
			s := p.snap(time.Now())
			if s.label != tc.wantLabel || s.done != 8 || s.total != 10 {
				t.Fatalf("label %q done %d total %d; want %q, 8, 10", s.label, s.done, s.total, tc.wantLabel)
			}
			if newPhase := s.phaseDone == 3; newPhase != tc.wantNewPhase {
				t.Errorf("counted %d in the phase (of %d before): a new phase is %v, want %v", s.phaseDone, before.done, newPhase, tc.wantNewPhase)
			}
		})
	}
}

// Work nobody watches reports to Nop: a nil Progress's Scoped.
func TestNobodyWatches(t *testing.T) {
	var p *Progress
	if r := p.Scoped(nil, true); r != reporting.Nop {
		t.Errorf("%T, want reporting.Nop", r)
	}
}
