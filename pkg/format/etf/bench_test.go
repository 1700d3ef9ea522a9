package etf

import (
	"testing"
)

func benchEnvelope(b *testing.B) []byte {
	for _, v := range loadVectors(b) {
		if v.Name == "envelope_nil_tenant" {
			return v.Bytes
		}
	}
	b.Fatal("no envelope vector")
	return nil
}

func BenchmarkDecodeEnvelope(b *testing.B) {
	in := benchEnvelope(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeEnvelope(b *testing.B) {
	t, err := Decode(benchEnvelope(b))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = AppendEncode(buf[:0], t); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendInt(b *testing.B) {
	buf := make([]byte, 0, 16)
	b.ReportAllocs()
	v := int64(1717171717171)
	for b.Loop() {
		buf = AppendInt(buf[:0], v)
		v++
	}
}
