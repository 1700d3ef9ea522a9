package migration

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ankusa/ankusa-store/internal/nofollow"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// RecordFile is the tool's own file in the store directory that keeps the summary of a
// migration across its runs, so that a resumed run reports the whole migration's findings
// (the hooks filed under default, strays, dead rows of unknown size) and not only those of
// its own steps. It is no part of the store contract: the node and RocksDB ignore a file
// they do not know, the store's keys and the cursor stay byte for byte as pinned, and a
// checkpoint (which copies RocksDB's files only) never holds it, so a store restored from
// one starts without a stale record. docs/migration.md says why a file and not a key.
const RecordFile = "ankusa-store-migration.json"

// recordVersion is the layout of RecordFile; a record of another version is ignored
// (treated as missing), never misread.
const recordVersion = 1

// record is RecordFile's content. Committed is the migration's summary up to the cursor
// the store holds after the last step known to be committed; Pending is Committed plus
// the step being committed, written before its batch. Whichever cursor equals the store's
// on the next run is the summary that matches the store: a run killed between the two
// writes (or between the record and the batch) loses nothing.
type record struct {
	Version     int    `json:"version"`
	StartedAtMS uint64 `json:"started_at_ms"`
	Runs        int    `json:"runs"`
	// Incomplete says why the record misses runs before the first it holds ("" when it
	// has them all).
	Incomplete string       `json:"incomplete,omitempty"`
	Committed  recordedStep `json:"committed"`
	Pending    recordedStep `json:"pending"`
}

type recordedStep struct {
	Cursor  string  `json:"cursor"` // the encoded migration cursor, hex
	Summary Summary `json:"summary"`
}

// Earlier is what a resumed run knows of the runs of its migration before it.
type Earlier struct {
	// Known: the record matched the store; Summary then sums those runs.
	Known   bool
	Runs    int
	Summary Summary
	// Incomplete, when Known: the record itself misses runs before its first, and why.
	Incomplete string
	// Why, when not Known: no record, a record of another migration, or one that lags
	// the store (written without a sync, lost in a power cut, or not writable).
	Why string
}

// recorder writes RecordFile as the steps commit. A failed write stops the recording
// (the migration goes on: the record is a report, not the migration's state) and is kept
// in err, which the summary reports.
type recorder struct {
	path string
	rec  record
	err  error
}

func recordPath(dir string) string { return filepath.Join(dir, RecordFile) }

// readEarlier reads the record of the store in dir for the migration in state.
func readEarlier(dir string, state State) Earlier {
	b, err := os.ReadFile(recordPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return Earlier{Why: "no " + RecordFile + " in the store directory (the earlier runs were of a tool that kept none)"}
	}
	if err != nil {
		return Earlier{Why: fmt.Sprintf("%s cannot be read: %v", RecordFile, err)}
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil || r.Version != recordVersion {
		return Earlier{Why: fmt.Sprintf("%s is not a record this tool wrote (version %d, %v)", RecordFile, r.Version, err)}
	}
	if r.StartedAtMS != state.StartedAt {
		return Earlier{Why: fmt.Sprintf("%s is of another migration (started %s)", RecordFile,
			time.UnixMilli(int64(r.StartedAtMS)).UTC().Format(time.RFC3339Nano))}
	}
	cur := hex.EncodeToString(state.Cursor.Encode())
	switch cur {
	case r.Pending.Cursor:
		return Earlier{Known: true, Runs: r.Runs, Summary: r.Pending.Summary, Incomplete: r.Incomplete}
	case r.Committed.Cursor:
		return Earlier{Known: true, Runs: r.Runs, Summary: r.Committed.Summary, Incomplete: r.Incomplete}
	}
	return Earlier{Runs: r.Runs, Why: fmt.Sprintf("%s lags the store's cursor (the earlier run's last steps were committed after it was written)", RecordFile)}
}

// newRecorder starts the record of a run: base is what earlier runs recorded (zero for
// a migration this run starts), cursor the store's cursor now.
func newRecorder(dir string, state State, runs int, incomplete string, base Summary, cursor format.MigrationCursor) *recorder {
	c := recordedStep{Cursor: hex.EncodeToString(cursor.Encode()), Summary: base}
	r := &recorder{path: recordPath(dir), rec: record{Version: recordVersion, StartedAtMS: state.StartedAt, Runs: runs,
		Incomplete: incomplete, Committed: c, Pending: c}}
	r.write()
	return r
}

// beforeCommit records whole, the migration's summary with the step about to commit, and
// the cursor the step leaves: after the batch, it is the store's.
func (r *recorder) beforeCommit(whole Summary, cursor format.MigrationCursor) {
	r.rec.Committed = r.rec.Pending
	r.rec.Pending = recordedStep{Cursor: hex.EncodeToString(cursor.Encode()), Summary: whole}
	r.write()
}

// write replaces the file atomically (a temporary file renamed over it). It is not
// synced: a rename survives the process (kill -9), which is what the steps guard against
// most; after a power cut the record may lag, which the next run detects and says.
func (r *recorder) write() {
	if r.err != nil {
		return
	}
	b, err := json.Marshal(r.rec)
	if err == nil {
		// No half-written file is left in the store directory on a full disk, and a link
		// planted in place of the record or its temporary file is refused (nofollow).
		err = nofollow.Replace(r.path, b, false)
	}
	if err != nil {
		r.err = fmt.Errorf("writing %s: %w", r.path, err)
	}
}

// merge adds the summary of a later run to s: counts add up, examples keep the earliest.
// A hook filed under default whose rows fell into two runs is counted in each, so the
// hooks of a reason both runs saw are approximate.
func (s *Summary) merge(later Summary) {
	for i := range s.Phases {
		p, q := &s.Phases[i], later.Phases[i]
		p.Rows += q.Rows
		p.Strays += q.Strays
		p.StrayExample = appendExamples(p.StrayExample, q.StrayExample)
	}
	for r := range s.Defaults {
		d, e := &s.Defaults[r], later.Defaults[r]
		if d.Hooks > 0 && e.Hooks > 0 {
			s.DefaultHooksApprox = true
		}
		d.Rows += e.Rows
		d.Hooks += e.Hooks
		// A hook an earlier run listed is new to a later run's builder: list it once.
		var ex []uint64
		for _, seq := range e.Examples {
			if !slices.Contains(d.Examples, seq) {
				ex = append(ex, seq)
			}
		}
		d.Examples = appendExamples(d.Examples, ex)
	}
	s.DefaultHooksApprox = s.DefaultHooksApprox || later.DefaultHooksApprox
	s.DeliveryMissing += later.DeliveryMissing
	s.DeliveryUndecodable += later.DeliveryUndecodable
	s.DeliveryExamples = appendExamples(s.DeliveryExamples, later.DeliveryExamples)
	s.TenantsAllocated += later.TenantsAllocated
	s.Tenants, s.TenantsMax, s.Finished = later.Tenants, later.TenantsMax, later.Finished
	s.Ops += later.Ops
	s.Bytes += later.Bytes
	s.Steps += later.Steps
	s.Duration += later.Duration
	s.setOverCap()
}
