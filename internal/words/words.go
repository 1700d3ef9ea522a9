package words

import (
	"fmt"
	"strings"
)

// Plural is one when n is 1, else many: the noun alone, for a sentence that writes the
// count itself.
func Plural[N int | int64 | uint64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n, its digits grouped, then its noun: "1 hook", "-1 hook", "2,048 hooks".
func Count(n int64, one, many string) string {
	if n == 1 || n == -1 {
		return Group(n) + " " + one
	}
	return Group(n) + " " + many
}

// Group writes n with thousands separators: 2,163,053, not 2163053.
func Group(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Bytes renders a size for people: "12.3 MiB (12,897,484 bytes)" is more than a one-line
// error needs, so the binary unit with one decimal.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
