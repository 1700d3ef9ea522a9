// Package ui is the output layer of the commands: the one row builder (Rows of Columns of
// Cells, each with a rendering for people and one for scripts), and its printers: a table
// fitted to the terminal (free text cut or wrapped, droppable columns hidden, records when
// nothing fits), TSV when piped, and JSON with its schema. Prose is wrapped here too, so
// that a note beside a table and the table fit the same width. And the streams' two
// guards: terminal safety (guard.go: what is quoted from a store escaped at the source,
// a safetext writer at the stream) and EPIPE (pipes.go: a stream that notes its reader
// went away).
//
// It lives in internal/, not pkg/, as restic's internal/ui and gh's internal/tableprinter
// do: it is how this tool speaks to a person or a script, not an API over a store, and
// nothing outside the tool may come to depend on its shapes. It knows nothing of cobra,
// flags or stores: cmd turns its flags and streams into a Printer, so that each command
// file keeps its options and run, and this package the rules every listing shares.
package ui
