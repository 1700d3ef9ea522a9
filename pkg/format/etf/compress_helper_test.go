package etf

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"testing"
)

// compressedOf wraps a raw payload (no version byte) as 131, 80, size, zlib.
func compressedOf(t testing.TB, payload []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	if _, err := zw.Write(payload); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out := binary.BigEndian.AppendUint32([]byte{131, 80}, uint32(len(payload)))
	return append(out, buf.Bytes()...)
}
