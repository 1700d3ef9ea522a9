package cmd

import (
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
)

//go:generate go run ./gendocs -commands ../docs/commands.md

// docRoot is the command tree the documents are made from: the one a run builds, with
// cobra's completion command and without the date cobra would stamp.
func docRoot() *cobra.Command {
	env := &Env{IO: iostreams.IOStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, Build: BuildInfo{Version: "dev", Commit: "none"}, Now: time.Now}
	root := NewRootCmd(env)
	root.DisableAutoGenTag = true
	root.InitDefaultCompletionCmd()
	return root
}

// GenerateCommandsMarkdown writes docs/commands.md (clidoc.Markdown): what the page says
// before the commands (exitCodesMarkdown, the deprecated names), then every command.
func GenerateCommandsMarkdown(w io.Writer) error {
	root := docRoot()
	return clidoc.Markdown(w, root, exitCodesMarkdown+deprecationsMarkdown(root))
}

// ManRelease is what a man page's header says of the release it documents (clidoc).
type ManRelease = clidoc.ManRelease

// GenerateManPages writes one man page per command into dir (clidoc.ManPages).
func GenerateManPages(dir string, rel ManRelease) error {
	return clidoc.ManPages(dir, docRoot(), rel)
}

var exitCodesMarkdown = "## Exit codes\n\n" + exitcode.Table() + "\n" + exitcode.CrashText + "\n\n" +
	"A closed pipe is no crash: SIGPIPE is ignored, so a write to a pipe whose reader went away fails with EPIPE. " +
	"A listing (every read-only command, `--help` too) then stops at its next write and exits 0 with nothing on stderr: " +
	"its reader has what it asked for (`tenants ls | head -5`), the store was only read, and a `set -o pipefail` script " +
	"would otherwise fail on a pipeline that did its job. `migrate`, `fixture` and `counters verify --repair` never stop " +
	"for it: what they would print to a closed stdout or stderr is dropped, the work goes on to its end, and the exit status " +
	"is the work's (`migrate S 2>&1 | head -1` migrates S completely and exits 0).\n\n" +
	"## Output\n\n" +
	"Results go to stdout, always: rows, the dry-run plan, the verify report and verdict, the migrate summary, the next-page cursor " +
	"(after the table on a terminal; beside piped TSV it goes to stderr, which keeps TSV pure rows). " +
	"stderr carries progress, notes and warnings; `-q` silences progress and notes, never a result or a warning. " +
	"Tables fit the terminal: ids (tenant ids, refs, hook ids, seqs, keys) are never cut; free text is cut with an ellipsis " +
	"(a field's value is wrapped within its column instead), then less important columns are hidden (the line under the table names them), and only when the ids alone are too wide " +
	"is each row printed one field per line. Prose wraps at spaces only, never inside a number, a path or a key; " +
	"`--wide` draws them whole, `-o tsv` and `-o json` always carry every value whole and exact (milliseconds and bytes, units in the names). " +
	"`--no-headers` drops TSV's header line. Colour only on a terminal, never with `NO_COLOR` or `TERM=dumb` (which also draws ASCII instead of box lines).\n\n" +
	"Nothing from a store or an argument drives the terminal: in tables, records, notes, errors, the verify report and `dlq show`, " +
	"and in TSV and JSON written to a terminal, a control character, a bidi override or isolate (U+202A-U+202E, U+2066-U+2069), " +
	"a zero-width or other format character, a noncharacter, a private-use or unassigned code point and a byte that is not UTF-8 " +
	"are shown escaped: `\\t`, `\\n`, `\\r`, `\\xNN` (other C0 controls, DEL, a byte that is not UTF-8), `\\uXXXX` and `\\UXXXXXXXX` " +
	"(in JSON, as JSON escapes: the document means the same). Piped, TSV and JSON stay byte-exact. " +
	"stderr is prose, and is escaped the same way wherever it goes.\n\n" +
	"Progress (`--progress`): `auto` draws a live line (done/total, rate, ETA) on a terminal and, when stderr is not one (systemd, nohup, CI), " +
	"a start line (at once for migrate, once other work has run a second) and a `progress:` line every 10 s; `tty`, `plain` and `none` force one; `ANKUSA_STORE_PROGRESS` sets the default (e.g. `none` for a whole CI job). " +
	"A dumb terminal (`TERM=dumb`: an editor's shell buffer, a serial console) gets the plain lines, even with `--progress tty`: never the live line's carriage return and erase sequence. " +
	"When the line is too narrow, the elapsed time goes first, then the store path is cut from its left, then the rate; the command, its phase, done/total and the ETA stay.\n\n" +
	"Every `-o json` document carries `\"schema\": N`, the version of its layout (a field renamed, removed or changing meaning bumps it; an added field does not). " +
	"When a command fails before writing its result, `-o json` writes an error object on stdout as well as the line on stderr:\n\n" +
	"```\n{\n  \"schema\": 1,\n  \"error\": {\n    \"code\": 3,\n    \"class\": \"corruption\",\n    \"message\": \"...\"\n  }\n}\n```\n\n" +
	"`class` is one of `usage`, `findings`, `locked`, `interrupted`, `corruption`, `not_a_store`, `newer_format`, `mid_migration`, `no_space`, `store`.\n\n" +
	metricsMarkdown

