package progress

// Reporter is the one shape of progress that work below the commands takes (restic's
// ui/progress.Counter): how much more is done, how much there is, what is being done.
// *Progress and *Counter are both one; Scoped adapts a Progress to the work's own phase
// names, and Nop is for work nobody watches.
type Reporter interface {
	Add(n int64)
	SetTotal(total int64)
	Phase(label string)
}

var (
	_ Reporter = (*Progress)(nil)
	_ Reporter = (*Counter)(nil)
	_ Reporter = Nop
	_ Reporter = Adds(nil)
)

// Nop is the Reporter of work nobody watches.
var Nop Reporter = nop{}

type nop struct{}

func (nop) Add(int64)      {}
func (nop) SetTotal(int64) {}
func (nop) Phase(string)   {}

// Adds is a Reporter that hands each count to a function (a test's hook, a count kept
// elsewhere); its phases and totals are dropped.
type Adds func(n int64)

func (f Adds) Add(n int64)  { f(n) }
func (Adds) SetTotal(int64) {}
func (Adds) Phase(string)   {}

// Or is r, or Nop where a caller gave none: a lower layer's options left empty.
func Or(r Reporter) Reporter {
	if r == nil {
		return Nop
	}
	return r
}

// Scoped is p as the Reporter of work below a command, whose phases are named in the
// work's own words ("phase due", "due + deliveries"): label turns such a name into the
// line's label, in the command's words (nil: the line keeps its label), and restart says
// whether a phase measures its rate and ETA afresh (a migration's phases run at different
// speeds) or relabels only (one fold over many families, one estimate for them all). A
// nil p (no progress shown) is Nop.
func (p *Progress) Scoped(label func(phase string) string, restart bool) Reporter {
	if p == nil {
		return Nop
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
