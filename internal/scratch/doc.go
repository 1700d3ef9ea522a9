// Package scratch is the one way this tool makes a directory it needs only while it runs
// (an archive extracted to be read, a secondary instance's files, a fixture built aside)
// and the one way a later run removes such a directory when the process that made it died
// without cleaning up (kill -9, the OOM killer, a power cut).
//
// A scratch directory is named <prefix><pid>-<random> and holds a marker file (Marker)
// saying what made it. Its owner holds an flock on the directory itself for as long as it
// runs; the kernel drops that lock when the process ends, however it ends. Sweep removes a
// directory only when it can take that lock and the marker is there: the lock says the owner
// is gone (a pid alone could have been reused), and the marker, written only once the owner
// holds the lock, says the directory is one of ours and not one a live run has just made.
// A directory without a marker is never removed, unless it is empty and the pid in its name
// is not a running process (its owner died between mkdir and the marker).
package scratch
