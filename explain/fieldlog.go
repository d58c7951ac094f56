package explain

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Line is one line of a field log with the prefix its logger added
// stripped: what Mooncake or SGLang printed, and where.
type Line struct {
	// N is the line's number in the pasted log (1-based).
	N    int    `json:"n"`
	Text string `json:"text"`
	// Level is glog's severity letter (I, W, E, F) or SGLang's level
	// word's first letter; "" when the line has none.
	Level string `json:"level,omitempty"`
	// Source is glog's file:line ("rdma_context.cpp:581"): evidence of
	// which Mooncake code printed it.
	Source string `json:"source,omitempty"`
	// At is the time of day the line carries (0 when none).
	At    time.Duration `json:"-"`
	timed bool
	// logger is the prefix format the line had: glog or easylog (C++:
	// Mooncake and its RPC library), vllm or sglang (Python callers), ""
	// for a line without one.
	logger string
}

// Evidence is what a pasted field log states: its lines, the versions and
// configuration it shows, and how long it waited before failing.
type Evidence struct {
	Lines []Line `json:"-"`
	// MooncakeVersion / SGLangVersion as the log states them (pip show,
	// pip freeze, pip list, check_env banners); "" when it does not.
	MooncakeVersion string `json:"mooncake_version,omitempty"`
	SGLangVersion   string `json:"sglang_version,omitempty"`
	// MooncakeRange is the releases whose source has the files the log's
	// glog lines name (client_service.cpp: 0.3.8 on); empty when they
	// name none that tells, or disagree (processes of two releases).
	MooncakeRange Range `json:"mooncake_range,omitzero"`
	// Env holds MOONCAKE_* and MC_* settings from env dumps and command
	// lines; Flags the SGLang flags that select the storage backend.
	Env   map[string]string `json:"env,omitempty"`
	Flags map[string]string `json:"flags,omitempty"`
	// Gaps are the waits of at least GapEvidence before an error line:
	// a timeout or a retry loop.
	Gaps []Gap `json:"gaps,omitempty"`
	// SetAside counts the lines of a long log left out as repeats
	// (condenseLog); 0 when every line was read.
	SetAside int `json:"lines_set_aside,omitempty"`
}

// Gap is a wait before an error line.
type Gap struct {
	Seconds int  `json:"seconds"`
	Before  Line `json:"before"`
}

// GapEvidence is the shortest wait before a failure that explain reads as
// a timeout or retry loop: above the few seconds a refused connect or a
// quick retry takes, below Mooncake's 30 s RPC and 60 s transfer timeouts.
const GapEvidence = 20 * time.Second

