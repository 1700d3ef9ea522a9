package health

import "sort"

// Checks lists every check a Finding can name, in the contract's order of
// invariants: what a metrics file reports a count for, zero included.
func Checks() []string {
	out := make([]string, 0, len(checkInvariant))
	for c := range checkInvariant {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if checkInvariant[out[i]] != checkInvariant[out[j]] {
			return checkInvariant[out[i]] < checkInvariant[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
