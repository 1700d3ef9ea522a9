package format

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/fuzzcorpus"
	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

var seedCorpus = flag.Bool("seedcorpus", false, "add the generated seeds to testdata/fuzz")

// TestSeedCorpus (go test -run TestSeedCorpus -seedcorpus ./pkg/format)
// writes seeds for every fuzz target of the package into the committed
// corpus, beside what real fuzzing found: the key cases with every
// truncation and a byte more, field values at their bounds, every column
// family with the sample values, and for the value decoders the Erlang
// vectors and hooks with every atom form of tenant_id. Without the flag it
// checks they are all there.
func TestSeedCorpus(t *testing.T) {
	var keys [][]byte
	addKey := func(b []byte) {
		for n := 0; n <= len(b); n++ {
			keys = append(keys, fuzzcorpus.Marshal(b[:n]))
		}
		keys = append(keys, fuzzcorpus.Marshal(append(bytes.Clone(b), 0)), fuzzcorpus.Marshal(append(bytes.Clone(b), 0xff)))
		for i := range b {
			flipped := bytes.Clone(b)
			flipped[i] ^= 0x80
			keys = append(keys, fuzzcorpus.Marshal(flipped))
		}
	}
	for _, c := range keyCases {
		addKey(c.key.Encode())
	}
	for _, fam := range AllFamilies() {
		addKey(fam.Lo)
		addKey(fam.Hi)
	}

	var roundTrip [][]byte
	ords := []uint32{0, 1, 3, SentinelOrd - 1, SentinelOrd}
	ats := []uint64{0, 1, 1764496800000, MaxAtSeq, MaxAtSeq + 1, ^uint64(0)}
	tenants := []string{"", "acme", "\xff", "zürich", strings.Repeat("t", 256), strings.Repeat("t", 257)}
	i := 0
	for _, ord := range ords {
		for _, at := range ats {
			for _, seq := range ats {
				i++
				roundTrip = append(roundTrip, fuzzcorpus.Marshal(ord, at, seq, uint16(i*977), uint8(i%8), int8(i%18-1), tenants[i%len(tenants)]))
			}
		}
		for _, tenant := range tenants {
			for _, field := range []uint8{0, 1, 5, 6, 7} {
				for _, shard := range []int8{-1, 0, 16} {
					i++
					roundTrip = append(roundTrip, fuzzcorpus.Marshal(ord, ats[i%len(ats)], ats[(i/7)%len(ats)], uint16(i), field, shard, tenant))
				}
			}
		}
	}

	values := seedValues(t)
	var decodeAny [][]byte
	cfs := append([]string{"mystery"}, FamiliesV3...)
	for cf := range cfs {
		for k, c := range keyCases {
			decodeAny = append(decodeAny, fuzzcorpus.Marshal(uint8(cf), c.key.Encode(), values[(k+cf)%len(values)]))
		}
		for k, fam := range AllFamilies() {
			decodeAny = append(decodeAny, fuzzcorpus.Marshal(uint8(cf), fam.Lo, values[(3*k+cf)%len(values)]),
				fuzzcorpus.Marshal(uint8(cf), fam.Hi, values[(5*k+cf)%len(values)]))
		}
	}

	var fixed [][]byte
	for n := 0; n <= 25; n++ {
		for _, fill := range []byte{0, 1, 2, 3, 0x7f, 0x80, 0xfe, 0xff} {
			b := bytes.Repeat([]byte{fill}, n)
			fixed = append(fixed, fuzzcorpus.Marshal(b))
			if n > 0 {
				b = bytes.Clone(b)
				b[0] = 3
				fixed = append(fixed, fuzzcorpus.Marshal(b))
			}
		}
	}

	var etfValues [][]byte
	for _, v := range values {
		etfValues = append(etfValues, fuzzcorpus.Marshal(v), fuzzcorpus.Marshal(v[:len(v)/2]), fuzzcorpus.Marshal(append(bytes.Clone(v), 0)))
		if len(v) > 1 {
			last := bytes.Clone(v)
			last[len(last)-1] ^= 0xff
			etfValues = append(etfValues, fuzzcorpus.Marshal(last))
		}
	}

	for target, inputs := range map[string][][]byte{
		"FuzzIndexKeys": keys, "FuzzTenantKeys": keys, "FuzzCounterKey": keys, "FuzzRowKeys": keys,
		"FuzzKeyRoundTrip": roundTrip, "FuzzDecodeAny": decodeAny, "FuzzFixedValues": fixed, "FuzzETFValues": etfValues,
	} {
		if !*seedCorpus {
			missing, err := fuzzcorpus.Missing("testdata/fuzz", target, inputs)
			if err != nil {
				t.Fatal(err)
			}
			if missing > 0 {
				t.Errorf("%s: %d seeds are not in testdata/fuzz (go test -run TestSeedCorpus -seedcorpus)", target, missing)
			}
			continue
		}
		n, err := fuzzcorpus.Write("testdata/fuzz", target, inputs)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d new seeds", target, n)
	}
}