var (
	// glog: "E1201 12:00:00.123456 12345 file.cpp:123] text" (the thread id
	// trimmed away too: mooncake PR 3538); the date is
	// MMDD or, from newer glog, YYYYMMDD.
	reGlog = regexp.MustCompile(`^([IWEF])(?:\d{4}|\d{8}) (\d\d):(\d\d):(\d\d)\.(\d{6})(?:\s+\d+)? ([\w.\-]+:\d+)\] ?(.*)$`)
	// glog without time or thread, as people trim it: "E1130 file.cpp:123] text".
	reGlogBare = regexp.MustCompile(`^([IWEF])(?:\d{4}|\d{8}) ([\w.\-]+:\d+)\] ?(.*)$`)
	// glog cut to its file: "rdma_endpoint.cpp:472] text" (the severity,
	// date and thread trimmed away by whoever pasted it): a C++ source file,
	// so not another logger's bracket.
	// Some paste it without the bracket, two spaces before the message.
	reGlogFile = regexp.MustCompile(`^([\w.\-]+\.(?:cpp|cc|cxx|h|hpp):\d+)(?:\] ?|\s{2,})(.*)$`)
	// glog cut to its severity and file: "W topology.cpp:152] text".
	reGlogLetter = regexp.MustCompile(`^([IWEF]) ([\w.\-]+\.(?:cpp|cc|cxx|h|hpp):\d+)\] ?(.*)$`)
	// SGLang: "[2026-01-16 07:02:59 TP4] text" or "[2025-04-14 03:55:21] text".
	reSGLang = regexp.MustCompile(`^\[\d{4}-\d\d-\d\d (\d\d):(\d\d):(\d\d)(?: [^\]]*)?\] ?(.*)$`)
	// vLLM/LMCache: "(Worker ...) ERROR 06-12 13:12:27 [file.py:97] text"
	reVLLM = regexp.MustCompile(`^(?:\([^)]*\)\s*)*(INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d (\d\d):(\d\d):(\d\d) \[([\w.\-]+:\d+)\] ?(.*)$`)
	// coro_rpc's easylog: "2025-06-06 09:39:00.285457 ERROR    [382] [file.hpp:923] text"
	// Other Python loggers' prefixes: "[2025-09-04 01:00:51,159] LMCache
	// ERROR: ...", logging's default "ERROR:root:...", uvicorn's "INFO:".
	reCallerPrefix = regexp.MustCompile(`^(\[\d{4}-\d\d-\d\d[^\]]*\]|(DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]*:)`)
	reEasylog      = regexp.MustCompile(`^\d{4}-\d\d-\d\d (\d\d):(\d\d):(\d\d)\.\d+ (ERROR|WARN|WARNING|INFO|DEBUG)\s+\[\d+\] \[([\w.\-]+:\d+)\] ?(.*)$`)

	reEnv      = regexp.MustCompile(`(?:^|[\s;'"])((?:MOONCAKE|MC)_[A-Z0-9_]+)=("[^"]*"|'[^']*'|[^\s;'"]+)`)
	reEnvColon = regexp.MustCompile(`^\s*-?\s*name:\s*((?:MOONCAKE|MC)_[A-Z0-9_]+)\s*$`)
	reValue    = regexp.MustCompile(`^\s*value:\s*"?([^"]*)"?\s*$`)
	reFlag     = regexp.MustCompile(`(--hicache-storage-backend(?:-extra-config)?|--disaggregation-transfer-backend|--enable-hierarchical-cache|--disaggregation-mode|--disaggregation-decode-enable-offload-kvcache|--speculative-algorithm)(?:[ =]+('[^']*'|"[^"]*"|[^\s\\-][^\s\\]*))?`)

	// Versions: pip show (Name/Version), pip freeze/list, check_env, prose.
	// Also what pip prints installing ("Successfully installed
	// mooncake-transfer-engine-0.3.5", a wheel's file name
	// "mooncake_transfer_engine-0.3.5-cp310-...whl", "Requirement already
	// satisfied: mooncake-transfer-engine in /usr/... (0.3.5)") and image
	// tags ("lmsysorg/sglang:v0.4.6.post1-cu124").
	reMooncakeVer = []*regexp.Regexp{
		regexp.MustCompile(`(?i)mooncake[-_]transfer[-_]engine(?:[-_](?:non[-_])?cuda\d*)?(?:==|-|\s+|:\s*|\s+version:?\s*v?)(\d+\.\d+\.\d+(?:\.post\d+|b\d+)?)`),
		regexp.MustCompile(`(?i)mooncake[-_]transfer[-_]engine(?:[-_](?:non[-_])?cuda\d*)? in \S+ \((\d+\.\d+\.\d+(?:\.post\d+|b\d+)?)\)`),
		regexp.MustCompile(`(?i)\bmooncake(?: version)?[:\s]+v?(\d+\.\d+\.\d+(?:\.post\d+|b\d+)?)\b`),
	}
	reSGLangVer = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bsglang(?:==|-|:v?|:\s*|\s+v?|\s+version:?\s*v?)(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)`),
		regexp.MustCompile(`(?i)\bsglang in \S+ \((\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)\)`),
	}
	// pip's lines about a version it did not install (a requirement no
	// release satisfies, a wheel for another platform) and about one it
	// is fetching (installed unless a refusal follows).
	rePipRefused = regexp.MustCompile(`(?i)could not find a version that satisfies|no matching distribution found|is not a supported wheel on this platform`)
	rePipFetch   = regexp.MustCompile(`(?i)^\s*(?:collecting|downloading|using cached)\s`)
	rePipName    = regexp.MustCompile(`^Name: (\S+)$`)
	rePipVer     = regexp.MustCompile(`^Version: (\S+)$`)
)

var (
	reANSI = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)
	// What the operator's tooling puts before a line, outermost first in a
	// paste but stripped in any order: a quoted reply's "> ", Markdown's
	// backtick, docker compose's "service-1  | ", docker logs -t's and
	// kubectl --timestamps' RFC 3339 stamp, kubectl --prefix's
	// "[pod/name/container] ", journald's "Dec 01 12:00:00 host proc[pid]: ",
	// Ray's "(Worker rank=0 pid=1) " or "(RayWorkerWrapper pid=1, ip=10.0.0.1) ",
	// torch's "[rank0]: ". Each takes its
	// own separator only: the line's indentation is the line's (a wrapped
	// message's continuation, joinWrapped).
	reWrappers = []*regexp.Regexp{
		regexp.MustCompile(`^(?:> ?)+`),
		regexp.MustCompile("^`+"),
		regexp.MustCompile(`^[A-Za-z0-9][\w.\-]*\s+\| ?`),
		regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?[ \t]`),
		regexp.MustCompile(`^\[pod/[^\]\s]+\]\s?`),
		regexp.MustCompile(`^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [\w.\-/]+(?:\[\d+\])?: `),
		regexp.MustCompile(`^\([\w.\-]+(?:,?\s+[\w.\-]+=[\w.\-]+)*\)[ \t]`),
		regexp.MustCompile(`^\[rank\d+\]:\s?`),
	}
)

// unwrap strips colours and the prefixes operators' tooling adds around a
// log line (reWrappers), however they nest, and the quotes around a line
// quoted whole.
func unwrap(s string) string {
	// docker's json-file driver: {"log":"…\n","stream":"stderr","time":"…"}.
	if strings.HasPrefix(s, `{"log":`) {
		var j struct {
			Log *string `json:"log"`
		}
		if json.Unmarshal([]byte(s), &j) == nil && j.Log != nil {
			s = strings.TrimRight(*j.Log, "\r\n")
		}
	}
	s = reANSI.ReplaceAllString(s, "")
	for changed := true; changed; {
		changed = false
		for _, re := range reWrappers {
			if loc := re.FindStringIndex(s); loc != nil && loc[1] > 0 {
				s, changed = s[loc[1]:], true
			}
		}
	}
	s = strings.TrimRight(strings.TrimSuffix(s, "`"), " \t")
	// A message quoted whole in prose ("Unsupported transport nvlink, …").
	if len(s) > 2 && s[0] == '"' && s[len(s)-1] == '"' && strings.Count(s, `"`) == 2 {
		s = s[1 : len(s)-1]
	}
	return s
}

