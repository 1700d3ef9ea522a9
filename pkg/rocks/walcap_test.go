package rocks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

func walBytes(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			n += info.Size()
		}
	}
	return n
}

// One early write to a quiet family pins every WAL file written after it until that family
// flushes; MaxTotalWALSize is what bounds the WAL a bulk writer leaves behind.
func TestMaxTotalWALSizeBoundsTheWAL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cap     uint64
		bounded bool
	}{{"uncapped", 0, false}, {"capped", 2 << 20, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			tune := Tuning{WriteBufferSize: 1 << 20, MaxTotalWALSize: tc.cap}
			st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, CreateFormat: format.Format3, Tune: tune})
			if err != nil {
				t.Fatal(err)
			}
			mustWrite(t, st.DB, func(b *Batch) { b.Put(format.CFAudit, []byte("quiet"), []byte("1")) })
			val := make([]byte, 1024)
			for i := 0; i < 16*1024; i++ { // 16 MiB into a busy family
				mustWrite(t, st.DB, func(b *Batch) { b.Put(format.CFHooks, []byte(fmt.Sprintf("k%08d", i)), val) })
			}
			st.Close()
			wal := walBytes(t, dir)
			if bounded := wal < 8<<20; bounded != tc.bounded {
				t.Fatalf("WAL after 16 MiB of writes with cap %d: %d bytes (bounded=%v, want %v)", tc.cap, wal, bounded, tc.bounded)
			}
		})
	}
}
