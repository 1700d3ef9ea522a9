package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// statusSummaryRows is the status for people: one field per row.
func statusSummaryRows(o *statusOutput, now time.Time) ui.Rows {
	rows := ui.Rows{Columns: []ui.Column{{Header: "Field"}, {Header: "Value", Wrap: true, MinWidth: 20}}}
	add := func(k string, v ui.Cell) { rows.Add(ui.Text(k), v) }
	add("store", ui.Text(o.Store))
	add("format", ui.Text(o.State))
	rd := o.RocksDB
	written := rd.RocksDBVersion
	if written == "" {
		written = "unknown (no OPTIONS file)"
	}
	if rd.Newer {
		written += " (newer than this tool's)"
	}
	add("rocksdb", ui.Text(fmt.Sprintf("tool %s, store written by %s", rd.Tool, written)))
	add("written by", ui.Text(statusWrittenBy(rd)))
	add("sst format versions", ui.Text(statusFormatVersions(rd.SSTFormatVersions)))
	add("writes tables", ui.Text(rd.Writes))
	t := o.Totals
	add("size on disk", ui.Cell{Human: fmt.Sprintf("%s in %s, WAL %s in %s, memtables %s", words.Bytes(int64(t.SSTBytes)), words.Count(int64(t.SSTFiles), "SST file", "SST files"),
		words.Bytes(int64(t.WALBytes)), words.Count(int64(t.WALFiles), "file", "files"), words.Bytes(int64(t.MemtableBytes))),
		Plain: fmt.Sprintf("sst_bytes=%d sst_files=%d wal_bytes=%d wal_files=%d memtable_bytes=%d", t.SSTBytes, t.SSTFiles, t.WALBytes, t.WALFiles, t.MemtableBytes)})
	if m := o.Migration; m != nil {
		add("migration", ui.Text(fmt.Sprintf("phase %s, after key %s", m.Phase, m.LastKey)))
		add("migration started", ui.Cell{Human: m.StartedAt.Format(time.RFC3339Nano) + " (" + words.Age(now.Sub(m.StartedAt).Milliseconds()) + " ago)", Plain: m.StartedAt.Format(viewTimeLayout)})
		add("migration keys left", ui.Int(m.RowsLeft))
		cp := "none by the default name rule"
		if m.CheckpointExists {
			cp = m.Checkpoint
		} else if m.CheckpointDefault != "" {
			// Not a path that never existed: where it was looked for, and why it may be none.
			cp = "none found (not at the default place " + m.CheckpointDefault + ", and no checkpoint's marker names this migration: " +
				"--no-backup takes none; or it was moved or removed)"
		}
		add("migration checkpoint", ui.Text(cp))
	}
	if tn := o.Tenants; tn != nil {
		v := ui.Text(fmt.Sprintf("%d of %d", tn.Count, tn.Max))
		v.Human = words.Group(int64(tn.Count)) + " of " + words.Group(int64(tn.Max)) + " (--tenants-max)"
		if tn.OverCap > 0 {
			v.Human += fmt.Sprintf(", %s OVER the cap", words.Group(int64(tn.OverCap)))
		}
		add("tenants", v)
	}
	if a := o.Aggregate; a != nil {
		var human, plain []string
		for _, f := range format.Fields {
			name := format.FieldNames[f]
			human = append(human, strings.ReplaceAll(name, "_", " ")+" "+counterCell(a, f).Human)
			plain = append(plain, name+"="+counterPlain(a, f))
		}
		add("aggregate", ui.Cell{Human: strings.Join(human, ", "), Plain: strings.Join(plain, " ")})
		// One line per unreadable field, with its first failed read (the aggregate's
		// shards fail together; -o json lists every read in aggregate_errors).
		for _, f := range format.Fields {
			if err := a.FieldErr(f); err != nil {
				e := f.String() + ": " + err.Error()
				add("aggregate_error", ui.Cell{Human: e, Plain: e, Color: ui.ColorRed})
			}
		}
	}
	if o.Format == format.Format3 && o.Migration == nil {
		od := ui.Text("nothing due")
		if d := o.OldestDue; d != nil {
			how := "verified"
			if !d.Verified {
				how = fmt.Sprintf("unverified: the start of its marker's second after %d stale markers", d.StaleSkipped)
			} else if d.StaleSkipped > 0 {
				how = fmt.Sprintf("verified, %d stale markers skipped", d.StaleSkipped)
			}
			od = ui.Cell{Human: fmt.Sprintf("%s, tenant %s (ord %d), due %s (%s)", words.Age(d.AgeMS), d.Tenant, d.Ord, d.At.Format(viewTimeLayout), how),
				Plain: fmt.Sprintf("age_ms=%d tenant=%s ord=%d at=%s verified=%t", d.AgeMS, d.Tenant, d.Ord, d.At.Format(viewTimeLayout), d.Verified)}
		}
		add("oldest due", od)
	}
	if u := o.Upgrade; u != nil {
		var parts []string
		for _, p := range u.Phases {
			parts = append(parts, fmt.Sprintf("%s %s", p.Phase, words.Group(p.Rows)))
		}
		add("migrate would read", ui.Text(fmt.Sprintf("%s keys (%s), about %s", words.Group(u.Rows), strings.Join(parts, ", "), humanDuration(u.EstimatedDurationMS))))
		disk := fmt.Sprintf("needs about %s (%s)", words.Bytes(int64(u.NeedBytes)), u.NeedRule)
		if u.CheckpointElsewhereBytes > 0 {
			disk += fmt.Sprintf(", and %s on the file system beside it for the checkpoint", words.Bytes(int64(u.CheckpointElsewhereBytes)))
		}
		if u.TempElsewhereBytes > 0 {
			disk += fmt.Sprintf(", and %s in %s for the joins' sorted runs", words.Bytes(int64(u.TempElsewhereBytes)), u.TempDir)
		}
		if u.FreeBytes != nil {
			verdict := "enough"
			if !*u.Enough {
				verdict = "NOT ENOUGH"
			}
			disk = fmt.Sprintf("%s free, %s; %s", words.Bytes(int64(*u.FreeBytes)), verdict, disk)
		}
		add("disk for migrate", ui.Text(disk))
	}
	if len(o.Checkpoints) == 0 {
		add("checkpoints", ui.Text("none (next to the store or in its record)"))
	}
	for _, u := range o.UnfinishedRemovals {
		by := fmt.Sprintf("process %d, gone", u.PID)
		if u.Running {
			by = fmt.Sprintf("process %d, running", u.PID)
		}
		add("unfinished removal", ui.Cell{
			Human: fmt.Sprintf("%s left set aside as %s (%s): %s; checkpoints ls says what finishes it", u.Dir, u.Aside, by, words.Bytes(int64(u.Bytes))),
			Plain: fmt.Sprintf("dir=%s aside=%s pid=%d running=%v bytes=%d", u.Dir, u.Aside, u.PID, u.Running, u.Bytes)})
	}
	for _, c := range o.Checkpoints {
		add("checkpoint", ui.Cell{
			Human: fmt.Sprintf("%s (%s, %s ago, %s, %s shared with the store, removing it frees %s)", c.Path, c.Kind, words.Age(c.AgeMS), words.Bytes(int64(c.Bytes)), words.Bytes(int64(c.SharedBytes)), words.Bytes(int64(c.OwnBytes))),
			Plain: fmt.Sprintf("path=%s kind=%s taken_at=%s bytes=%d shared_bytes=%d own_bytes=%d", c.Path, c.Kind, c.TakenAt.Format(viewTimeLayout), c.Bytes, c.SharedBytes, c.OwnBytes)})
	}
	return rows
}

