// Package iostreams holds the streams a command prints to and what is known of each, as
// gh's pkg/iostreams does: whether stdout and stderr are terminals, their widths, and the
// environment that decides colour and box drawing (NO_COLOR, CLICOLOR_FORCE, TERM,
// COLUMNS). Commands take them injected, so that a test sets a terminal without a pty; Test
// gives a test its streams and the buffers behind them.
package iostreams
