// Package losers is a tree of losers, the tournament external sorts merge
// their runs with: k sources, each with a current element, and the least of
// them found again, after the winner's element changes, in one compare a
// level of the tree (a binary heap takes two, and moves its entries). The
// tree holds indexes of sources; the caller keeps the elements and says how
// two sources' elements order, a source read past coming after every other.
// Keyed holds the first two words of each source's element too, and plays
// its matches on them, asking the caller only where they are equal.
package losers
