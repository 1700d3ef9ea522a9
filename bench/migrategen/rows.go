package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// rowSink takes the rows of the stream as they are drawn: hooks by seq, and each hook's
// deliveries by sink with their index key, so that every call but due and dead comes in
// its family's key order. The hooks and deliveries come as values, encoded by the sink:
// the tables encode them beside the stream, on goroutines of their own (async.go). An
// envelope's body is the stream's, shared and never written: a sink must not change it.
type rowSink interface {
	hook(k format.HookKey, env format.Envelope) error
	delivery(k format.DeliveryKey, d format.Delivery) error
	due(k format.DueV2Key, size uint32) error
	inflight(k format.InflightV2Key, size uint32) error
	dead(k format.DeadKey, id uint64) error
	archive(k format.ArchiveKey, size uint32) error
}

// sourceID is every hook's source: a dead row's value carries it.
var sourceID = []byte("src_orders")

// eventID is the id of the hook whose random number is id: the dead row's value is rebuilt
// from the number alone by the sorted path (deadValue).
func eventID(id uint64) []byte { return fmt.Appendf(nil, "evt_%016x", id) }

// deadValue is the value of a dead row of the hook whose event number is id.
func deadValue(id uint64) []byte {
	return format.DeadValue{SourceID: sourceID, ID: eventID(id)}.Encode()
}

// genCounts is what a stream drew.
type genCounts struct{ rows, hooks int }

// stream draws the store's rows from the seed and hands them to sink. The draws are the
// same whatever the sink, so every method writes the same rows for the same options.
func stream(o options, sink rowSink) (genCounts, error) {
	var c genCounts
	r := rand.New(rand.NewPCG(o.seed, 0xbe9c))
	body := make([]byte, max(1024, o.bodyMax))
	for i := range body {
		body[i] = byte('a' + r.IntN(26))
	}
	now := o.now
	for seq := uint64(1_000_000); c.rows < o.rows; seq++ {
		c.hooks++
		tenant := fmt.Sprintf("tenant-%05d", r.IntN(o.tenants))
		if len(tenant) < o.tenantBytes {
			tenant += strings.Repeat("x", o.tenantBytes-len(tenant))
		}
		id := r.Uint64()
		env := format.Envelope{
			ID: eventID(id), SourceID: sourceID,
			TenantID: []byte(tenant), TenantNil: r.IntN(50) == 0,
			ReceivedAt: int64(now) - int64(r.IntN(3_600_000)),
			Headers:    [][2][]byte{{[]byte("content-type"), []byte("application/json")}, {[]byte("x-request-id"), fmt.Appendf(nil, "%x", r.Uint64())}},
			Body:       body[:o.bodyMin+r.IntN(o.bodyMax-o.bodyMin+1)],
		}
		if err := sink.hook(format.HookKey{Seq: seq}, env); err != nil {
			return c, err
		}
		sinks := 1 + r.IntN(2)
		for s := uint16(0); s < uint16(sinks) && c.rows < o.rows; s++ {
			size := uint64(len(env.Body) + 200)
			status := format.StatusDue
			x := r.IntN(20)
			if o.deadOnly {
				x = 19
			}
			var err error
			switch {
			case x < 11:
				at := now - 3_600_000 + uint64(r.IntN(7_200_000))
				err = sink.due(format.DueV2Key{At: at, Seq: seq, Sink: s}, uint32(size))
			case x < 14:
				status = format.StatusInflight
				err = sink.inflight(format.InflightV2Key{Seq: seq, Sink: s}, uint32(size))
			default:
				status = format.StatusDead
				err = sink.dead(format.DeadKey{At: now - uint64(r.IntN(86_400_000)), Seq: seq, Sink: s}, id)
			}
			if err != nil {
				return c, err
			}
			d := format.Delivery{Sink: s, Status: status, Attempts: int64(r.IntN(5)), Size: size, LastErrorNil: true}
			if err := sink.delivery(format.DeliveryKey{Seq: seq, Sink: s}, d); err != nil {
				return c, err
			}
			c.rows++
		}
		if c.rows < o.rows && r.IntN(5) == 0 && !o.deadOnly {
			if err := sink.archive(format.ArchiveKey{Seq: seq}, uint32(len(env.Body))); err != nil {
				return c, err
			}
			c.rows++
		}
	}
	return c, nil
}
