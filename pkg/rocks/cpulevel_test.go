package rocks

import (
	"fmt"
	"testing"
)

func TestCPULacks(t *testing.T) {
	for _, c := range []struct {
		sse42, popcnt, pclmul bool
		want                  string
	}{
		{true, true, true, "[]"},
		{true, true, false, "[PCLMULQDQ]"},
		{false, true, true, "[SSE4.2]"},
		{false, false, false, "[SSE4.2 POPCNT PCLMULQDQ]"},
	} {
		if got := fmt.Sprint(cpuLacks(c.sse42, c.popcnt, c.pclmul)); got != c.want {
			t.Errorf("cpuLacks(%v, %v, %v) = %s, want %s", c.sse42, c.popcnt, c.pclmul, got, c.want)
		}
	}
	// The machines the tests run on have them all: the build's own tests ran on it.
	if err := checkCPU(); err != nil {
		t.Fatal(err)
	}
}
