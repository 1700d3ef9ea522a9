package reporting

import "testing"

// Work whose options held no Reporter reports to Nop, and Adds hands each count on.
func TestNopAndAdds(t *testing.T) {
	r := Or(nil)
	if r != Nop {
		t.Errorf("Or(nil) is %T, want Nop", r)
	}
	r.Add(1)
	r.SetTotal(2)
	r.Phase("x")
	var n int64
	a := Adds(func(d int64) { n += d })
	if Or(a).Add(4); n != 4 {
		t.Errorf("Or(Adds) counted %d, want 4", n)
	}
}
