package offheap

import "testing"

// A Slice keeps its values across every growth, mapped or not.
func TestSliceGrows(t *testing.T) {
	var a Slice[uint32]
	var b Slice[byte]
	defer a.Free()
	defer b.Free()
	const n = 100_000 // several growths past the first 2^12
	for i := range n {
		a.Append(uint32(i * 7))
		b.Append(byte(i), byte(i>>8))
	}
	if a.Len() != n || !a.Mapped() || b.Len() != 2*n || !b.Mapped() {
		t.Fatalf("%d and %d values, mapped %v %v", a.Len(), b.Len(), a.Mapped(), b.Mapped())
	}
	for i, v := range a.S() {
		if v != uint32(i*7) || b.S()[2*i] != byte(i) || b.S()[2*i+1] != byte(i>>8) {
			t.Fatalf("value %d is %d, %d %d after growing", i, v, b.S()[2*i], b.S()[2*i+1])
		}
	}
	// Zeros replaces values that were there with as many zeros as it is asked for.
	a.Zeros(2 * n)
	if a.Len() != 2*n {
		t.Fatalf("Zeros(%d) holds %d values", 2*n, a.Len())
	}
	for i, v := range a.S() {
		if v != 0 {
			t.Fatalf("value %d is %d after Zeros", i, v)
		}
	}
}

// Extend keeps the values it had and adds zeros, across a growth; it never
// shrinks.
func TestExtendAddsZeros(t *testing.T) {
	type rec struct {
		a, b int64
		c    uint32
	}
	var a Slice[rec]
	defer a.Free()
	a.Extend(3)
	a.S()[2] = rec{1, 2, 3}
	a.Extend(1 << 14)
	a.Extend(2)
	if a.Len() != 1<<14 {
		t.Fatalf("Extend(2) after 2^14: %d values", a.Len())
	}
	if a.S()[2] != (rec{1, 2, 3}) {
		t.Fatalf("value 2 is %v after growing", a.S()[2])
	}
	for i, v := range a.S() {
		if i != 2 && v != (rec{}) {
			t.Fatalf("value %d is %v, want zero", i, v)
		}
	}
}
