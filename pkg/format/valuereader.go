package format

// ValueReader is how DecodeEnvelope, DecodeDelivery and DecodeDeadValue read
// a node's value. The zero ValueReader, the tool's own, reads the fields of a
// value of the node's shape where they lie (decodeEnvelopeSkim,
// decodeDeliverySkim, decodeDeadValueSkim) and leaves any other value to the
// decoder; Whole decodes every value as a whole term. The two must give the
// same answer for every value (the fuzz targets hold it value by value);
// the tests of the commands that read values (dlq export, dlq scan, dlq show,
// tenants show, migrate) hold it for a whole run, and choose Whole for that
// run through the command's options, not for every test of the process, so
// tests running side by side do not read each other's way.
//
// Its methods hold the whole of each read, as the package's functions do
// (which are the zero ValueReader's, for callers with no option to pass),
// rather than calling them: neither is small enough to be inlined, and a
// call more cost the in-place read of a dead value a fifth of its time
// (BenchmarkDecodeDeadValue).
type ValueReader struct {
	// Whole decodes every value as a whole term, never in place.
	Whole bool
}

// DecodeEnvelope is format.DecodeEnvelope, read as r says.
func (r ValueReader) DecodeEnvelope(b []byte) (Envelope, error) {
	if !r.Whole {
		if e, ok := decodeEnvelopeSkim(b); ok {
			return e, nil
		}
	}
	return decodeEnvelopeTerm(b)
}

// DecodeDelivery is format.DecodeDelivery, read as r says.
func (r ValueReader) DecodeDelivery(b []byte) (Delivery, error) {
	if !r.Whole {
		if d, ok := decodeDeliverySkim(b); ok {
			return d, nil
		}
	}
	return decodeDeliveryTerm(b)
}

// DecodeDeadValue is format.DecodeDeadValue, read as r says.
func (r ValueReader) DecodeDeadValue(b []byte) (DeadValue, error) {
	if !r.Whole {
		if v, ok := decodeDeadValueSkim(b); ok {
			return v, nil
		}
	}
	return decodeDeadValueTerm(b)
}