// metricsMarkdown says what a --metrics-file holds after every run and the alerts to build on it.
const metricsMarkdown = "## Metrics files\n\n" +
	"`status --metrics-file F` and `counters verify --metrics-file F` (`--repair --yes` included) write F for node_exporter's textfile collector " +
	"(atomically: a temporary file beside it, renamed over it; when F is a symbolic link, the file it points at is replaced and the link stays). " +
	"Every run writes it, failed or not, so the file always describes the last run; only a usage error (exit 2, nothing written) leaves it as it was. " +
	"Each file (prefix `ankusa_store_status_` or `ankusa_store_verify_`) has:\n\n" +
	"| gauge | meaning |\n|---|---|\n" +
	"| `PREFIXsuccess` | 1 when the run did its work and has its result: exit 0, or 1 (a verify that found problems worked) |\n" +
	"| `PREFIXexit_code` | the run's exit status |\n" +
	"| `PREFIXerror{class}` | 1, with the error class of the JSON error object, when the run failed (exit 3, 4, 130); absent otherwise |\n" +
	"| `PREFIXtimestamp_seconds` | when the run ended (Unix time) |\n" +
	"| `PREFIXduration_seconds` | how long it took |\n\n" +
	"The health gauges (`ankusa_store_verify_healthy`, `_corrupt`, `_findings`, the aggregate, and the status of the store) are written only when the run got that far: " +
	"after a run that failed before its verdict no gauge says healthy. A counter that could not be read has no value, and `..._aggregate_unreadable{field}` is 1. " +
	"When the file itself cannot be written (a full or read-only directory), stderr says `error: --metrics-file F not written (the result above stands): ...`; " +
	"the report and the exit status stay the run's, and the file's timestamp stops moving, which the staleness alert below catches.\n\n" +
	"The alert rules to use (Prometheus; adjust the windows to how often the runs are scheduled):\n\n" +
	"```yaml\n" +
	"groups:\n" +
	"  - name: ankusa-store\n" +
	"    rules:\n" +
	"      - alert: AnkusaStoreVerifyUnhealthy      # a verdict, and not healthy (findings or corruption)\n" +
	"        expr: ankusa_store_verify_healthy == 0\n" +
	"      - alert: AnkusaStoreVerifyFailed         # the check itself did not work: no verdict to trust\n" +
	"        expr: ankusa_store_verify_success == 0 or absent(ankusa_store_verify_healthy)\n" +
	"      - alert: AnkusaStoreVerifyStale          # the check stopped running, or its file cannot be written\n" +
	"        expr: time() - ankusa_store_verify_timestamp_seconds > 2 * 86400\n" +
	"      - alert: AnkusaStoreStatusFailed\n" +
	"        expr: ankusa_store_status_success == 0\n" +
	"      - alert: AnkusaStoreCounterUnreadable    # a counter the node keeps cannot be read: damage\n" +
	"        expr: max by (store) (ankusa_store_aggregate_unreadable) == 1\n" +
	"      - alert: AnkusaStoreStatusStale\n" +
	"        expr: time() - ankusa_store_status_timestamp_seconds > 3600\n" +
	"```\n\n"
