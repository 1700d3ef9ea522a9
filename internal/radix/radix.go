package radix

// Sort sorts s by key, stably, using tmp as scratch (grown when short;
// returned for the next batch). It is a least-significant-digit radix sort
// over the key's bytes, skipping the bytes every element shares: a batch of
// a million sorts in a few passes over memory, where a comparison sort
// spends a quarter of a second in compare calls.
func Sort[T any](s, tmp []T, key func(*T) uint64) []T {
	n := len(s)
	if n < 2 {
		return tmp
	}
	if cap(tmp) < n {
		tmp = make([]T, n)
	}
	tmp = tmp[:n]
	var counts [8][256]int
	for i := range s {
		k := key(&s[i])
		for b := 0; b < 8; b++ {
			counts[b][byte(k>>(8*b))]++
		}
	}
	src, dst := s, tmp
	first := key(&s[0])
	for b := 0; b < 8; b++ {
		c := &counts[b]
		shift := uint(8 * b)
		if c[byte(first>>shift)] == n {
			continue // every element has this byte
		}
		var at [256]int
		sum := 0
		for d := range c {
			at[d] = sum
			sum += c[d]
		}
		for i := range src {
			d := byte(key(&src[i]) >> shift)
			dst[at[d]] = src[i]
			at[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
	return tmp
}
