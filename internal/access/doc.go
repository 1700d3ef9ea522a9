// Package access is the one message for a file or directory this user may not read or write
// (EACCES, EPERM): who the user is, which path stopped it (the file, or a directory above it
// that does not let the user in), that path's mode and owner, and what to do. RocksDB reports
// such a failure as a plain I/O error whose only sign of it is strerror's text, so the store
// layer finds it itself, by opening the store's files before RocksDB does (pkg/rocks
// checkAccess), and classifies it by the system's error number, never by words.
package access
