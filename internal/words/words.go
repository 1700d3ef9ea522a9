package words

import (
	"fmt"
	"strings"
	"time"
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

// Age renders a duration in milliseconds the way an operator reads it:
// "1m30s", "3h5m", "2d4h"; a negative age is in the future ("in 5m").
func Age(ms int64) string {
	if ms < 0 {
		return "in " + Age(-ms)
	}
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}
