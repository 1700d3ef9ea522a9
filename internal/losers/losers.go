package losers

// Tree is a tree of losers over sources 0 to k-1: node 0 holds the winner,
// the inner node n (1 to k-1) the loser of the match played there; source i
// is the leaf k+i, and node n's parent is n/2.
type Tree struct {
	nodes []int32
	win   []int32 // Build's winners, kept for the next Build
}

// Build plays every match once, from the leaves up. less(a, b) says whether
// source a's element comes before source b's; it must be a strict total
// order (break ties by the sources' indexes where the order matters).
func (t *Tree) Build(k int, less func(a, b int32) bool) {
	t.nodes = t.nodes[:0]
	if k == 0 {
		return
	}
	t.nodes = append(t.nodes, make([]int32, k)...)
	t.win = append(t.win[:0], make([]int32, 2*k)...)
	for i := range k {
		t.win[k+i] = int32(i)
	}
	for n := k - 1; n >= 1; n-- {
		l, r := t.win[2*n], t.win[2*n+1]
		if less(r, l) {
			l, r = r, l
		}
		t.win[n], t.nodes[n] = l, r
	}
	t.nodes[0] = t.win[1]
}

// Len is the sources the tree was built over.
func (t *Tree) Len() int { return len(t.nodes) }

// Winner is the source whose element comes first (Len must not be 0).
func (t *Tree) Winner() int32 { return t.nodes[0] }

// Replay plays again the matches on the way from the winner's leaf to the
// root, once its element changed (or it was read past): at each node the
// loser stays and the winner goes up.
func (t *Tree) Replay(less func(a, b int32) bool) {
	w := t.nodes[0]
	for n := (int(w) + len(t.nodes)) / 2; n >= 1; n /= 2 {
		if less(t.nodes[n], w) {
			t.nodes[n], w = w, t.nodes[n]
		}
	}
	t.nodes[0] = w
}
