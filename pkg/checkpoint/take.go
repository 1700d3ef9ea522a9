package checkpoint

import "github.com/ankusa/ankusa-store/pkg/rocks"

// Take writes a consistent checkpoint of st (open read-write, so that what the WAL holds is
// in it) to dir, which must not exist; RocksDB's call and the node's OPTIONS files it gets
// instead of this build's are pkg/rocks's (DB.Checkpoint). The caller marks it (MarkMigration,
// MarkRepair) before it writes to the store, so that a run killed after Take leaves a
// checkpoint that says what it is.
func Take(st *rocks.Store, dir string) error { return st.Checkpoint(dir) }