// unwrapLog is log with every line unwrapped: what the rest of explain
// matches, so that no pattern meets a colour code or a compose prefix.
func unwrapLog(log string) string {
	lines := strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = unwrap(l)
	}
	return strings.Join(joinWrapped(dedent(lines)), "\n")
}

// dedent removes the indentation every line shares (a log pasted under
// a Markdown list item), so that a line's own indentation still marks a
// continuation or a traceback's frame.
func dedent(lines []string) []string {
	common, first := "", true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			common, first = ind, false
			continue
		}
		for !strings.HasPrefix(ind, common) {
			common = common[:len(common)-1]
		}
	}
	if common == "" {
		return lines
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, common)
	}
	return lines
}

// joinWrapped joins an exception message hard-wrapped mid-sentence (an
// issue's text box, a terminal) into one line: "RuntimeError: ... requires"
// then indented continuation lines, up to the one that ends the sentence.
// A message that ends its line with a colon or a full stop is left alone
// (pybind11's TypeError lists its overloads on lines of their own).
func joinWrapped(lines []string) []string {
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if raisedException.MatchString(l) || glogComma(l) {
			for i+1 < len(lines) && !endsSentence(l) && reContinuation.MatchString(lines[i+1]) &&
				!strings.HasPrefix(strings.TrimSpace(lines[i+1]), `File "`) {
				i++
				l += " " + strings.TrimSpace(lines[i])
			}
		}
		// A Mooncake message of "key: value" fields wrapped at its commas
		// with no indentation ("received packet mismatch,\nlocal.local_nic_path:
		// …,\npeer.local_nic_path: ,"): the fields belong to the line.
		for i+1 < len(lines) && strings.HasSuffix(strings.TrimRight(l, " \t"), ",") && reFieldFragment.MatchString(lines[i+1]) {
			i++
			l = strings.TrimRight(l, " \t") + " " + strings.TrimSpace(lines[i])
		}
		out = append(out, l)
	}
	return out
}

