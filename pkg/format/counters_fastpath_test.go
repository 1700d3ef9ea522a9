package format

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// DecodeCounterValue reads the two small integer forms without the general
// decoder; for any bytes it must say what the decoder says.
func TestDecodeCounterValueFastPathIsTheDecoder(t *testing.T) {
	for _, v := range []int64{0, 1, 255, 256, -1, -256, math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt64} {
		b := EncodeCounterValue(v)
		if got, err := DecodeCounterValue(b); err != nil || got != v {
			t.Errorf("DecodeCounterValue(%x) = %d, %v; want %d", b, got, err, v)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		tag := rapid.SampledFrom([]byte{etf.TagSmallInteger, etf.TagInteger, etf.TagSmallBig}).Draw(t, "tag")
		body := rapid.SliceOfN(rapid.Byte(), 0, 6).Draw(t, "body")
		b := append([]byte{rapid.SampledFrom([]byte{etf.TagVersion, etf.TagVersion - 1}).Draw(t, "version"), tag}, body...)
		got, err := DecodeCounterValue(b)
		term, derr := etf.Decode(b)
		want, isInt := term.(int64)
		if (err == nil) != (derr == nil && isInt) || (err == nil && got != want) {
			t.Fatalf("DecodeCounterValue(%x) = %d, %v; the decoder says %v, %v", b, got, err, term, derr)
		}
	})
}
