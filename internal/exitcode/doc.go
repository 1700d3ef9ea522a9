// Package exitcode is the one statement of the tool's exit statuses and the one mapping
// from an error to its status and its class: the codes scripts and CI branch on (OK,
// Findings, Usage, Store, Locked, Interrupted), the error that carries one (Error), the
// mapping of any other error by the sentinels pkg/rocks classifies from RocksDB's status
// codes (Of, Class, never a message's words), pkg/checkpoint's refusals (Checkpoint), the
// JSON error document -o json writes when a command fails (JSON), and the texts --help,
// the man pages and docs/commands.md make from the statuses (Statuses, Help, Table). The
// commands that return these errors are cmd's.
package exitcode
