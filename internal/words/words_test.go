package words

import (
	"math"
	"testing"
)

func TestCountAndGroup(t *testing.T) {
	for _, tc := range []struct {
		n     int64
		group string
		count string
	}{
		{0, "0", "0 hooks"},
		{1, "1", "1 hook"},
		{-1, "-1", "-1 hook"},
		{2, "2", "2 hooks"},
		{999, "999", "999 hooks"},
		{1000, "1,000", "1,000 hooks"},
		{-123456, "-123,456", "-123,456 hooks"},
		{2163053, "2,163,053", "2,163,053 hooks"},
		{math.MinInt64, "-9,223,372,036,854,775,808", "-9,223,372,036,854,775,808 hooks"},
	} {
		if g := Group(tc.n); g != tc.group {
			t.Errorf("Group(%d) = %q, want %q", tc.n, g, tc.group)
		}
		if c := Count(tc.n, "hook", "hooks"); c != tc.count {
			t.Errorf("Count(%d) = %q, want %q", tc.n, c, tc.count)
		}
	}
	if Plural(1, "", "s") != "" || Plural(int64(0), "", "s") != "s" || Plural(uint64(2), "y", "ies") != "ies" {
		t.Error("Plural")
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 40 << 20: "40.0 MiB", 3 << 40: "3.0 TiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestAge(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want string
	}{
		{0, "0ms"}, {999, "999ms"}, {1000, "1s"}, {59_999, "59s"}, {90_000, "1m30s"},
		{3*3600_000 + 5*60_000, "3h05m"}, {(2*24 + 4) * 3600_000, "2d04h"}, {-5 * 60_000, "in 5m00s"},
	} {
		if got := Age(tc.ms); got != tc.want {
			t.Errorf("Age(%d) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}
