package rocks

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// The L0 triggers of a Tuning reach every family, counters included, and
// counters keeps the write buffer the contract pins; CountersWriteBuffers and
// CountersFlushMerge reach counters alone. RocksDB writes the
// options it opened with to an OPTIONS file: that is what is checked.
func TestTuningL0TriggersReachEveryFamily(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, CreateFormat: format.Format3,
		Tune: Tuning{WriteBufferSize: 16 << 20, L0SlowdownTrigger: 77, L0StopTrigger: 99, CountersWriteBuffers: 7, CountersFlushMerge: 3, L0CompactionTrigger: 13}})
	if err != nil {
		t.Fatal(err)
	}
	// Read while it is open: the tool removes its own OPTIONS file at close.
	defer st.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no OPTIONS file")
	}
	b, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	sections := regexp.MustCompile(`(?m)^\[CFOptions "([^"]+)"\]`).FindAllStringSubmatchIndex(string(b), -1)
	if len(sections) < 9 { // format 3 has nine families
		t.Fatalf("%d column family sections", len(sections))
	}
	for i, m := range sections {
		name := string(b[m[2]:m[3]])
		end := len(b)
		if i+1 < len(sections) {
			end = sections[i+1][0]
		}
		body := string(b[m[1]:end])
		for _, want := range []string{"level0_slowdown_writes_trigger=77", "level0_stop_writes_trigger=99", "level0_file_num_compaction_trigger=13"} {
			if !strings.Contains(body, "\n  "+want+"\n") {
				t.Errorf("%s: no %s", name, want)
			}
		}
		if name == format.CFCounters && !strings.Contains(body, "\n  write_buffer_size=1048576\n") {
			t.Errorf("counters: the write buffer is not the contract's 1 MiB")
		}
		if buffers := strings.Contains(body, "\n  max_write_buffer_number=7\n"); buffers != (name == format.CFCounters) {
			t.Errorf("%s: max_write_buffer_number=7 is %v; only counters gets CountersWriteBuffers", name, buffers)
		}
		if merge := strings.Contains(body, "\n  min_write_buffer_number_to_merge=3\n"); merge != (name == format.CFCounters) {
			t.Errorf("%s: min_write_buffer_number_to_merge=3 is %v; only counters gets CountersFlushMerge", name, merge)
		}
	}
}

// IntProperty reads RocksDB's integer properties, says when there is none, and refuses a
// family the store does not have.
func TestIntProperty(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, CreateFormat: format.Format3})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, ok, err := st.IntProperty(format.CFDefault, "rocksdb.estimate-num-keys"); err != nil || !ok || n == 0 {
		t.Errorf("estimate-num-keys of default: %d, %v, %v (it holds m:format)", n, ok, err)
	}
	if _, ok, err := st.IntProperty(format.CFDefault, "rocksdb.no-such-property"); err != nil || ok {
		t.Errorf("an unknown property: ok %v, %v", ok, err)
	}
	if _, _, err := st.IntProperty("no-such-family", "rocksdb.estimate-num-keys"); err == nil {
		t.Error("an unknown family: no error")
	}
}