func statusFormatVersions(m map[int]int) string {
	if len(m) == 0 {
		return "no SST files"
	}
	var parts []string
	for v := 0; v <= 16; v++ {
		if n, ok := m[v]; ok {
			parts = append(parts, fmt.Sprintf("%d (%s)", v, words.Count(int64(n), "file", "files")))
		}
	}
	return strings.Join(parts, ", ")
}

// statusFamilyRows is one row per column family.
func statusFamilyRows(o *statusOutput) ui.Rows {
	keys := "Estimated keys"
	if len(o.Families) > 0 && o.Families[0].ExactKeys != nil {
		keys = "Keys"
	}
	// TSV names carry the unit, as the JSON's sst_bytes and memtable_bytes do.
	rows := ui.Rows{Columns: []ui.Column{{Header: "Family"}, {Header: keys, Right: true}, {Header: "SST size", Name: "sst_bytes", Right: true},
		{Header: "Memtable", Name: "memtable_bytes", Right: true}, {Header: "Files per level"}}}
	for _, f := range o.Families {
		n := ui.Int(int64(f.EstimatedKeys))
		if f.ExactKeys != nil {
			n = ui.Int(int64(*f.ExactKeys))
		}
		lv := make([]string, len(f.FilesPerLevel))
		for i, c := range f.FilesPerLevel {
			lv[i] = fmt.Sprint(c)
		}
		rows.Add(ui.Text(f.Name), n, ui.Cell{Human: words.Bytes(int64(f.SSTBytes)), Plain: fmt.Sprint(f.SSTBytes)},
			ui.Cell{Human: words.Bytes(int64(f.MemtableBytes)), Plain: fmt.Sprint(f.MemtableBytes)}, ui.Text(strings.Join(lv, " ")))
	}
	return rows
}