// reFieldFragment: a line that starts with a field of a Mooncake message,
// a lower-case key (dotted or not) and its colon: "local.peer_nic_path: ",
// "retry_cnt: 3)".
var reFieldFragment = regexp.MustCompile(`^\s*[a-z][a-z_]*(?:\.[a-z_]+)*: `)

// glogComma: a glog line whose message a paste wrapped after a comma
// ("received packet mismatch,\n  local.local_nic_path: …"): Mooncake's
// messages are one line each.
func glogComma(l string) bool {
	t := strings.TrimRight(l, " \t")
	return strings.HasSuffix(t, ",") && (reGlog.MatchString(t) || reGlogBare.MatchString(t) || reGlogFile.MatchString(t) || reGlogLetter.MatchString(t))
}

// reContinuation: an indented line of words, not a traceback's frame or
// caret line.
var reContinuation = regexp.MustCompile(`^\s+(?:[A-Za-z'"(]|\d+[^.\d])`)

func endsSentence(l string) bool {
	l = strings.TrimRight(l, " \t")
	return l == "" || strings.ContainsAny(l[len(l)-1:], ".:!?)]}")
}

// MaxLines is the longest log explain reads line by line. A longer one
// (a process's whole log, attached) is condensed first: matching every
// catalog line against every log line made explain take 5 s on 2,000
// lines (BenchmarkDiagnoseLongLog, docs/MEASUREMENTS.md).
const MaxLines = 400

