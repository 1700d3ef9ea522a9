// Package metrics writes results in the Prometheus text exposition format
// (version 0.0.4) for node_exporter's textfile collector.
//
// The collector reads every *.prom file of its directory on each scrape, so a
// file must never be seen half written: WriteFile writes a temporary file in
// the same directory (a name the collector skips), syncs it and renames it
// over the target, which POSIX makes atomic. A reader sees the old file or
// the new one, whole.
//
// Names follow Prometheus conventions: the ankusa_store_ prefix, base units
// (_seconds, _bytes), and _total only on counters. A one-shot command's
// numbers are gauges (they are the state at its run, not running sums).
package metrics
