package rocks

import (
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/sys/cpu"
)

// On x86-64 the RocksDB this package links is built for x86-64-v2 with PCLMULQDQ
// (scripts/build-rocksdb.sh: its CRC32C, the checksum of every block, is chosen when it is
// compiled, and the baseline's is ten times slower). On a CPU without them its first use of
// one would kill the process with SIGILL; Open refuses first, and says why.

// cpuLacks names what the x86-64 CPU described lacks of what the build needs (nil: nothing).
func cpuLacks(sse42, popcnt, pclmul bool) []string {
	var lacks []string
	for _, f := range []struct {
		name string
		has  bool
	}{{"SSE4.2", sse42}, {"POPCNT", popcnt}, {"PCLMULQDQ", pclmul}} {
		if !f.has {
			lacks = append(lacks, f.name)
		}
	}
	return lacks
}

// checkCPU is nil unless this machine lacks an instruction set the build needs.
func checkCPU() error {
	if runtime.GOARCH != "amd64" {
		return nil
	}
	if lacks := cpuLacks(cpu.X86.HasSSE42, cpu.X86.HasPOPCNT, cpu.X86.HasPCLMULQDQ); lacks != nil {
		return fmt.Errorf("rocks: this build of RocksDB needs an x86-64 CPU with SSE4.2, POPCNT and PCLMULQDQ (x86-64-v2 and PCLMULQDQ: Intel since 2010, AMD since 2011); this one lacks %s", strings.Join(lacks, ", "))
	}
	return nil
}
