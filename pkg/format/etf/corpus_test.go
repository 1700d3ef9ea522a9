package etf

import (
	"flag"
	"math"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/fuzzcorpus"
)

var seedCorpus = flag.Bool("seedcorpus", false, "add the vectors and judge cases to testdata/fuzz as seeds")

// TestSeedCorpus (go test -run TestSeedCorpus -seedcorpus ./pkg/format/etf)
// writes the Erlang vectors, the judge cases and the skim cases into the
// committed corpus, beside what real fuzzing found; without the flag it
// checks they are all there, so a new vector or judge case cannot be
// forgotten.
func TestSeedCorpus(t *testing.T) {
	var decode, skim, ints [][]byte
	add := func(b []byte) {
		if len(b) <= 4096 {
			decode = append(decode, fuzzcorpus.Marshal(b))
			skim = append(skim, fuzzcorpus.Marshal(b, "tenant_id"), fuzzcorpus.Marshal(b, "p"))
		}
	}
	for _, v := range loadVectors(t) {
		add(v.Bytes)
	}
	for _, c := range judgeCases(t) {
		add(c.in)
	}
	for _, c := range skimCases() {
		skim = append(skim, fuzzcorpus.Marshal(c.in, c.key))
	}
	for shift := 0; shift < 64; shift++ {
		for _, d := range []int64{-1, 0, 1} {
			v := int64(uint64(1)<<shift) + d
			ints = append(ints, fuzzcorpus.Marshal(v), fuzzcorpus.Marshal(-v))
		}
	}
	ints = append(ints, fuzzcorpus.Marshal(int64(math.MinInt64)), fuzzcorpus.Marshal(int64(math.MaxInt64)))
	for target, inputs := range map[string][][]byte{"FuzzDecode": decode, "FuzzFindMapAtom": skim, "FuzzAppendInt": ints} {
		checkSeeds(t, target, inputs)
	}
}

func checkSeeds(t *testing.T, target string, inputs [][]byte) {
	t.Helper()
	if !*seedCorpus {
		missing, err := fuzzcorpus.Missing("testdata/fuzz", target, inputs)
		if err != nil {
			t.Fatal(err)
		}
		if missing > 0 {
			t.Errorf("%s: %d seeds are not in testdata/fuzz (go test -run TestSeedCorpus -seedcorpus)", target, missing)
		}
		return
	}
	n, err := fuzzcorpus.Write("testdata/fuzz", target, inputs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d new seeds", target, n)
}
