// Package nofollow writes the tool's own files (the checkpoint record, markers, the migration
// record) without ever following a symbolic link planted where one of them goes: a link in its
// place, or in place of its temporary file, is an error that says so (ErrSymlink), and nothing
// is written through it. As root, a followed link would let anyone who can write a store's
// directory overwrite any file on the machine.
package nofollow
