// Package timearg is the one rule for a time on a command line (fixture --now, migrate
// --now, dlq scan --since/--until), so that no spelling means two things:
//
//   - a number (digits only, whatever their count) is Unix milliseconds: 0, 00 and 000
//     are all the epoch, 1 is one millisecond after it;
//   - RFC 3339 ("2026-11-30T10:00:00Z", fractions allowed) is that instant;
//   - where a view takes one, a duration back from now always has a unit ("90m", "2h",
//     "1d", "0s" for now): a bare number is never a duration, which is what let
//     `--since 0` mean now while `--since 00` meant the epoch.
//
// Results are in UTC with millisecond precision, the resolution of every `at` in a
// store; a time before the Unix epoch is refused because keys hold it unsigned.
package timearg
