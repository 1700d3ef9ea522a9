package metrics

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Type is a metric family's TYPE line.
type Type string

// The types a one-shot command writes.
const (
	Gauge   Type = "gauge"
	Counter Type = "counter"
)

// Label is one name="value" pair of a sample.
type Label struct{ Name, Value string }

type sample struct {
	labels []Label
	value  float64
}

type family struct {
	name, help string
	typ        Type
	samples    []sample
}

// Set is the metric families of one file, written in the order first added.
type Set struct {
	// Common labels go on every sample (the store, when a textfile
	// directory holds the files of several stores).
	Common []Label
	fams   []*family
	index  map[string]*family
	err    error
}

var (
	nameRE  = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// Add adds one sample to the family name, creating it with help and typ.
// A bad name, a counter not named _total, or a family re-added with another
// type is recorded and returned by Write: a metrics file is all or nothing.
func (s *Set) Add(name, help string, typ Type, v float64, labels ...Label) {
	if s.index == nil {
		s.index = map[string]*family{}
	}
	f := s.index[name]
	if f == nil {
		switch {
		case !nameRE.MatchString(name):
			s.fail("metric name %q is not a Prometheus name", name)
		case typ == Counter && !strings.HasSuffix(name, "_total"):
			s.fail("counter %q must end in _total", name)
		case typ != Counter && strings.HasSuffix(name, "_total"):
			s.fail("%s %q must not end in _total (only counters do)", typ, name)
		}
		f = &family{name: name, help: help, typ: typ}
		s.index[name] = f
		s.fams = append(s.fams, f)
	} else if f.typ != typ {
		s.fail("metric %q added as %s and as %s", name, f.typ, typ)
	}
	for _, l := range labels {
		if !labelRE.MatchString(l.Name) || strings.HasPrefix(l.Name, "__") {
			s.fail("label name %q of %q is not a Prometheus label name", l.Name, name)
		}
	}
	all := append(append([]Label(nil), s.Common...), labels...)
	f.samples = append(f.samples, sample{labels: all, value: v})
}

// Gauge adds a gauge sample.
func (s *Set) Gauge(name, help string, v float64, labels ...Label) {
	s.Add(name, help, Gauge, v, labels...)
}

// Bool adds a gauge that is 1 for true and 0 for false.
func (s *Set) Bool(name, help string, v bool, labels ...Label) {
	f := 0.0
	if v {
		f = 1
	}
	s.Add(name, help, Gauge, f, labels...)
}

func (s *Set) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("metrics: "+format, args...)
	}
}

// Write writes the set in the text exposition format: families in the order
// first added, samples of a family sorted by their labels.
func (s *Set) Write(w io.Writer) error {
	if s.err != nil {
		return s.err
	}
	var b strings.Builder
	for _, f := range s.fams {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", f.name, escapeHelp(f.help), f.name, f.typ)
		smp := append([]sample(nil), f.samples...)
		sort.SliceStable(smp, func(i, j int) bool { return labelString(smp[i].labels) < labelString(smp[j].labels) })
		for _, x := range smp {
			b.WriteString(f.name)
			b.WriteString(labelString(x.labels))
			b.WriteByte(' ')
			b.WriteString(formatValue(x.value))
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func labelString(ls []Label) string {
	if len(ls) == 0 {
		return ""
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.Name + `="` + escapeLabel(l.Value) + `"`
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// The text format escapes \ and newline in HELP, and also " in label values.
func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(s)
}

func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
