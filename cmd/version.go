package cmd

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() {
	register(newVersionCmd)
	registerSchema("ankusa-store version", versionInfo{})
}

type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Go      string `json:"go"`
	RocksDB string `json:"rocksdb"`
	// RocksDBBuild is "release" for a library built with NDEBUG (RocksDB returns errors
	// where an assertion would abort), "assertions" otherwise (Debian's package, which
	// the tests link on purpose). Read from the linked library, not stamped by the build.
	RocksDBBuild string `json:"rocksdb_build"`
	// RocksDBLinked is "static", or the path of the shared library the process mapped.
	RocksDBLinked string   `json:"rocksdb_linked"`
	ReadsFormats  []uint32 `json:"reads_formats"`
	WritesFormat  []uint32 `json:"writes_formats"`
}

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the tool's version, the RocksDB it links and the store formats it handles",
		Args:  exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			return runVersion(env)
		},
	}
}

func runVersion(env *Env) error {
	v := versionInfo{
		Version:       env.Build.Version,
		Commit:        env.Build.Commit,
		Go:            runtime.Version(),
		RocksDB:       rocks.LibraryVersion(),
		RocksDBBuild:  "release",
		RocksDBLinked: "static",
		ReadsFormats:  []uint32{format.Format2, format.Format3},
		WritesFormat:  []uint32{format.Format2, format.Format3},
	}
	if rocks.LibraryAssertions() {
		v.RocksDBBuild = "assertions"
	}
	if file := rocks.LibraryFile(); file != "" {
		v.RocksDBLinked = file
	}
	if env.JSON() {
		return writeJSON(env.IO.Out, v)
	}
	build := "release build (no assertions)"
	if v.RocksDBBuild != "release" {
		build = "built with assertions (not a release build)"
	}
	linked := "linked statically"
	if v.RocksDBLinked != "static" {
		linked = "linked dynamically: " + v.RocksDBLinked
	}
	_, err := fmt.Fprintf(env.IO.Out, "ankusa-store %s (commit %s)\ngo %s\nrocksdb %s, %s, %s\nstore formats: reads 2, 3; writes 2, 3 (migrates 2 -> 3)\n",
		v.Version, v.Commit, v.Go, v.RocksDB, build, linked)
	return err
}
