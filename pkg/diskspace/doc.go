// Package diskspace checks, before a command writes, that the file system it
// writes to has room for what it is about to write: a full disk is refused with
// the numbers (needed, free, where) and nothing written, rather than met halfway.
package diskspace