// seedValues: the Erlang vectors (testdata/etf/vectors.txt, up to 4 KiB),
// the values this package writes, and hooks whose tenant_id, key and value,
// is spelled in every atom form.
func seedValues(t *testing.T) [][]byte {
	var out [][]byte
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "etf", "vectors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if b, err := hex.DecodeString(f[2]); err == nil && len(b) <= 4096 {
			out = append(out, b)
		}
	}
	env := sampleEnvelope()
	nilEnv := env
	nilEnv.TenantNil = true
	out = append(out,
		EncodeEnvelope(env, false), EncodeEnvelope(env, true), EncodeEnvelope(nilEnv, false), EncodeEnvelope(nilEnv, true),
		append(EncodeEnvelope(env, false), 0, 1, 2),
		DeadValue{SourceID: []byte("s"), ID: []byte("i"), Ord: 3, HasOrd: true}.Encode(),
		DeadValue{SourceID: []byte("s"), ID: []byte("i")}.Encode(),
		EncodeDelivery(Delivery{Sink: 1, Status: StatusDead, Size: 9, LastError: []byte("e")}),
		EncodeCounterOperand(-5), EncodeCounterOperand(1<<40), EncodeCounterValue(0), EncodeCounterValue(-1<<63),
	)
	out = append(out, inPlaceOddities()...)
	for keyForm := range atomForms {
		for valForm := range atomForms {
			for _, text := range []string{"nil", "acme", "nill", ""} {
				out = append(out, hookOf(appendAtomForm(nil, keyForm, EnvKeyTenantID), appendAtomForm(nil, valForm, text)))
			}
			bin := []byte{etf.TagBinary, 0, 0, 0, 4, 'a', 'c', 'm', 'e'}
			out = append(out, hookOf(appendAtomForm(nil, keyForm, EnvKeyTenantID), bin, appendAtomForm(nil, valForm, "id"), bin))
		}
	}
	return out
}

// inPlaceOddities are values of each in-place reader's shape with one field
// of another type, each of which the reader must leave to the decoder (which
// refuses most): an envelope whose every field in turn is nil, an integer, a
// list or a tuple; a dead value whose source_id or id is not a binary (read
// in place as empty, a migration would rewrite it {source_id, <<>>, ord},
// losing the damaged id); a delivery row whose every field is of another
// type. Without them only fuzzing met these, and go test did not.
func inPlaceOddities() [][]byte {
	odd := []etf.Term{etf.AtomNil, int64(7), etf.List{Elems: []etf.Term{etf.Binary("x")}}, etf.Tuple{etf.Binary("x")}, etf.Atom("x")}
	var out [][]byte
	withField := func(m etf.Map, i int, v etf.Term) []byte {
		c := append(etf.Map(nil), m...)
		c[i].Value = v
		b, err := etf.Encode(c)
		if err != nil {
			panic(err)
		}
		return b
	}
	for _, m := range []etf.Map{sampleEnvelope().Term(), sampleDeliveryTerm()} {
		for i := range m {
			for _, v := range odd {
				out = append(out, withField(m, i, v))
			}
		}
	}
	for i := 0; i < 3; i++ {
		for _, v := range odd {
			tup := etf.Tuple{etf.Binary("src"), etf.Binary("id"), int64(3)}
			tup[i] = v
			b, err := etf.Encode(tup)
			if err != nil {
				panic(err)
			}
			out = append(out, b)
			if i < 2 {
				if b, err = etf.Encode(tup[:2]); err != nil {
					panic(err)
				}
				out = append(out, b)
			}
		}
	}
	return out
}

// sampleDeliveryTerm is a dead delivery row's term, with a last error.
func sampleDeliveryTerm() etf.Map {
	return Delivery{Sink: 1, Status: StatusDead, Attempts: 2, Size: 9, LastError: []byte("e")}.Term()
}
