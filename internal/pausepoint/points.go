package pausepoint

import "os"

// Points is one package's points, as its environment variable names one of them. Read once,
// when the package's variable is made (a package-level var), so that a point costs a
// comparison of strings and no system call.
type Points struct {
	env   string
	named string // the variable's value; "" when it is unset
}

// FromEnv reads env once.
func FromEnv(env string) *Points {
	return &Points{env: env, named: os.Getenv(env)}
}

// Env is the variable the points are named in.
func (p *Points) Env() string { return p.env }

// Value is what the variable holds ("" when it is unset), for a point that carries an
// argument (fixture's "hooks:N").
func (p *Points) Value() string { return p.named }

// Named reports whether the variable names point: what a point that is not a stop (an
// injected fault) asks.
func (p *Points) Named(point string) bool { return p.named != "" && p.named == point }

// Stop stops the process at point if the variable names it, and returns once it is sent
// SIGCONT.
func (p *Points) Stop(point string) {
	if p.Named(point) {
		Here()
	}
}

// Idler is work that must have nothing left running in the background before a stop: an
// open store (rocks.Store.WaitIdle), whose flush or compaction finishing after the stop
// would free space, or delete its inputs, under the disk the test has just filled.
type Idler interface{ WaitIdle() error }

// StopIdle is Stop once w is idle.
func (p *Points) StopIdle(point string, w Idler) {
	if p.Named(point) {
		_ = w.WaitIdle()
		Here()
	}
}

// Kill kills the process at point if the variable names it.
func (p *Points) Kill(point string) {
	if p.Named(point) {
		Die()
	}
}
