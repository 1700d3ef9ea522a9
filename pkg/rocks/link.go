//go:build !grocksdb_no_link

package rocks

// The dynamic link against Debian's librocksdb. The release build sets grocksdb_no_link and
// passes the static archives itself (.goreleaser.yaml), as grocksdb does for its own flags.

// #cgo LDFLAGS: -lrocksdb -pthread -lstdc++ -ldl
import "C"
