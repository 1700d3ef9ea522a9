package losers

// Keyed is a Tree whose matches are played on keys it holds, one a source (Keys): two words
// that order the sources' elements as far as they go (an element's first two words, or a
// key's first bytes). A match compares them in place and asks the caller only when they are
// equal (tie), where a Tree calls its less at every level, through a function value, on
// elements behind the caller's pointers: in the bulk migration's merges of hundreds of runs
// those calls and loads were most of the merge's cost.
type Keyed struct {
	tree Tree
	// Keys holds each source's key; the caller sets the winner's before Replay. A source
	// read past has a key of all ones (ReadPast), and its tie says it comes after any
	// other source whose key is all ones too.
	Keys [][2]uint64
}

// ReadPast is the key of a source read past: no key is greater.
var ReadPast = [2]uint64{^uint64(0), ^uint64(0)}

// less orders sources a and b by their keys, then by tie.
func (t *Keyed) less(a, b int32, tie func(a, b int32) bool) bool {
	ka, kb := &t.Keys[a], &t.Keys[b]
	if ka[0] != kb[0] {
		return ka[0] < kb[0]
	}
	if ka[1] != kb[1] {
		return ka[1] < kb[1]
	}
	return tie(a, b)
}

// Build plays every match once over the sources of Keys. tie(a, b) says whether source a's
// element comes before source b's when their keys are equal: with the keys, a strict total
// order (break ties by the sources' indexes where the order matters).
func (t *Keyed) Build(tie func(a, b int32) bool) {
	t.tree.Build(len(t.Keys), func(a, b int32) bool { return t.less(a, b, tie) })
}

// Len is the sources the tree was built over.
func (t *Keyed) Len() int { return t.tree.Len() }

// Winner is the source whose element comes first (Len must not be 0).
func (t *Keyed) Winner() int32 { return t.tree.Winner() }

// Replay plays again the matches on the way from the winner's leaf to the root, once its
// key (Keys) and element changed, or it was read past.
func (t *Keyed) Replay(tie func(a, b int32) bool) {
	nodes := t.tree.nodes
	w := nodes[0]
	kw := t.Keys[w]
	for n := (int(w) + len(nodes)) / 2; n >= 1; n /= 2 {
		o := nodes[n]
		ko := &t.Keys[o]
		if ko[0] < kw[0] || ko[0] == kw[0] && (ko[1] < kw[1] || ko[1] == kw[1] && tie(o, w)) {
			nodes[n], w, kw = w, o, *ko
		}
	}
	nodes[0] = w
}
