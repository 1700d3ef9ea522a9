package inspect

// dlqListeners hear what a streamed listing or an export did, for the tests
// that must know a path was taken or a bound reached: in the options
// (DLQOptions.hear, DLQExportOptions.hear) rather than package variables, so
// that tests running side by side do not hear each other's runs; unexported,
// so that no caller listens. A nil field hears nothing.
type dlqListeners struct {
	// joined hears whether StreamDLQ read through a sorted join (the tests
	// must know that the join they compare was taken).
	joined func(bool)
	// group and part hear each group of hooks an export reads and each part
	// it hands on, their rows and bytes (the tests check the bounds are kept
	// and reached).
	group, part func(rows, bytes int)
}

func (h dlqListeners) streamJoined(joined bool) {
	if h.joined != nil {
		h.joined(joined)
	}
}

func (h dlqListeners) exportGroup(rows, bytes int) {
	if h.group != nil {
		h.group(rows, bytes)
	}
}

func (h dlqListeners) exportPart(rows, bytes int) {
	if h.part != nil {
		h.part(rows, bytes)
	}
}
