package progress

import "github.com/ankusa/ankusa-store/internal/reporting"

// *Progress and *Counter are each a reporting.Reporter, the progress work below the
// commands takes; Scoped adapts a Progress to the work's own phase names.
var (
	_ reporting.Reporter = (*Progress)(nil)
	_ reporting.Reporter = (*Counter)(nil)
)

// Scoped is p as the Reporter of work below a command, whose phases are named in the
// work's own words ("phase due", "due + deliveries"): label turns such a name into the
// line's label, in the command's words (nil: the line keeps its label), and restart says
// whether a phase measures its rate and ETA afresh (a migration's phases run at different
// speeds) or relabels only (one fold over many families, one estimate for them all). A
// nil p (no progress shown) is reporting.Nop.
func (p *Progress) Scoped(label func(phase string) string, restart bool) reporting.Reporter {
	if p == nil {
		return reporting.Nop
	}
	return scoped{p: p, label: label, restart: restart}
}

type scoped struct {
	p       *Progress
	label   func(string) string
	restart bool
}

func (s scoped) Add(n int64)          { s.p.Add(n) }
func (s scoped) SetTotal(total int64) { s.p.SetTotal(total) }
func (s scoped) Phase(name string) {
	switch {
	case s.label == nil:
	case s.restart:
		s.p.Phase(s.label(name))
	default:
		s.p.SetLabel(s.label(name))
	}
}
