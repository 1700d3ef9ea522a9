package reporting

// Reporter is the progress of work below a command: Add counts n more units, SetTotal
// says how many there are (0: unknown), Phase names what is being done in the work's own
// words, which the command turns into its own.
type Reporter interface {
	Add(n int64)
	SetTotal(total int64)
	Phase(label string)
}

var (
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