// condenseLog keeps, of each kind of line (alike but for its numbers,
// hex ids and keys: "Transfer failed for key k17"), the first two and the
// last: every kind the log has stays evidence, with the counts that tell
// a retry loop's start from its end ("retry 1/20", "retry 20/20"). A log
// of at most MaxLines lines is kept whole; keep says which lines stay
// (nil: all), set how many it left out.
func condenseLog(log string) (out string, keep []bool, set int) {
	lines := strings.Split(log, "\n")
	if len(lines) <= MaxLines {
		return log, nil, 0
	}
	shapes := make([]string, len(lines))
	last := map[string]int{}
	for i, l := range lines {
		shapes[i] = reAlike.ReplaceAllString(l, "#")
		last[shapes[i]] = i
	}
	seen := map[string]int{}
	keep = make([]bool, len(lines))
	var kept []string
	for i, l := range lines {
		if seen[shapes[i]]++; seen[shapes[i]] <= 2 || last[shapes[i]] == i {
			keep[i] = true
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n"), keep, len(lines) - len(kept)
}

// MaxLineBytes is the longest line explain reads whole: Mooncake's and
// SGLang's messages say what matters at their start, and a pasted blob (a
// JSON dump, the metrics of a thousand keys on one line) of 2 MB kept
// explain busy for minutes.
const MaxLineBytes = 4096

// clipLines cuts every line to MaxLineBytes, at a character boundary.
func clipLines(log string) string {
	if len(log) <= MaxLineBytes {
		return log
	}
	lines := strings.Split(log, "\n")
	for i, l := range lines {
		if len(l) > MaxLineBytes {
			n := MaxLineBytes
			for n > 0 && !utf8.RuneStart(l[n]) {
				n--
			}
			lines[i] = l[:n] + " …"
		}
	}
	return strings.Join(lines, "\n")
}

// reAlike: what differs between lines of one kind - hex ids and digit
// runs (times, thread ids, ports, sizes, counters, the digits of keys).
var reAlike = regexp.MustCompile(`0x[0-9a-fA-F]+|[0-9a-fA-F]{8,}|\d+`)

// readLog is the log as explain reads it: unwrapped, condensed when long.
// Its evidence is read from every line (the waits before a failure: a
// condensed log's neighbours are not the original's), then keeps the
// condensed log's lines, numbered as in the original.
func readLog(log string) (string, Evidence) {
	log = unwrapLog(clipLines(log))
	ev := ParseLog(log)
	short, keep, set := condenseLog(log)
	if set > 0 {
		ev.Lines = slices.DeleteFunc(ev.Lines, func(l Line) bool { return !keep[l.N-1] })
		ev.SetAside = set
	}
	return short, ev
}

// ParseLog reads what operators paste: glog lines (prefix stripped,
// file:line kept), SGLang and vLLM log lines, tracebacks (complete or cut
// short: their lines are kept as they are), mooncake_master logs (glog),
// pip show / pip freeze / version banners, env dumps and command lines.
func ParseLog(log string) Evidence {
	ev := Evidence{Env: map[string]string{}, Flags: map[string]string{}}
	raw := strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n")
	pipName := ""
	pendingEnv := ""
	fetched, refused := "", false
	for i, s := range raw {
		t := unwrap(strings.TrimRight(s, " \t"))
		l := Line{N: i + 1, Text: strings.TrimSpace(t)}
		if m := reGlog.FindStringSubmatch(t); m != nil {
			l.Level, l.Source, l.Text = m[1], m[6], strings.TrimSpace(m[7])
			l.At, l.timed, l.logger = clock(m[2], m[3], m[4]), true, "glog"
		} else if m := reGlogBare.FindStringSubmatch(t); m != nil {
			l.Level, l.Source, l.Text, l.logger = m[1], m[2], strings.TrimSpace(m[3]), "glog"
		} else if m := reGlogFile.FindStringSubmatch(t); m != nil {
			l.Source, l.Text, l.logger = m[1], strings.TrimSpace(m[2]), "glog"
		} else if m := reGlogLetter.FindStringSubmatch(t); m != nil {
			l.Level, l.Source, l.Text, l.logger = m[1], m[2], strings.TrimSpace(m[3]), "glog"
		} else if m := reEasylog.FindStringSubmatch(t); m != nil {
			l.Level, l.Source, l.Text = m[4][:1], m[5], strings.TrimSpace(m[6])
			l.At, l.timed, l.logger = clock(m[1], m[2], m[3]), true, "easylog"
		} else if m := reVLLM.FindStringSubmatch(t); m != nil {
			l.Level, l.Source, l.Text = m[1][:1], m[5], strings.TrimSpace(m[6])
			l.At, l.timed, l.logger = clock(m[2], m[3], m[4]), true, "vllm"
		} else if m := reSGLang.FindStringSubmatch(t); m != nil {
			l.Text = strings.TrimSpace(m[4])
			l.At, l.timed, l.logger = clock(m[1], m[2], m[3]), true, "sglang"
		} else if m := reCallerPrefix.FindStringSubmatch(t); m != nil {
			// Another logger's line (LMCache's "[date,ms] LMCache ERROR:",
			// Python logging's "ERROR:root:"): kept whole, the caller's;
			// logging's default format says its level.
			l.logger = "caller"
			if m[2] != "" {
				l.Level = m[2][:1]
			}
		}
		if l.Text == "" {
			continue
		}
		ev.Lines = append(ev.Lines, l)
		// An exception's message advises ("export MC_X=1 to keep ..."), and
		// so does a line that says how to turn something on (the transfer
		// engine's "Metrics reporting is disabled (set MC_TE_METRIC=1 to
		// enable)"): neither states the process's environment.
		if !raised.MatchString(l.Text) && !reAdvice.MatchString(l.Text) {
			for _, m := range reEnv.FindAllStringSubmatch(l.Text, -1) {
				ev.Env[m[1]] = strings.Trim(m[2], `"'`)
			}
		}
		// Kubernetes env lists: "- name: MOONCAKE_X" then "value: ...".
		if m := reEnvColon.FindStringSubmatch(l.Text); m != nil {
			pendingEnv = m[1]
		} else if m := reValue.FindStringSubmatch(l.Text); m != nil && pendingEnv != "" {
			ev.Env[pendingEnv] = m[1]
			pendingEnv = ""
		}
		for _, m := range reFlag.FindAllStringSubmatch(l.Text, -1) {
			ev.Flags[m[1]] = strings.Trim(m[2], `"'`)
		}
		if m := rePipName.FindStringSubmatch(l.Text); m != nil {
			pipName = strings.ToLower(m[1])
		} else if m := rePipVer.FindStringSubmatch(l.Text); m != nil {
			switch {
			case strings.HasPrefix(pipName, "mooncake-transfer-engine") || strings.HasPrefix(pipName, "mooncake_transfer_engine"):
				ev.MooncakeVersion = m[1]
			case pipName == "sglang":
				ev.SGLangVersion = m[1]
			}
		}
		// pip's refusals name what was asked for or offered, not what
		// runs; what it fetches runs only if no refusal follows.
		if rePipRefused.MatchString(l.Text) {
			refused = true
			continue
		}
		if rePipFetch.MatchString(l.Text) {
			if fetched == "" {
				fetched = firstMatch(reMooncakeVer, l.Text)
			}
			continue
		}
		if ev.MooncakeVersion == "" {
			ev.MooncakeVersion = firstMatch(reMooncakeVer, l.Text)
		}
		if ev.SGLangVersion == "" {
			ev.SGLangVersion = firstMatch(reSGLangVer, l.Text)
		}
	}
	if ev.MooncakeVersion == "" && !refused {
		ev.MooncakeVersion = fetched
	}
	ev.Gaps = gaps(ev.Lines)
	ev.MooncakeRange = sourceRange(ev.Lines)
	return ev
}

func firstMatch(res []*regexp.Regexp, s string) string {
	for _, re := range res {
		if m := re.FindStringSubmatch(s); m != nil {
			return m[1]
		}
	}
	return ""
}

func clock(h, m, s string) time.Duration {
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	ss, _ := strconv.Atoi(s)
	return time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute + time.Duration(ss)*time.Second
}

// gaps finds waits of at least GapEvidence between a timed line and the
// next timed error line (glog E/F, an ERROR level, a traceback's end).
func gaps(lines []Line) []Gap {
	var out []Gap
	var prev *Line
	for i := range lines {
		l := &lines[i]
		if !l.timed {
			continue
		}
		if prev != nil && isError(*l) {
			d := l.At - prev.At
			if d < 0 {
				d += 24 * time.Hour // past midnight
			}
			if d >= GapEvidence {
				out = append(out, Gap{Seconds: int(d / time.Second), Before: *l})
			}
		}
		prev = l
	}
	return out
}

func isError(l Line) bool {
	return errorLine(l) || raised.MatchString(l.Text)
}

// KnownMooncakeVersion maps a stated version to one faultlab models:
// itself when known, else "" (a version the log states but no profile
// covers, e.g. a build from main, restricts nothing).
func KnownMooncakeVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if slices.Contains(mooncake.Versions, v) {
		return v
	}
	return ""
}

// Facts are the evidence the parser derived, as lines class patterns can
// match ("env MOONCAKE_PROTOCOL=rdma", "gap 33s before an error").
func (ev Evidence) Facts() []string {
	var out []string
	for _, k := range sortedKeys(ev.Env) {
		out = append(out, fmt.Sprintf("env %s=%s", k, ev.Env[k]))
	}
	for _, k := range sortedKeys(ev.Flags) {
		out = append(out, fmt.Sprintf("flag %s=%s", k, ev.Flags[k]))
	}
	for _, g := range ev.Gaps {
		out = append(out, fmt.Sprintf("gap %ds before an error", g.Seconds))
		// Whose error: a transfer's wait is not the master's.
		if sub := g.Before.Subsystem(); sub != "" {
			out = append(out, fmt.Sprintf("gap %ds before an error in %s", g.Seconds, sub))
		}
	}
	// What each line's source, errno, code and completion status say,
	// once each, in the order the log first says it.
	seen := map[string]bool{}
	for _, l := range ev.Lines {
		for _, f := range lineFacts(l) {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	for _, pkg := range foreignNativeImports(ev.Lines) {
		if f := "native import failed outside mooncake: " + pkg; !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	if ev.MooncakeVersion != "" {
		out = append(out, "mooncake version "+ev.MooncakeVersion)
	}
	if r := ev.MooncakeRange; !r.IsZero() {
		out = append(out, "mooncake source files of "+r.String())
	}
	if ev.SGLangVersion != "" {
		out = append(out, "sglang version "+ev.SGLangVersion)
	}
	return out
}

// Text is the log's lines with their logger prefixes stripped, one per
// line: what the catalog's expectations are matched against.
func (ev Evidence) Text() string {
	var b strings.Builder
	for _, l := range ev.Lines {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// reAdvice: a line telling the reader to set a variable ("set MC_X=1 to
// enable"), not a setting.
var reAdvice = regexp.MustCompile(`(?i)\b(?:set|export)\s+\w+=\S+\s+to\s`)

// A traceback's frame (`File "<path>", line N, in <scope>`) and an
// import statement's top-level package.
var (
	reFrame  = regexp.MustCompile(`^File "([^"]+)", line \d+`)
	reImport = regexp.MustCompile(`^(?:from|import)\s+([A-Za-z_]\w*)`)
	// The loader's texts through an ImportError or OSError (dlerror).
	reLoaderError = regexp.MustCompile(`(?:ImportError|OSError): .*(?:cannot open shared object file|undefined symbol: |version ` + "`" + `\S+' not found)`)
)

// foreignNativeImports are the packages other than Mooncake whose import
// failed on a native library (the loader's ImportError): the package of
// the last frame before the error, by its import statement or else by the
// directory under site-packages. A library missing for another package
// (infinistore beside LMCache, a CUDA extension) is not Mooncake's
// install, whatever library it names.
func foreignNativeImports(lines []Line) []string {
	var out []string
	pkg := ""
	for i, l := range lines {
		if m := reFrame.FindStringSubmatch(l.Text); m != nil {
			if strings.HasPrefix(m[1], "<") { // <frozen importlib._bootstrap>: the import machinery
				continue
			}
			pkg = packageOfPath(m[1])
			if i+1 < len(lines) {
				if im := reImport.FindStringSubmatch(lines[i+1].Text); im != nil {
					pkg = im[1]
				}
			}
			continue
		}
		if reLoaderError.MatchString(l.Text) && pkg != "" && !strings.HasPrefix(strings.ToLower(pkg), "mooncake") && !slices.Contains(out, pkg) {
			out = append(out, pkg)
		}
	}
	return out
}

// packageOfPath is the top-level package of a Python file: the directory
// under site-packages or dist-packages ("" for another path).
func packageOfPath(p string) string {
	for _, d := range []string{"/site-packages/", "/dist-packages/"} {
		if i := strings.LastIndex(p, d); i >= 0 {
			rest := p[i+len(d):]
			if j := strings.IndexByte(rest, '/'); j > 0 {
				return rest[:j]
			}
			return strings.TrimSuffix(rest, ".py")
		}
	}
	return ""
}
