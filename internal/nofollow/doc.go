// Package nofollow writes the tool's own files (the checkpoint record, markers, the migration
// record) without ever following a symbolic link planted where one of them goes: a link in its
// place, or in place of its temporary file, is an error that says so (ErrSymlink), and nothing
// is written through it. As root, a followed link would let anyone who can write a store's
// directory overwrite any file on the machine.
//
// It also changes directory trees the tool did not just create (a checkpoint it removes)
// through descriptors (dir.go: Dir, opened once with O_NOFOLLOW|O_DIRECTORY, every later step
// an *at call relative to it; tree.go: Removal, a tree emptied that way), so that a link
// swapped in anywhere at any moment is removed as a link, never followed.
package nofollow
