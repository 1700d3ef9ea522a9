// Package archive packs a closed store directory into a .tar.zst and
// unpacks one, the form in which stores travel: the committed fixtures, the
// archives operators attach to a ticket, and every read-only command's
// store argument (cmd/storearg.go). It knows files, not keys: the store's
// archive column family and archive obligations are another matter
// (package format).
//
// PackArchive writes a deterministic .tar.zst of a closed store (sorted
// entries, zero times, root owners, WAL included, LOCK and info logs left
// out), so that the same store packs to the same bytes. ExtractArchive
// treats the archive as untrusted input: it refuses absolute names, "..",
// links, devices, duplicate entries and archives that expand past Limits,
// wrapping ErrBadArchive, and leaves nothing behind when it refuses. It reads
// the shapes tar gives of a store as that store (layout.go): its files at the
// top ("./" entries included, tar -C STORE -cf - .) or in one top-level
// directory (tar -C PARENT -cf - NAME, the runbook's off-machine copy); an
// archive with no one store in it is refused.
//
// The refused archives of testdata/archive, which the end-to-end scripts
// feed to the commands, are written by
//
//	go test ./pkg/archive -run BadArchives -update
package archive
