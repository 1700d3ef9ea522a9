// Command migrategen writes a large format 2 store for bench/migrate_bench.sh:
// ROWS index rows over TENANTS tenants, shaped like a node's backlog (hooks of
// a few hundred bytes with one or two sinks, due rows on both sides of now,
// inflight, dead rows with their delivery rows, archive obligations), as fast
// as RocksDB takes unsynced batches. The fixture command plays the queue's
// whole history instead, which is right for tests and far too slow for 10^6
// rows.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

func main() {
	dir := flag.String("dir", "", "store directory to create (must not exist)")
	rows := flag.Int("rows", 1_000_000, "index rows to write (due, inflight, dead, archive)")
	tenants := flag.Int("tenants", 10_000, "tenants the hooks are spread over")
	seed := flag.Uint64("seed", 1, "random seed")
	nowMS := flag.Int64("now", 1_796_032_800_000, "the store's clock, Unix ms; due rows lie on both sides")
	bodyMin := flag.Int("body-min", 256, "shortest hook body, bytes")
	bodyMax := flag.Int("body-max", 767, "longest hook body, bytes (0: every body empty, the smallest store the contract allows)")
	flag.BoolVar(&deadOnly, "dead-only", false, "every delivery dead, and no archive rows: ROWS dead letters")
	flag.IntVar(&tenantBytes, "tenant-bytes", 0, "pad each tenant id to this many bytes (past 256, an id no node accepts: the hooks carry it, the migration files them under default)")
	flag.Parse()
	if *bodyMin < 0 || *bodyMax < *bodyMin {
		fmt.Fprintln(os.Stderr, "migrategen: want 0 <= -body-min <= -body-max")
		os.Exit(2)
	}
	bodies = [2]int{*bodyMin, *bodyMax}
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "migrategen: -dir is required")
		os.Exit(2)
	}
	if err := generate(*dir, *rows, *tenants, *seed, uint64(*nowMS)); err != nil {
		fmt.Fprintln(os.Stderr, "migrategen:", err)
		os.Exit(1)
	}
}

// bodies is the shortest and the longest hook body. Hooks are most of a
// store's bytes (4.7 of 5.8 GB at 10^7 rows): a scale run whose disk is
// short takes them empty, which is a hook the contract allows (body is any
// binary) and leaves every row and key the migration moves as it was.
var bodies = [2]int{256, 767}

// deadOnly and tenantBytes make the stores of rows far larger than a node's
// usual, for bench/memory_bench.sh: 3,000 dead letters of 100 KB bodies, 300
// of one tenant whose id is a MiB.
var (
	deadOnly    bool
	tenantBytes int
)

func generate(dir string, rows, tenants int, seed, now uint64) error {
	began := time.Now()
	st, err := store.Open(dir, store.Options{Options: rocks.Options{Mode: rocks.ReadWrite, Create: true, CreateFormat: format.Format2, Tune: rocks.BulkTuning}})
	if err != nil {
		return err
	}
	defer st.Close()
	b := rocks.NewBatch()
	for _, f := range format.FamiliesOf(format.Format2) {
		b.Put(f.CF, f.Lo, nil)
		b.Put(f.CF, f.Hi, nil)
	}
	flush := func(force bool) error {
		if b.Count() < 20_000 && !force {
			return nil
		}
		err := st.Write(b, false)
		b.Clear()
		return err
	}
	r := rand.New(rand.NewPCG(seed, 0xbe9c))
	body := make([]byte, max(1024, bodies[1]))
	for i := range body {
		body[i] = byte('a' + r.IntN(26))
	}
	written, hooks := 0, 0
	for seq := uint64(1_000_000); written < rows; seq++ {
		hooks++
		tenant := fmt.Sprintf("tenant-%05d", r.IntN(tenants))
		if len(tenant) < tenantBytes {
			tenant += strings.Repeat("x", tenantBytes-len(tenant))
		}
		env := format.Envelope{
			ID: fmt.Appendf(nil, "evt_%016x", r.Uint64()), SourceID: []byte("src_orders"),
			TenantID: []byte(tenant), TenantNil: r.IntN(50) == 0,
			ReceivedAt: int64(now) - int64(r.IntN(3_600_000)),
			Headers:    [][2][]byte{{[]byte("content-type"), []byte("application/json")}, {[]byte("x-request-id"), fmt.Appendf(nil, "%x", r.Uint64())}},
			Body:       body[:bodies[0]+r.IntN(bodies[1]-bodies[0]+1)],
		}
		b.Put(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(env, false))
		sinks := 1 + r.IntN(2)
		for sink := uint16(0); sink < uint16(sinks) && written < rows; sink++ {
			size := uint64(len(env.Body) + 200)
			status := format.StatusDue
			x := r.IntN(20)
			if deadOnly {
				x = 19
			}
			switch {
			case x < 11:
				at := now - 3_600_000 + uint64(r.IntN(7_200_000))
				b.Put(format.CFIndex, format.DueV2Key{At: at, Seq: seq, Sink: sink}.Encode(), format.EncodeSize(uint32(size)))
			case x < 14:
				status = format.StatusInflight
				b.Put(format.CFIndex, format.InflightV2Key{Seq: seq, Sink: sink}.Encode(), format.EncodeSize(uint32(size)))
			default:
				status = format.StatusDead
				v := format.DeadValue{SourceID: env.SourceID, ID: env.ID}
				b.Put(format.CFIndex, format.DeadKey{At: now - uint64(r.IntN(86_400_000)), Seq: seq, Sink: sink}.Encode(), v.Encode())
			}
			d := format.Delivery{Sink: sink, Status: status, Attempts: int64(r.IntN(5)), Size: size, LastErrorNil: true}
			b.Put(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: sink}.Encode(), format.EncodeDelivery(d))
			written++
		}
		if written < rows && r.IntN(5) == 0 && !deadOnly {
			b.Put(format.CFIndex, format.ArchiveKey{Seq: seq}.Encode(), format.EncodeSize(uint32(len(env.Body))))
			written++
		}
		if err := flush(false); err != nil {
			return err
		}
	}
	if err := flush(true); err != nil {
		return err
	}
	// A node's store has its rows in table files, compacted, not in a WAL the
	// migration would have to replay first.
	for _, cf := range st.Families() {
		if err := st.Flush(cf); err != nil {
			return err
		}
		if err := st.CompactRange(cf); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "migrategen: %s: %d rows, %d hooks, %d tenants in %v\n", dir, written, hooks, tenants, time.Since(began).Round(time.Millisecond))
	return nil
}
