// Package gosrc is the program's Go source as the lint tests read it: every non-test .go
// file of the module (testdata and dot directories left out), walked once here for each test
// that refuses a pattern outside its one place (key bytes outside pkg/format, rocks.OpenStore
// outside pkg/store, a note's label outside internal/ui's printer). It stands on the standard
// library only, so any package's own tests may import it, pkg/format's among them.
package gosrc
