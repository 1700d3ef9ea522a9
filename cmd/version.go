package cmd

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() {
	clidoc.RegisterSchema("ankusa-store version", versionInfo{})
}

type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Go      string `json:"go"`
	RocksDB string `json:"rocksdb"`
	// RocksDBBuild is "release" for a library built with NDEBUG (RocksDB returns errors
	// where an assertion would abort), "assertions" otherwise (never shipped: every build
	// links scripts/build-rocksdb.sh's Release library). Read from the linked library, not
	// stamped by the build.
	RocksDBBuild string `json:"rocksdb_build"`
	// RocksDBLinked is "static", or the path of the shared library the process mapped.
	RocksDBLinked string `json:"rocksdb_linked"`
	// ReadsTableFormat is the newest SST format_version the linked RocksDB reads; what the
	// tool writes into a store is chosen from the store (docs/format.md, the write rule),
	// and NewStoreTableFormat is what a new store (fixture) gets unless asked otherwise.
	ReadsTableFormat    int      `json:"reads_table_format_version"`
	NewStoreTableFormat int      `json:"new_store_table_format_version"`
	ReadsFormats        []uint32 `json:"reads_formats"`
	WritesFormat        []uint32 `json:"writes_formats"`
	// Nodes is every erlang-rocksdb release whose stores the tool reads and writes
	// (docs/format.md's compatibility table), oldest first.
	Nodes []versionNode `json:"nodes"`
}

// versionNode is a run of erlang-rocksdb releases that vendor one RocksDB.
type versionNode struct {
	Releases []string `json:"releases"`
	RocksDB  string   `json:"rocksdb"`
	// WritesTableFormat is the table format_version it writes unless configured otherwise;
	// ReadsTableFormat the newest it reads, and so the newest this tool writes into its store.
	WritesTableFormat int      `json:"writes_table_format_version"`
	ReadsTableFormat  int      `json:"reads_table_format_version"`
	Compression       []string `json:"compression" jsondoc:"what its build always has besides none, as table properties name them"`
}

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the tool's version, the RocksDB it links and the store formats it handles",
		Args:  cmdutil.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			return runVersion(env)
		},
	}
}

func runVersion(env *Env) error {
	v := versionInfo{
		Version:             env.Build.Version,
		Commit:              env.Build.Commit,
		Go:                  runtime.Version(),
		RocksDB:             rocks.LibraryVersion(),
		RocksDBBuild:        "release",
		RocksDBLinked:       "static",
		ReadsTableFormat:    rocks.MaxTableFormatVersion,
		NewStoreTableFormat: rocks.OldestNodeRule("").Default.FormatVersion,
		ReadsFormats:        []uint32{format.Format2, format.Format3},
		WritesFormat:        []uint32{format.Format2, format.Format3},
	}
	for _, r := range rocks.BindingReleases {
		v.Nodes = append(v.Nodes, versionNode{Releases: r.Releases, RocksDB: r.RocksDB, WritesTableFormat: r.WritesTableFormat,
			ReadsTableFormat: r.ReadsTableFormat(), Compression: r.CodecList()})
	}
	if rocks.LibraryAssertions() {
		v.RocksDBBuild = "assertions"
	}
	if file := rocks.LibraryFile(); file != "" {
		v.RocksDBLinked = file
	}
	if env.JSON() {
		return ui.WriteJSON(env.IO.Out, v)
	}
	build := "release build (no assertions)"
	if v.RocksDBBuild != "release" {
		build = "built with assertions (not a release build)"
	}
	linked := "linked statically"
	if v.RocksDBLinked != "static" {
		linked = "linked dynamically: " + v.RocksDBLinked
	}
	text := fmt.Sprintf("ankusa-store %s (commit %s)\ngo %s\nrocksdb %s, %s, %s\n"+
		"table format_version: reads up to %d; writes what the store's node reads (a new store: %d)\n"+
		"store formats: reads 2, 3; writes 2, 3 (migrates 2 -> 3)\n"+
		"nodes: %s",
		v.Version, v.Commit, v.Go, v.RocksDB, build, linked, v.ReadsTableFormat, v.NewStoreTableFormat, rocks.SupportedReleases())
	// Fitted to the terminal; piped, whole lines, whatever $COLUMNS says: `version | grep
	// rocksdb` gets the line it asked for (issue 46: it wrapped at 79 when piped).
	width := 0
	if env.IO.OutIsTerminal {
		width = env.IO.OutWidth
	}
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		b.WriteString(ui.WrapTo(l, width))
	}
	_, err := io.WriteString(env.IO.Out, b.String())
	return err
}
