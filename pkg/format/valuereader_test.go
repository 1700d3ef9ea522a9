package format

import (
	"reflect"
	"testing"
)

// A ValueReader reads as it is told: the zero one in place, Whole by the
// whole decode, each with the answer of the other. The two paths give the
// same value, so what tells them apart is what each allocates: the
// decoder boxes every element of the term (an envelope: 33 allocations
// where the in-place read makes 3), so a Whole that were ignored would
// allocate as the in-place read does.
func TestValueReaderTakesThePathItIsTold(t *testing.T) {
	hook := EncodeEnvelope(sampleEnvelope(), false)
	row := EncodeDelivery(Delivery{Sink: 3, Status: StatusDead, Attempts: 12, Size: 2178, LastError: []byte("HTTP 503")})
	dead := DeadValue{SourceID: []byte("src"), ID: []byte("evt_1"), Ord: 7, HasOrd: true}.Encode()
	for _, tc := range []struct {
		name string
		// decode reads the value with r; skim and term are the two paths.
		decode     func(r ValueReader) (any, error)
		skim, term func() (any, error)
	}{
		{"envelope",
			func(r ValueReader) (any, error) { return r.DecodeEnvelope(hook) },
			func() (any, error) { e, _ := decodeEnvelopeSkim(hook); return e, nil },
			func() (any, error) { return decodeEnvelopeTerm(hook) }},
		{"delivery",
			func(r ValueReader) (any, error) { return r.DecodeDelivery(row) },
			func() (any, error) { d, _ := decodeDeliverySkim(row); return d, nil },
			func() (any, error) { return decodeDeliveryTerm(row) }},
		{"dead value",
			func(r ValueReader) (any, error) { return r.DecodeDeadValue(dead) },
			func() (any, error) { v, _ := decodeDeadValueSkim(dead); return v, nil },
			func() (any, error) { return decodeDeadValueTerm(dead) }},
	} {
		allocs := func(f func() (any, error)) float64 {
			return testing.AllocsPerRun(50, func() {
				if _, err := f(); err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
			})
		}
		inPlace, whole := ValueReader{}, ValueReader{Whole: true}
		got := [2]float64{
			allocs(func() (any, error) { return tc.decode(inPlace) }),
			allocs(func() (any, error) { return tc.decode(whole) }),
		}
		want := [2]float64{allocs(tc.skim), allocs(tc.term)}
		if got != want || want[0] >= want[1] {
			t.Errorf("%s: allocations in place %v, whole %v; want the in-place read's %v and the decoder's %v",
				tc.name, got[0], got[1], want[0], want[1])
		}
		v0, err0 := tc.decode(inPlace)
		v1, err1 := tc.decode(whole)
		if err0 != nil || err1 != nil || !reflect.DeepEqual(v0, v1) {
			t.Errorf("%s: in place %v (%v), whole %v (%v)", tc.name, v0, err0, v1, err1)
		}
	}
}

// benchReaders benchmarks read of v by the zero ValueReader ("in-place", as
// the views and migrate read) and by Whole ("decoded").
func benchReaders[T any](b *testing.B, v []byte, read func(ValueReader, []byte) (T, error)) {
	for _, c := range []struct {
		name string
		r    ValueReader
	}{
		{"in-place", ValueReader{}},
		{"decoded", ValueReader{Whole: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(v)))
			for b.Loop() {
				if _, err := read(c.r, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
