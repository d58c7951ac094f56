package explain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/fieldlogs"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// How logs reach an issue thread: through docker compose, kubectl, journald,
// a terminal's colours, Ray's and torch's worker prefixes, Markdown. Each
// wrapper, applied to every line of every tuning log, must leave explain's
// answer (verdict and ranked causes) as it was: the wrapping is the
// operator's tooling, not Mooncake's evidence. So must what new drafts
// (TestWrappedLogsDraftAlike).
var logWrappers = []struct {
	name string
	wrap func(i int, line string) string
}{
	{"docker compose", func(_ int, l string) string { return "mooncake-master-1  | " + l }},
	{"docker logs -t", func(i int, l string) string { return fmt.Sprintf("2025-06-06T09:39:%02d.285457123Z %s", i%60, l) }},
	{"kubectl logs --prefix", func(_ int, l string) string { return "[pod/sglang-prefill-0/sglang] " + l }},
	{"journald", func(i int, l string) string {
		return fmt.Sprintf("Dec 01 12:00:%02d gpu-node-3 python3[4121]: %s", i%60, l)
	}},
	{"ANSI colours", func(_ int, l string) string { return "\x1b[0;31m" + l + "\x1b[0m" }},
	{"Ray worker", func(_ int, l string) string { return "(VllmWorker rank=0 pid=4121) " + l }},
	{"Ray worker, vLLM's", func(_ int, l string) string { return "(RayWorkerWrapper pid=4121, ip=10.0.0.3) " + l }},
	{"torch rank", func(_ int, l string) string { return "[rank0]: " + l }},
	{"docker json-file", func(i int, l string) string {
		b, _ := json.Marshal(l + "\n")
		return fmt.Sprintf(`{"log":%s,"stream":"stderr","time":"2025-06-06T09:39:%02d.285457123Z"}`, b, i%60)
	}},
	{"Markdown list item", func(_ int, l string) string { return "    " + l }},
	{"Markdown code span", func(_ int, l string) string { return "`" + l + "`" }},
	{"CRLF", func(_ int, l string) string { return l + "\r" }},
}

func TestWrappedLogsExplainAlike(t *testing.T) {
	cat, fp := allFingerprints(t)
	cs, err := fieldlogs.Load()
	if err != nil {
		t.Fatal(err)
	}
	tun, _ := fieldlogs.Split(cs)
	answer := func(log string) string {
		d, err := explain.Diagnose(cat, fp, log, "")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range append(append([]explain.Cause{}, d.Causes...), d.Nearest...) {
			names = append(names, c.Name)
		}
		return d.Verdict + ": " + strings.Join(names[:min(3, len(names))], ", ")
	}
	for _, c := range tun {
		want := answer(c.Log)
		for _, w := range logWrappers {
			lines := strings.Split(strings.TrimRight(c.Log, "\n"), "\n")
			for i, l := range lines {
				lines[i] = w.wrap(i, l)
			}
			if got := answer(strings.Join(lines, "\n")); got != want {
				t.Errorf("%s wrapped by %s:\n got %s\nwant %s", c.ID, w.name, got, want)
			}
		}
	}
}

func TestWrappedLogsDraftAlike(t *testing.T) {
	cat, fp := allFingerprints(t)
	cs, err := fieldlogs.Load()
	if err != nil {
		t.Fatal(err)
	}
	tun, _ := fieldlogs.Split(cs)
	// One wrapper of each kind of prefix: a stamp and a service name nested
	// in colours (what `docker compose logs -t` prints on a terminal).
	wrap := func(i int, l string) string {
		return "\x1b[36msglang-1  |\x1b[0m " + fmt.Sprintf("2025-06-06T09:39:%02d.285457123Z ", i%60) + l
	}
	drafted := 0
	for _, c := range tun {
		want := explain.DraftFromLog(context.Background(), cat, fp, sim.New(), c.Log, explain.DraftOptions{Name: "field/" + c.ID})
		lines := strings.Split(strings.TrimRight(c.Log, "\n"), "\n")
		for i, l := range lines {
			lines[i] = wrap(i, l)
		}
		got := explain.DraftFromLog(context.Background(), cat, fp, sim.New(), strings.Join(lines, "\n"), explain.DraftOptions{Name: "field/" + c.ID})
		if want.Written() {
			drafted++
		}
		// The summary quotes the log's first line, wrapped or not.
		if g, w := got.Based+"@"+got.Version, want.Based+"@"+want.Version; g != w || got.Written() != want.Written() {
			t.Errorf("%s wrapped: drafted %s (written %v), unwrapped %s (written %v)", c.ID, g, got.Written(), w, want.Written())
		}
	}
	if drafted < 10 {
		t.Errorf("only %d tuning logs drafted: the comparison proves little", drafted)
	}
}
