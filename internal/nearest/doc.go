// Package nearest is the one edit distance of the tool, behind every "did you mean" (a
// tenant id, a flag name): what was typed against the names that exist.
package nearest
