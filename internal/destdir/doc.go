// Package destdir is the one way this tool takes a destination directory
// for a store it makes (a generated fixture, an extracted archive): absent
// or empty, never someone's files, and on failure left as it was found.
package destdir
