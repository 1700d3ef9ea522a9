package health

import (
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A due row whose second does not fit in 32 bits (after 2106, or a garbled
// at) is batched apart from the others, and its marker is joined all the
// same: one found, one missing, in a batch of its own or beside the rest.
func TestVerifyMarkersPast2106(t *testing.T) {
	for _, budget := range []int{tunedSizes().markers, 2} {
		dir := vtFixture(t, format.Format3)
		var acme uint32
		vtPlant(t, dir, func(st *rocks.Store, b *rocks.Batch) {
			acme = vtOrd(t, st, "acme")
			for i, bucket := range []uint64{1 << 33, 1 << 34} {
				dk := format.DueKey{Ord: acme, At: bucket * format.BucketMillis, Seq: 1<<40 + uint64(i), Sink: 1}
				b.Put(format.CFIndex, dk.Encode(), format.DueValue{Size: 3}.Encode())
				if i == 0 {
					b.Put(format.CFIndex, dk.ActiveKey().Encode(), nil)
				}
			}
		})
		sz := tunedSizes()
		sz.markers = budget
		rep, err := vtVerify(t, dir, VerifyOptions{sizes: sz})
		if err != nil {
			t.Fatal(err)
		}
		missing := vtFindings(rep, CheckMarkerMissing)
		want := keyRef(format.CFIndex, format.ActiveKey{Bucket: 1 << 34, Ord: acme}.Encode())
		if len(missing) != 1 || missing[0].Key != want {
			t.Errorf("budget %d: markers missing %v, want only %s\n%s", budget, missing, want.Key, vtDump(rep))
		}
	}
}
