// Package words holds the text for people that every layer writes the same way: a count with
// its noun in the singular or plural, digits grouped by thousands, a size in binary units, an
// age. One rule each, so that "1 hook", "2,163,053 keys" and "12.3 MiB" read alike in an
// error from pkg/rocks, a verdict from pkg/health, a view from pkg/inspect and a table from
// cmd. Standard library only, so that pkg/diskspace and pkg/rocks may stand on it.
package words
