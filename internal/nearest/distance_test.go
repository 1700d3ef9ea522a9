package nearest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"acme", "acme", 0}, {"acmee", "acme", 1}, {"acme", "amce", 2},
		{"kitten", "sitting", 3}, {"東京", "東京都", 1}, {"", "abc", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
