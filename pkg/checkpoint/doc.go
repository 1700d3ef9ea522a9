// Package checkpoint is the one home of the checkpoints this tool takes of a store before it
// writes (migrate's --backup, counters verify --repair's --backup), as pebble's
// internal/base/filenames.go keeps MakeFilename beside ParseFilename: the name rule and its
// parse (names.go), the marker each leaves inside and the record in the store's directory
// (marker.go, record.go), the check of the place before one is taken and its space share
// (place.go, space.go), taking one (take.go: the RocksDB call stays in pkg/rocks), the policy
// a command builds once from its flags and hands to migration or health, which take and mark
// the checkpoint at its point with no call back into cmd (policy.go), finding
// them again with their sizes (find.go), and removing one with the rules that keep a live
// store or the only copy of one from being removed (remove.go: the checks), without anything
// racing it into removing something else (remove_aside.go: set aside by a rename relative to
// its parent's descriptor, checked again on what the rename moved, its files removed through
// its descriptor; remove_lock.go: its LOCK held throughout), and finishing what a killed
// removal left only as a first removal would go ahead (unfinished.go, CheckFinish). A store, a
// checkpoint and what a marker or the record names are compared as one identity: the path
// resolved, and the directory's device and inode (identity.go).
//
// The marker and the record are the tool's notes, not the store's contract: RocksDB ignores
// files it does not know (it neither copies nor deletes them), no node reads them, and a
// checkpoint restored as the store keeps working with its marker inside. Every file written
// here is written without following a symbolic link planted in its place (internal/nofollow).
//
// It stands on pkg/rocks (taking, the LOCK probe), pkg/store (the read-only open of a
// checkpoint's store, through the one door every open takes) and pkg/diskspace; migration,
// health and cmd stand on it.
package checkpoint
