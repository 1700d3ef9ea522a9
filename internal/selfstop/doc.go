// Package selfstop is the one way a test's pause point stops this process where it stands:
// the fault suite sets an environment variable naming a point (migration.PauseEnv,
// health.RepairFaultEnv), the code reaching that point stops itself, the test changes the
// world under it (fills the disk) and lets it go on with SIGCONT. A point that waited for a
// poll of the test instead would be where the clock put it, once in many runs.
package selfstop
