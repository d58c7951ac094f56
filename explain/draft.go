package explain

import (
	"context"
	"fmt"
	"maps"
	"net"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// DraftOptions are new --from-log's settings.
type DraftOptions struct {
	// Name is the new scenario's name.
	Name string
	// Version is the Mooncake version the user gives ("" = the log's, or
	// the best match's).
	Version string
}

// Draft is a scenario drafted from a field log, or why none was written.
type Draft struct {
	// YAML is the scenario, set only when its run on the model reproduced
	// the log's error.
	YAML []byte
	// Based is the catalog scenario the draft started from.
	Based string
	// Version is the Mooncake version the draft runs at.
	Version string
	// Missing says what the draft's run did not reproduce (empty when
	// YAML is set).
	Missing []string
	// Diagnosis is explain's answer the draft started from.
	Diagnosis Diagnosis
}

// Written reports whether the draft reproduced the log and may be written.
func (d Draft) Written() bool { return len(d.YAML) > 0 }

// SchemaModeline makes editors with a YAML language server validate and
// complete the file against the scenario schema.
const SchemaModeline = "# yaml-language-server: $schema=" + scenarios.SchemaID

// logSettings are the MOONCAKE_* settings new applies from a field log
// onto the scenario it starts from: what the log states about the world
// (protocol, devices, sizes, the standalone switch). Addresses are the
// world's own ({{master}}...): a field address means nothing in a model.
var logSettings = []string{
	"MOONCAKE_PROTOCOL", "MOONCAKE_DEVICE", "MOONCAKE_GLOBAL_SEGMENT_SIZE",
	"MOONCAKE_LOCAL_BUFFER_SIZE", "MOONCAKE_STANDALONE_STORAGE",
}

var (
	reDevicesLine = regexp.MustCompile(`Using specified RDMA devices: ([\w,]+)`)
	reSegmentLine = regexp.MustCompile(`Mounting segment: (\d+) bytes`)
	reProtoLine   = regexp.MustCompile(`auto discovery is disabled for protocol: (tcp|rdma)\b`)
	reException   = regexp.MustCompile(`(?m)^(?:.*\s)?([A-Z]\w*(?:Error|Exception)): (.+)$`)
	reCode        = regexp.MustCompile(`(setup|register buffer)[^,]*, error code: (-?\d+)`)
)

// settingsFromLog reads the settings a log states: env dumps and command
// lines first, then the lines Mooncake prints about them - only when they
// all say the same (a log of several nodes may show several protocols).
func settingsFromLog(ev Evidence) map[string]string {
	s := map[string]string{}
	for _, k := range logSettings {
		if v, ok := ev.Env[k]; ok {
			s[k] = v
		}
	}
	text := ev.Text()
	// An IPv6 local hostname: the field's address means nothing in a
	// model, its family does (AF_INET lookups, bracket parsing) - the
	// draft runs on the IPv6 loopback.
	if h, ok := ev.Env["MOONCAKE_LOCAL_HOSTNAME"]; (ok && isIPv6Host(h)) || (!ok && reIPv6Server.MatchString(text)) {
		s["MOONCAKE_LOCAL_HOSTNAME"] = "[::1]"
	}
	for k, re := range map[string]*regexp.Regexp{"MOONCAKE_DEVICE": reDevicesLine, "MOONCAKE_GLOBAL_SEGMENT_SIZE": reSegmentLine, "MOONCAKE_PROTOCOL": reProtoLine} {
		if _, ok := s[k]; ok {
			continue
		}
		var vs []string
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			vs = append(vs, m[1])
		}
		if vs = slices.Compact(slices.Sorted(slices.Values(vs))); len(vs) == 1 {
			s[k] = vs[0]
		}
	}
	// Auto-discovery: Client::InitTransferEngine turns it on for rdma when
	// no device is named (client_service.cpp, v0.3.8 … v0.3.12.post1; its
	// two lines), and only TransferEngineImpl::init's auto-discovery branch
	// prints "Failed to install RDMA transport, type=" (the named devices'
	// path prints "... with specified devices"). Unless the log states the
	// switch or a device itself, the draft names none.
	_, statedDev := ev.Env["MOONCAKE_DEVICE"]
	_, statedAuto := ev.Env["MC_MS_AUTO_DISC"]
	if reAutoDiscovery.MatchString(text) && !reDevicesLine.MatchString(text) && !statedDev && !statedAuto {
		if p, ok := s["MOONCAKE_PROTOCOL"]; !ok || p == "rdma" {
			s["MOONCAKE_PROTOCOL"] = "rdma"
			s["MOONCAKE_DEVICE"] = unset
		}
	}
	return s
}

// unset is a setting the draft must not have (the scenario's own value
// removed).
const unset = "\x00unset"

var reAutoDiscovery = regexp.MustCompile(`Failed to install RDMA transport, type=rdma|Transfer engine auto discovery is enabled for protocol: (?i:rdma)|Set auto discovery ON by default for RDMA protocol`)

// ShowsError reports whether a log shows a failure: an exception, a
// death, an error line. Generous on purpose: it decides that a draft may
// never expect ok.
func ShowsError(log string, ev Evidence) bool {
	if raised.MatchString(log) || logSignal(log) != "" {
		return true
	}
	return slices.ContainsFunc(ev.Lines, errorLine)
}

// reErrorWords: a line that says something failed, or ends in an errno
// ("Bad address [14]").
var reErrorWords = regexp.MustCompile(`(?i)\b(failed|failure|error|errors|exception|timeout|timed out|refused|not found|not available|not allowed|cannot|unable)\b|\[\d+\]$`)

// errorLine: glog's E and F lines, any line whose words say it failed
// (a quoted message without its prefix, a warning ending in an errno), and
// one of Mooncake's error messages (mooncakeMessages) in other words
// ("Unsupported transport nvlink, please rebuild Mooncake").
func errorLine(l Line) bool {
	if healthyError(l.Text) {
		return false
	}
	if l.Level == "E" || l.Level == "F" || reErrorWords.MatchString(l.Text) {
		return true
	}
	if _, _, ok := failureEvent(l.Text); ok {
		return true
	}
	_, known := matchMessage(l.Text)
	return known
}

// healthyError: an error line Mooncake prints on a run that goes well,
// which says nothing of a failure. The dummy client asks mooncake_client
// for its optional hot-cache segment on every setup and logs the refusal
// at ERROR (dummy_client.cpp v0.3.12.post1:1395, main:1563); real
// 0.3.13.post1 prints it on every standalone setup that succeeds
// (models/client/dummy.go).
func healthyError(text string) bool {
	return strings.Contains(text, "Failed to receive hot cache fd, status=")
}

// failureEvents are Mooncake's INFO and WARNING lines that report a
// failure in words errorLine's would miss: a client expired by the master
// or by mooncake_client because it stopped pinging (master_service.cpp,
// real_client.cpp "client_id=…, action=client_expired"; 0.3.14's
// suspicion first), and a metrics summary whose window counted failed
// allocations while eviction freed nothing (master_metric_manager.cpp
// @v0.3.11+ "Eviction: Success/Attempts=0/649, AllocFail=12160",
// kvcache-ai/Mooncake#2187). The fragment is what a run must print.
var failureEvents = []struct {
	re             *regexp.Regexp
	fragment, file string
}{
	{regexp.MustCompile(`\baction=client_expired\b`), "action=client_expired", "master_service.cpp"},
	{regexp.MustCompile(`\baction=client_liveness_suspected\b`), "action=client_liveness_suspected", "master_service.cpp"},
	{regexp.MustCompile(`\bEviction: Success/Attempts=0/[1-9]\d*, AllocFail=[1-9]`), "Eviction: Success/Attempts=0/", "master_metric_manager.cpp"},
	// The master's reaper of SSD offloading tasks no FileStorage reported
	// (WARNING: the key never reached SSD; master_service.cpp v0.3.10
	// :1896 … v0.3.11.post1 :3345, v0.3.12.post1 :5836 with " tenant=").
	{regexp.MustCompile(`^Offloading task expired for key: \S+`), "Offloading task expired for key", "master_service.cpp"},
	// An RDMA endpoint's QPs destroyed or reset with work requests still
	// posted: their completions are lost (rdma_endpoint.cpp deconstruct /
	// disconnectUnlocked, WARNING, v0.3.4 … v0.3.12.post1; before PR 1903
	// the destruction a concurrent ibv_post_send crashes on).
	{regexp.MustCompile(`\bOutstanding work requests found, CQ will not be generated\b`), "Outstanding work requests found, CQ will not be generated", "rdma_endpoint.cpp"},
	// jsoncpp's exception escaping a transfer-engine thread (the P2P
	// handshake daemon's metadata callback up to 0.3.8.post1, PR 1373):
	// std::terminate's own stderr line before the abort, the only line
	// such a death prints.
	{regexp.MustCompile(`^terminate called after throwing an instance of 'Json::LogicError'`), "terminate called after throwing an instance of 'Json::LogicError'", "transfer_metadata.cpp"},
}

// failureEvent is the line's failure event: its fragment and file.
func failureEvent(text string) (string, string, bool) {
	for _, f := range failureEvents {
		if f.re.MatchString(text) {
			return f.fragment, f.file, true
		}
	}
	return "", "", false
}

// quote is an error line the log quotes that Mooncake printed, as the
// fragment a run's log can contain, and the file that prints it.
type quote struct{ Text, File, Line string }

// reKVTransferError is SGLang PD's KVTransferError as its schedulers log
// it ("Decode transfer failed for request … with exception
// KVTransferError(bootstrap_room=R): <reason>", decode.py, prefill.py), or
// as a report shortens it ("KVTransferError: <reason>"): the schedulers
// catch it (failure_exception) and abort the request, so it never ends a
// traceback.
var reKVTransferError = regexp.MustCompile(`KVTransferError(?:\(bootstrap_room=\d+\))?: ([^"\n]+)`)

// pdReasons are the failure reasons of SGLang PD's KV manager a log quotes
// (REAL-FINDINGS §74: "Failed to send kv chunk of R to H:P", "Failed to
// get kvcache from prefill instance, it might be dead"), each up to its
// first word with a digit (the room, an address): what a world whose te
// transfer is the KV manager's (pd: true) prints when it fails.
func pdReasons(log string) []quote {
	var out []quote
	for _, m := range reKVTransferError.FindAllStringSubmatch(log, -1) {
		var words []string
		for _, w := range strings.Fields(m[1]) {
			if strings.ContainsAny(w, "0123456789") {
				break
			}
			words = append(words, w)
		}
		text := strings.TrimRight(strings.Join(words, " "), " ,.:(")
		if len(text) >= 16 && !slices.ContainsFunc(out, func(q quote) bool { return q.Text == text }) {
			out = append(out, quote{Text: text, Line: strings.TrimSpace(m[0])})
		}
	}
	return out
}

// quotedErrors are the error lines Mooncake printed that a log quotes, as
// fragments a run's log can contain (mooncakeLine says which lines are
// Mooncake's: the caller's own lines, traceback source and the body of a
// multi-line exception are not, and a death line is expect.dies). A line
// of a known message family (mooncakeMessages) gives the longest literal
// part of its format string, or its errno; any other line its longest run
// of words without an address, a number or an id (the field's, not the
// model's); an errno ("[12]") stays, it names the error, and a run ending
// in one wins ("...: Cannot allocate memory [12]"); else the longest, the
// later on a tie.
func quotedErrors(ev Evidence) []quote {
	var out []quote
	afterFrame := false
	for _, l := range ev.Lines {
		frame := afterFrame
		afterFrame = strings.HasPrefix(l.Text, "File \"")
		_, _, assert := mooncakeAssert(l.Text)
		// A failed assert is the death and the line that says which
		// check failed: both expect.dies and a line to check.
		if !errorLine(l) || !mooncakeLine(l, frame) || (deathLine(l.Text) != "" && !assert) {
			continue
		}
		out = addQuote(out, l)
	}
	return out
}

// quotedWarnings are the log's Mooncake warnings (glog's W lines), as
// quotedErrors quotes errors.
func quotedWarnings(ev Evidence) []quote {
	var out []quote
	for _, l := range ev.Lines {
		if l.Level == "W" && mooncakeLine(l, false) {
			out = addQuote(out, l)
		}
	}
	return out
}

// addQuote adds l's fragment to out, unless it is too short to tell a
// line by or out has it.
func addQuote(out []quote, l Line) []quote {
	best, file := fragment(l)
	if len(best) >= 12 && !slices.ContainsFunc(out, func(q quote) bool { return q.Text == best }) {
		out = append(out, quote{best, file, l.Text})
	}
	return out
}

// failing: a world's expectation is a failure (an exception, a death, a
// failing code).
func failing(e scenarios.Expect) bool {
	return (e.OK == nil || !*e.OK) && ExpectsFailure(scenarios.Expect{Raises: e.Raises, Dies: e.Dies, Codes: e.Codes})
}

// fragment is a Mooncake line's most telling part a run can print, and
// the file that prints it.
func fragment(l Line) (string, string) {
	// ld.so's line for a Mooncake program: from the program's name on,
	// the library included (it names the cause; the path is the field's).
	if m := reLoaderLine.FindStringSubmatch(l.Text); m != nil {
		return m[1], "ld.so"
	}
	if m := reLoaderVersion.FindStringSubmatch(l.Text); m != nil {
		return m[1], "ld.so"
	}
	if a, file, ok := mooncakeAssert(l.Text); ok {
		return a, file
	}
	file := l.File()
	if f, printer, ok := failureEvent(l.Text); ok {
		if file == "." || file == "" {
			file = printer
		}
		return f, file
	}
	best, bestErrno := "", false
	consider := func(f string, errno bool) {
		f = strings.Trim(f, ":,;=() ")
		if (errno && !bestErrno) || (errno == bestErrno && len(f) >= len(best)) {
			best, bestErrno = f, errno
		}
	}
	// A warning's errno is whatever the last failed call left
	// (PLOG(WARNING) after a size check); an error's is its own.
	ownErrno := l.Level != "W" && l.Level != "I"
	if m, ok := matchMessage(l.Text); ok {
		if file == "." || file == "" {
			file = m.file
		}
		for _, p := range m.literals {
			consider(p, false)
		}
		for _, v := range m.errnos {
			consider(v, ownErrno && (reErrnoEnd.MatchString(v) || strerrorEnd(v)))
		}
		return best, file
	}
	if file == "." {
		file = ""
	}
	var run []string
	flush := func() {
		f := strings.Trim(strings.Join(run, " "), ":,;=() ")
		if len(f) >= 12 || best == "" {
			consider(f, ownErrno && len(run) > 1 && reErrno.MatchString(run[len(run)-1]) && len(f) >= 12)
		}
		run = nil
	}
	for _, w := range strings.Fields(l.Text) {
		// An ellipsis is the poster's cut ("Process failed for slice
		// (... retry_cnt: 0)"): the words either side of it were not
		// printed next to each other.
		if strings.ContainsAny(w, "0123456789") && !reErrno.MatchString(w) || strings.Contains(w, "...") || strings.Contains(w, "…") {
			flush()
			continue
		}
		run = append(run, w)
	}
	flush()
	return best, file
}

var reErrnoEnd = regexp.MustCompile(`\S \[\d+\]$`)

// strerrorEnd: v ends in an errno's strerror text (asio's "connect:
// Cannot assign requested address").
func strerrorEnd(v string) bool {
	return slices.ContainsFunc(errnos, func(e faults.Errno) bool { return strings.HasSuffix(v, ": "+e.Text) })
}

// reLoaderLine is ld.so's "%s: error while loading shared libraries: %s:
// %s" (glibc elf/dl-load.c) for one of Mooncake's programs: printed in its
// process before main, by no logger.
var reLoaderLine = regexp.MustCompile(`(?:^|/)((?:mooncake_\w+|transfer_engine_bench): error while loading shared libraries: \S+: cannot open shared object file(?:: No such file or directory)?)`)

// reLoaderVersion is ld.so's line for one of Mooncake's programs that
// needs a version its host's library lacks ("%s: %s: version `%s' not
// found (required by %s)", glibc elf/dl-version.c): the version (the
// library's path is the field's distribution's).
var reLoaderVersion = regexp.MustCompile("(?:^|/)(?:mooncake_\\w+|transfer_engine_bench): \\S+: (version `[^']+' not found)")

// reMissingLib is the library in dlerror()'s "%s: cannot open shared
// object file" (ld.so's line of a program, Python's ImportError of a
// module).
var reMissingLib = regexp.MustCompile(`(lib[\w.+-]+\.so[.\d]*): cannot open shared object file`)

// retargetLib rewrites "<lib>: cannot open shared object file" of the
// libraries from in n's scalars to to.
func retargetLib(n *yaml.Node, from []string, to string) {
	if n.Kind == yaml.ScalarNode {
		for _, l := range from {
			n.Value = strings.ReplaceAll(n.Value, l+": cannot open shared object file", to+": cannot open shared object file")
		}
	}
	for _, c := range n.Content {
		retargetLib(c, from, to)
	}
}

// reRegMR is rdma_context.cpp's PLOG of a failed ibv_reg_mr: "Failed to
// register memory <addr>: <strerror> [<errno>]" (v0.3.4 … v0.3.12.post1).
var reRegMR = regexp.MustCompile(`Failed to register memory (?:0x)?[0-9a-fA-F]+: [^\[\]]+ \[(\d+)\]`)

// regMRErrnoFromLog is the errno the log's failed ibv_reg_mr names, when a
// reg_mr fault can give it.
func regMRErrnoFromLog(log string) (faults.Errno, bool) {
	m := reRegMR.FindStringSubmatch(log)
	if m == nil {
		return faults.Errno{}, false
	}
	n, _ := strconv.Atoi(m[1]) // \d+
	e, ok := faults.ErrnoNumbered(n)
	return e, ok && slices.Contains(faults.RegMRErrnos, e.Name)
}

// reFailedSlice is the worker pool's failed work completion, "Worker:
// Process failed for slice (… retry_cnt: %d[, max_retry_cnt: %d]): %s"
// with ibv_wc_status_str's text (worker_pool.cpp v0.3.9:291,
// v0.3.12.post1:606-616).
var reFailedSlice = regexp.MustCompile(`Process failed for slice \(.*\): ([A-Za-z][A-Za-z ]+?)\.?\s*$`)

// wcStatusFromLog is the first work-completion status the log's failed
// slices name that an rdma fault can inject.
func wcStatusFromLog(log string) (faults.WCStatus, bool) {
	for _, l := range strings.Split(log, "\n") {
		m := reFailedSlice.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if i := slices.IndexFunc(faults.WCStatuses, func(st faults.WCStatus) bool { return st.Text == m[1] }); i >= 0 {
			return faults.WCStatuses[i], true
		}
	}
	return faults.WCStatus{}, false
}

// retargetWCStatus makes the draft's rdma faults that fail work requests
// with a status fail them with the log's.
func retargetWCStatus(root *yaml.Node, st faults.WCStatus) {
	fs := lookup(root, "faults")
	if fs == nil {
		return
	}
	for _, f := range fs.Content {
		kind, mode := lookup(f, "kind"), lookup(f, "mode")
		if kind == nil || mode == nil || kind.Value != string(faults.RDMA) {
			continue
		}
		if _, ok := faults.WCStatusOf(mode.Value); ok && mode.Value != faults.ModePortDown {
			mode.Value = st.Mode
		}
	}
}

// libsFromLog: the native libraries the log's loader could not find that
// some measured wheel needs (mooncake.KnownLibs), in the log's order.
func libsFromLog(log string) []string {
	var out []string
	known := mooncake.KnownLibs()
	for _, m := range reMissingLib.FindAllStringSubmatch(log, -1) {
		if slices.Contains(known, m[1]) && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// reAssertLine is glibc's assert() failure, "%s%s%s:%u: %s%sAssertion `%s'
// failed." (assert/assert.c: the program, the file, the line, the
// function): printed by no logger, then abort(). The wheels keep their
// asserts (real 0.3.11.post1, file_storage.cpp).
var reAssertLine = regexp.MustCompile("^\\S+: (\\S+\\.(?:cpp|cc|h|hpp)):\\d+: .*(Assertion `.+' failed\\.)$")

// mooncakeAssert is an assert line of Mooncake's source: its fragment
// (the assertion, which names the check) and its file.
func mooncakeAssert(text string) (string, string, bool) {
	m := reAssertLine.FindStringSubmatch(text)
	if m == nil || !strings.Contains(strings.ToLower(m[1]), "mooncake") {
		return "", "", false
	}
	return m[2], path.Base(m[1]), true
}

// mooncakeLine reports whether Mooncake printed the line: a glog or
// easylog line of a C++ file (Mooncake, its RPC library), or a line
// without a logger's prefix that is one of Mooncake's messages (its
// subsystem's message prefixes, a known message family). Python loggers'
// lines (SGLang, vLLM, LMCache: the caller's), traceback source lines
// (afterFrame: the line after a `File "..."` frame, or a `raise`
// statement) and the exception with the lines of its message are not.
func mooncakeLine(l Line, afterFrame bool) bool {
	switch l.logger {
	case "glog", "easylog":
		return !strings.HasSuffix(strings.SplitN(l.Source, ":", 2)[0], ".py")
	case "":
		if afterFrame || strings.HasPrefix(l.Text, "raise ") || strings.HasPrefix(l.Text, "File \"") ||
			strings.HasPrefix(l.Text, "Traceback") || raised.MatchString(l.Text) {
			return false
		}
		_, known := matchMessage(l.Text)
		_, _, assert := mooncakeAssert(l.Text)
		_, _, event := failureEvent(l.Text)
		return known || assert || event || l.Subsystem() != "" || reLoaderLine.MatchString(l.Text) || reLoaderVersion.MatchString(l.Text)
	}
	return false
}

// deathLine is the signal a line says the process died of ("" = none):
// Python's faulthandler, glog's CHECK/FATAL trailer, the shell's report.
func deathLine(text string) string {
	for _, d := range deathLines {
		if d.re.MatchString(text) {
			return d.sig
		}
	}
	return ""
}

var deathLines = []struct {
	re  *regexp.Regexp
	sig string
}{
	{regexp.MustCompile(`^Fatal Python error: Segmentation fault|^Segmentation fault\b|\bSIGSEGV\b`), "SIGSEGV"},
	// glog prints this trailer after a FATAL line or a failed CHECK, then
	// abort()s.
	{regexp.MustCompile(`^\*\*\* Check failure stack trace: \*\*\*|^Fatal Python error: Aborted|^Aborted\b|\bSIGABRT\b`), "SIGABRT"},
	{reAssertLine, "SIGABRT"},
	{reMallocAbort, "SIGABRT"},
}

// reMallocAbort is glibc's malloc_printerr (malloc/malloc.c): a heap found
// corrupt (a bad free, a double free, an overwritten chunk) is reported on
// stderr, then abort(). Older glibc wraps it in "*** Error in `prog': … ***".
var reMallocAbort = regexp.MustCompile(`^(?:\*\*\* Error in ` + "`" + `[^']*': )?(?:(?:free|malloc|realloc|calloc|munmap_chunk|malloc_consolidate|_int_free|_int_malloc|tcache_thread_shutdown)\(\): \S.*|double free or corruption \(\S+\)|corrupted size vs\. prev_size|corrupted double-linked list)`)

// message is one of Mooncake's messages matched in a line: the literal
// parts of its format string, the values its errno slots took, and the
// file that prints it.
type message struct {
	literals, errnos []string
	file             string
}

// mooncakeMessages are format strings of Mooncake's error messages (from
// the source at the tags; {} a value, {errno} PLOG's strerror and number
// when the errno is the failed call's own): they tell a line without its
// logger prefix as Mooncake's, and cut it at its values, words or not (a
// plugin's name, a device's). A message whose errno is incidental (PLOG
// after getaddrinfo, which returns its error instead of setting errno)
// has a plain {} there.
var mooncakeMessages = func() []struct {
	re       *regexp.Regexp
	literals []string
	errnos   []int
	file     string
} {
	type fam struct{ format, file string }
	fams := []fam{
		// transfer_metadata.cpp, transfer_metadata_plugin.cpp (v0.3.4 … v0.3.12.post1)
		{"Failed to set location of {}", "transfer_metadata.cpp"},
		{"Failed to register segment descriptor, name {}", "transfer_metadata.cpp"},
		{"Failed to retrieve segment descriptor, name {}", "transfer_metadata.cpp"},
		{"Failed to re-publish RPC meta entry for {}", "transfer_metadata.cpp"},
		{"Unexpected code in http response, {} response code: {}", "transfer_metadata_plugin.cpp"},
		{"Unable to find metadata storage plugin {} with conn string: {}", "transfer_metadata_plugin.cpp"},
		{"SocketHandShakePlugin: failed to get IP address of peer server {}, check DNS and /etc/hosts, or use IPv4 address instead{}", "transfer_metadata_plugin.cpp"},
		// rdma_context.cpp, rdma_transport.cpp, transfer_engine_impl.cpp
		{"Failed to register memory {}: {errno}", "rdma_context.cpp"},
		{"Failed to open device {} on port {} with GID {}", "rdma_context.cpp"},
		{"Failed to query GID {} on {}: {errno}", "rdma_context.cpp"},
		// rdma_endpoint.cpp (v0.3.4 … v0.3.12.post1): an endpoint's
		// ibv_create_qp failed.
		{"Failed to create QP: {errno}", "rdma_endpoint.cpp"},
		{"Failed to install RDMA transport with specified devices", "client_service.cpp"},
		{"Failed to install RDMA transport, type={}", "transfer_engine_impl.cpp"},
		// client_service.cpp, real_client.cpp (v0.3.8 …), transfer_task.cpp, store_py.cpp
		{"Failed to initialize transfer engine, rc={}", "client_service.cpp"},
		{"Failed to create client on port {}, retry {}", "real_client.cpp"},
		{"Failed to create client after {} retries", "real_client.cpp"},
		{"Failed to mount segment: {}", "real_client.cpp"},
		{"Failed to end put operation: {}", "client_service.cpp"},
		{"Put operation failed with error: {}", "real_client.cpp"},
		{"Get failed for key: {} with error: {}", "real_client.cpp"},
		{"Transfer failed for batch {} task {} with status {}", "transfer_task.cpp"},
		{"Retry: failed to re-publish RPC meta entry to metadata server, rc={}", "client_service.cpp"},
		// multi_transport.cpp, nvlink_transport.cpp (v0.3.7 … v0.3.12.post1)
		{"Unsupported transport {}, please rebuild Mooncake", "multi_transport.cpp"},
		{"NvlinkTransport: cuMemCreate failed: {}", "nvlink_transport.cpp"},
		// registerLocalMemory of a GPU transport given memory of another
		// kind: hip_transport.cpp v0.3.8 … v0.3.11.post1 (the NVLink
		// transports print it too, with their own file).
		{"Unsupported memory type, {} {}", "hip_transport.cpp"},
		// tcp_transport.cpp (v0.3.10 …): getConnection's connect, asio's
		// "connect: <strerror>" (no errno number: the text names it).
		{"TcpTransport::getConnection failed to create connection to {}. Error: {errno}", "tcp_transport.cpp"},
		// file_storage.cpp, storage_backend.cpp (SSD offload, v0.3.8.post1 … v0.3.11.post1)
		{"BatchQuerySlices failed with error: {}", "file_storage.cpp"},
		{"Key not found: {}", "file_storage.cpp"},
		// OffloadObjects and Heartbeat after a bucket's BatchOffload failed
		// (v0.3.11.post1 :467, :519; v0.3.12.post1 :624, :844; 3b5a594 :736)
		{"Failed to store objects with error: {}", "file_storage.cpp"},
		{"Failed to persist objects with error: {}", "file_storage.cpp"},
		// dummy_client.cpp invoke_batch_rpc (v0.3.9 …): mooncake_client's
		// handler threw; replica.h's "Expected DiskDescriptor" is a whole
		// message (kvcache-ai/Mooncake#2011), not a value.
		{"Batch RPC call failed: Expected DiskDescriptor", "dummy_client.cpp"},
	}
	out := make([]struct {
		re       *regexp.Regexp
		literals []string
		errnos   []int
		file     string
	}, len(fams))
	reSlot := regexp.MustCompile(`\{(errno)?\}`)
	for i, f := range fams {
		lits := reSlot.Split(f.format, -1)
		slots := reSlot.FindAllString(f.format, -1)
		var b strings.Builder
		b.WriteString("^")
		for j, lit := range lits {
			b.WriteString(regexp.QuoteMeta(lit))
			if j < len(slots) {
				if slots[j] == "{errno}" {
					out[i].errnos = append(out[i].errnos, j)
				}
				b.WriteString("(.*?)")
			}
		}
		if len(slots) == len(lits)-1 && strings.HasSuffix(f.format, "}") {
			b.WriteString("$")
		}
		out[i].re = regexp.MustCompile(b.String())
		out[i].literals, out[i].file = lits, f.file
	}
	return out
}()

// matchMessage finds the line's Mooncake message family.
func matchMessage(text string) (message, bool) {
	for _, f := range mooncakeMessages {
		m := f.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		msg := message{literals: f.literals, file: f.file}
		for _, j := range f.errnos {
			msg.errnos = append(msg.errnos, m[j+1])
		}
		return msg, true
	}
	return message{}, false
}

var reErrno = regexp.MustCompile(`^\[\d+\]$`)

// reIPv6Server: Mooncake's own lines naming an IPv6 local server name
// (parseHostNameWithPort, the P2P listener).
var reIPv6Server = regexp.MustCompile(`(?:server_name: |listening on )\[?[0-9a-fA-F]*:[0-9a-fA-F:]*:[0-9a-fA-F]*\]?[: ]`)

// isIPv6Host: "[v6]", "[v6]:port" or a bare v6 address.
func isIPv6Host(h string) bool {
	if strings.HasPrefix(h, "[") {
		if i := strings.Index(h, "]"); i > 0 {
			h = h[1:i]
		}
	}
	return strings.Contains(h, ":") && net.ParseIP(h) != nil
}

// DraftFromLog drafts a scenario for a field log: the whole scenario of
// the best catalog cause (topology, config, env, storage, SGLang side,
// faults, steps, remedy), the settings the log states applied onto it, and
// the log's outcome as expect. It runs the draft on eng (a model engine)
// and returns YAML only when the run ends in the log's error - its
// exception text and the Mooncake error lines it quotes; otherwise Missing
// says what the run did not reproduce. A log that shows an error never
// gets an expect of ok.
func DraftFromLog(ctx context.Context, catalog []*scenarios.Scenario, fp Fingerprints, eng engine.Engine, log string, opt DraftOptions) Draft {
	var dr Draft
	diag, err := Diagnose(catalog, fp, log, opt.Version)
	dr.Diagnosis, log = diag, diag.text
	if err != nil {
		dr.Missing = []string{err.Error()}
		return dr
	}
	ev := diag.Evidence
	// The scenario causes in rank order: the best first; one the model
	// cannot run (a container world) or does not reproduce gives way to
	// the next.
	// A class's worlds (the scenarios it lists) are tried where the class
	// ranks: the run decides whether one reproduces the log.
	var tried []Cause
	try := func(c Cause) {
		if len(tried) < MaxDraftTries && find(catalog, c.Name) != nil &&
			!slices.ContainsFunc(tried, func(t Cause) bool { return t.Name == c.Name }) {
			tried = append(tried, c)
		}
	}
	cls, _ := Classes()
	for _, c := range append(append([]Cause{}, diag.Causes...), diag.Nearest...) {
		if c.Kind == "scenario" {
			try(c)
			continue
		}
		if i := slices.IndexFunc(cls, func(x Class) bool { return x.Name == c.Name }); i >= 0 && cls[i].LinkWhenScored {
			// Still a class: the log has none of its world's own lines,
			// and the world is only one of its failures.
			continue
		}
		for _, name := range c.Reproduce {
			try(Cause{Kind: "scenario", Name: name, Cause: c.Cause})
		}
	}
	if len(tried) == 0 {
		dr.Missing = []string{"no catalog scenario explains this log, so there is no world to start from"}
		if top, ok := diag.Top(); ok {
			dr.Missing = append(dr.Missing, fmt.Sprintf("explain's best cause is the field class %s: %s", top.Name, top.Cause))
		}
		for _, c := range diag.Nearest {
			dr.Missing = append(dr.Missing, "nearest: "+c.String())
		}
		return dr
	}
	for _, based := range tried {
		sc := find(catalog, based.Name)
		// The version: the user's or the log's; else the one the catalog
		// match was at; else each of the scenario's, newest first, until
		// the model reproduces the log.
		versions := []string{diag.MooncakeVersion}
		if diag.MooncakeVersion == "" {
			versions = draftVersions(sc, based.Version, ev.MooncakeRange)
		}
		var first []string
		// A log whose caller is not SGLang's store (an LMCache or vLLM
		// connector, Mooncake's own Python API): the cause is the same,
		// only the caller differs - the world's SGLang starts become an
		// integration's own store. First when the log shows another caller
		// (SGLang's exception is then no outcome of it); else when SGLang's
		// draft does not reproduce the log (a release whose setup SGLang's
		// newest call does not fit).
		asIntegration := !sglangStoreLog(ev) && initsOnly(sc)
		otherFirst := asIntegration && otherCallerLog(ev)
		for _, v := range versions {
			var out []byte
			var missing []string
			if otherFirst {
				out, _ = draftAt(ctx, fp, sc, &based, eng, log, ev, opt.Name, v, true)
			}
			if out == nil {
				out, missing = draftAt(ctx, fp, sc, &based, eng, log, ev, opt.Name, v, false)
			}
			if out == nil && asIntegration && !otherFirst {
				out, _ = draftAt(ctx, fp, sc, &based, eng, log, ev, opt.Name, v, true)
			}
			if out != nil {
				dr.YAML, dr.Based, dr.Version, dr.Missing = out, sc.Name, v, nil
				return dr
			}
			if first == nil {
				first = missing
			}
		}
		if dr.Based == "" {
			dr.Based, dr.Version = sc.Name, versions[0]
		}
		dr.Missing = append(dr.Missing, first...)
		if len(versions) > 1 {
			dr.Missing = append(dr.Missing, fmt.Sprintf("(also tried %s at %s: none reproduced the log)", sc.Name, strings.Join(versions[1:], ", ")))
		}
	}
	return dr
}

// draftVersions are the versions a draft of sc is tried at when the log
// states none: the catalog match's first, then the scenario's own
// versions, then the other releases its constraints admit ("*"), newest
// first; those in the range the log's source files imply before the rest,
// at most MaxDraftVersions.
func draftVersions(sc *scenarios.Scenario, first string, r Range) []string {
	own, _ := sc.Versions("")
	own = slices.Clone(own)
	slices.SortFunc(own, func(a, b string) int { return mooncake.MustVersion(b).Compare(mooncake.MustVersion(a)) })
	var more []string
	for _, v := range slices.Backward(mooncake.Versions) {
		if slices.Contains(own, v) {
			continue
		}
		if _, ok := sc.Versions(v); ok {
			more = append(more, v)
		}
	}
	var in, out []string
	for _, v := range append(own, more...) {
		if !r.IsZero() && !r.Contains(v) {
			out = append(out, v)
		} else {
			in = append(in, v)
		}
	}
	vs := []string{}
	if first != "" {
		vs = append(vs, first)
	}
	for _, v := range append(in, out...) {
		if !slices.Contains(vs, v) && len(vs) < MaxDraftVersions {
			vs = append(vs, v)
		}
	}
	return vs
}

// MaxDraftVersions bounds the versions one scenario is tried at.
const MaxDraftVersions = 6

// MaxDraftTries is how many of explain's scenario causes new tries, best
// first, before it gives up.
const MaxDraftTries = 3

// draftAt builds the draft at one version and runs it; the YAML when the
// run ends in the log's error, else what it did not reproduce.
//
// asIntegration: the world's SGLang starts (its init steps) become an
// integration's own store on the node (a put step: setup from the node's
// MOONCAKE_* settings, then a put), and the expectation is the log's
// alone, not the scenario's SGLang outcome.
func draftAt(ctx context.Context, fp Fingerprints, sc *scenarios.Scenario, based *Cause, eng engine.Engine, log string, ev Evidence, name, version string, asIntegration bool) ([]byte, []string) {
	src, err := scenarios.SourceOf(sc)
	if err != nil {
		return nil, []string{err.Error()}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, []string{fmt.Sprintf("catalog %s: %v", sc.Name, err)}
	}
	root := doc.Content[0]
	if name == "" {
		name = "field/from-log"
	}
	setKey(root, "name", scalar(name))
	for _, k := range []string{"refs", "by_version", "by_sglang", "engines"} {
		setKey(root, k, nil)
	}
	setKey(root, "summary", scalar("Field report: "+firstLine(log)))
	labels := []string{"field"}
	if sc.HasLabel(scenarios.LabelNeedsGPU) { // the loader requires it of a world with GPUs
		labels = append(labels, scenarios.LabelNeedsGPU)
	}
	if sc.HasLabel(scenarios.LabelNeedsAscend) { // and of one with NPUs
		labels = append(labels, scenarios.LabelNeedsAscend)
	}
	setKey(root, "labels", node(labels))
	setKey(root, "mooncake", mapping("versions", []string{version}))
	config := child(root, "config")
	env := child(config, "env")
	settings := settingsFromLog(ev)
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		if settings[k] == unset {
			setKey(env, k, nil)
		} else {
			setKey(env, k, scalar(settings[k]))
		}
	}
	if len(env.Content) > 0 {
		setKey(config, "env", env)
	}
	setKey(root, "config", config)
	var regErrno faults.Errno
	libs := libsFromLog(log)
	swapLibs := len(libs) > 0 && len(sc.Topology.MissingLibs) > 0
	if swapLibs {
		// The world withholds a library: the one the log's loader names.
		setKey(child(root, "topology"), "missing_libs", node(libs))
	}

	if m := sc.Topology.Master; m != nil {
		// The world holds one of the master's HTTP ports: the log's.
		retargetHeldPort(root, "metrics_port", m.MetricsPort, portFromLog(log, reMetricsPort))
		retargetHeldPort(root, "http_metadata_port", m.HTTPMetadataPort, portFromLog(log, reMetadataPort))
	}

	if en, ok := regMRErrnoFromLog(log); ok && prints(fp, nil, Cause{Name: sc.Name, Version: version}, "Failed to register memory") {
		// The world fails ibv_reg_mr for its own cause; the log's kernel
		// said another errno, which Mooncake's path does not look at: the
		// registrations the world fails report the log's (rdma-context
		// reg_mr, scope failing).
		fs := child(root, "faults")
		fs.Kind = yaml.SequenceNode
		for _, n := range sc.Topology.Nodes {
			if len(n.NIC.RDMA) > 0 {
				fs.Content = append(fs.Content, flowMapping("at", "0s", "kind", string(faults.RDMAContext), "target", n.Name, "mode", faults.ModeRegMR, "errno", en.Name, "scope", faults.RegMRFailing))
			}
		}
		if len(fs.Content) > 0 {
			setKey(root, "faults", fs)
			// The world's remedy fixes its own cause, not the log's
			// refusal: it would pass only because the fault is cleared.
			setKey(root, "remedy", nil)
			regErrno = en
		}
	}
	if st, ok := wcStatusFromLog(log); ok {
		// The world fails work requests for its own cause: with the
		// status the log's slices failed with.
		retargetWCStatus(root, st)
	}
	if steps := lookup(root, "steps"); steps != nil {
		callLogMethod(steps, log)
		if asIntegration {
			initsAsPuts(steps)
		}
	}
	if asIntegration {
		setKey(root, "remedy", nil) // its expectation is SGLang's start
	}

	base := sc
	if asIntegration {
		base = &scenarios.Scenario{Name: sc.Name}
	}
	exp, quoted, why := expectFromLog(log, ev, base, version)
	if exp == nil {
		return nil, []string{why}
	}
	if swapLibs {
		// An outcome kept from the world names its library: the log's now.
		retargetLib(exp, sc.Topology.MissingLibs, libs[0])
	}
	setKey(root, "expect", exp)
	root.HeadComment = fmt.Sprintf("based on %s (faultlab explain's best catalog cause, %.1f points): %s", sc.Name, based.Points, based.Cause)
	if regErrno.Name != "" {
		root.HeadComment += fmt.Sprintf("\nthe log's ibv_reg_mr failed with %s (%s): the registrations the world fails report it (rdma-context reg_mr, scope failing), and the world's remedy, which fixes its own cause, is left out", regErrno.Name, regErrno.PLOG())
	}
	if d := child(exp, "dies"); slices.ContainsFunc(d.Content, func(n *yaml.Node) bool { return n.Value == "reason" }) {
		// The crashing function is the model's to say; the real engine
		// reports the signal and Mooncake's last line only.
		setKey(root, "engines", node([]string{"sim", "fake"}))
		root.HeadComment += "\nthe log's backtrace names where it died: sim and fake only (the real engine reports no frame)"
	}
	if !ShowsError(log, ev) {
		root.HeadComment += fmt.Sprintf("\nthe log shows no failure, only what led to it: the run prints its warnings, then fails as %s does", sc.Name)
	}
	if in := lookup(child(exp, "dies"), "in"); in != nil && lookup(exp, "logs") == nil {
		_, frame := deathCall(log)
		root.HeadComment += fmt.Sprintf("\nthe log shows only its process dying in %s (its faulthandler dump): the run dies in %s too; any cause that dies so fits the log as well as this one", frame, scenarios.CallText(in.Value))
	}
	if asIntegration {
		root.HeadComment += "\nthe log's caller is not SGLang's store: its init steps are an integration's own store (put: setup, then a page), and the world's remedy, which SGLang's start checks, is left out"
	}
	if ev.SGLangVersion != "" {
		root.HeadComment += "\nthe log states SGLang " + ev.SGLangVersion
	}
	out, draft, err := encodeDraft(root, name)
	if err != nil {
		return nil, []string{err.Error()}
	}
	// A pasted log reports a failure: a draft that ends ok reproduces
	// none, whatever lines it matches (a log of warnings only, cut before
	// the failure, is drafted from a world that recovers).
	if e := draft.Expect; e.OK != nil && *e.OK {
		if ShowsError(log, ev) {
			return nil, []string{"refusing a draft that expects ok for a log that shows an error (a faultlab bug)"}
		}
		return nil, []string{fmt.Sprintf("the log shows no failure (no exception, death or error line) and %s ends ok: nothing to reproduce; paste the lines where it fails", sc.Name)}
	}
	rs := scenarios.Run(ctx, draft, eng, scenarios.Options{Seed: 1, Version: version})
	if len(rs) == 0 {
		return nil, []string{"the draft did not run"}
	}
	// Every SGLang release the draft names must end in the log's error:
	// of a world that models several, the draft keeps those that do (a
	// release with the fix would be a red run of a written draft).
	var pass []string
	r := rs[0]
	for _, x := range rs {
		if x.Verdict == scenarios.Pass {
			pass = append(pass, x.SGLangVersion)
		} else if r.Verdict == scenarios.Pass {
			r = x
		}
	}
	if len(pass) == len(rs) {
		return out, nil
	}
	if len(pass) > 0 && len(sc.SGLang.Versions) > 0 && !slices.Contains(pass, "") {
		sg := child(root, "sglang")
		seq := node(pass)
		seq.Style = yaml.FlowStyle
		setKey(sg, "versions", seq)
		setKey(root, "sglang", sg)
		root.HeadComment += fmt.Sprintf("\nSGLang %s only: at %s the world does not end in the log's error", strings.Join(pass, ", "), r.SGLangVersion)
		if out, _, err := encodeDraft(root, name); err == nil {
			return out, nil
		}
	}
	missing := []string{fmt.Sprintf("%s with the log's settings at Mooncake %s on %s did not end in the log's error: %s %s", sc.Name, version, eng.Name(), r.Verdict, Humanize(r.Reason))}
	if ex := r.Observed.Exception; ex != nil {
		missing = append(missing, fmt.Sprintf("the model raised %s: %s", ex.Class, ex.Message))
	}
	for _, q := range quoted {
		missing = append(missing, "the log quotes: "+q.Text)
	}
	return nil, append(missing, unprinted(quoted, r.Observed.Logs, fp, version)...)
}

// sglangStoreLog reports whether the log shows SGLang's HiCache store as
// Mooncake's caller: its frames, its messages, its logger.
func sglangStoreLog(ev Evidence) bool {
	return logShows(ev, []string{"sglang"}, "sglang", "HiCache", "hicache", "mooncake_store.py", "Creating storage backend",
		"Failed to setup Mooncake store", "Mooncake store setup successfully", "Failed to register buffer to Mooncake Store")
}

// otherCallerLog reports whether the log shows a caller of Mooncake's
// store other than SGLang: vLLM's or LMCache's loggers and frames.
func otherCallerLog(ev Evidence) bool {
	return logShows(ev, []string{"vllm", "caller"}, "lmcache", "LMCache", "vllm", "vLLM")
}

// logShows reports whether a line of the log came through one of loggers
// or holds one of markers.
func logShows(ev Evidence, loggers []string, markers ...string) bool {
	for _, l := range ev.Lines {
		if slices.Contains(loggers, l.logger) || slices.ContainsFunc(markers, func(m string) bool { return strings.Contains(l.Text, m) }) {
			return true
		}
	}
	return false
}

// initsOnly reports whether SGLang enters sc's steps only to start (init
// steps, each naming its node): what an integration's put step can stand
// for. A world that then reads or writes through SGLang's store cannot.
func initsOnly(sc *scenarios.Scenario) bool {
	inits := 0
	for _, st := range sc.Steps {
		switch st.Action {
		case scenarios.StepInit:
			if st.Node == "" {
				return false
			}
			inits++
		case scenarios.StepSleep, scenarios.StepPut, scenarios.StepCall:
		default:
			return false
		}
	}
	return inits > 0
}

// initsAsPuts turns the steps' init steps into the node's integration's
// put (its setup, then one page).
func initsAsPuts(steps *yaml.Node) {
	if steps == nil || steps.Kind != yaml.SequenceNode {
		return
	}
	for _, st := range steps.Content {
		if st.Kind != yaml.MappingNode || len(st.Content) != 2 || st.Content[0].Value != scenarios.StepInit {
			continue
		}
		v, node := st.Content[1], ""
		if v.Kind == yaml.ScalarNode {
			node = v.Value
		} else if v.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(v.Content); i += 2 {
				if v.Content[i].Value == "node" {
					node = v.Content[i+1].Value
				}
			}
		}
		put := mapping("node", node, "key", "kv0", "size", "4KiB")
		put.Style = yaml.FlowStyle
		st.Content[0], st.Content[1] = scalar(scenarios.StepPut), put
	}
}

// noAttrRE is Python's AttributeError for a method the store binding
// lacks, as a field log quotes it (with or without the class prefix).
var noAttrRE = regexp.MustCompile(`MooncakeDistributedStore' object has no attribute '([A-Za-z_][A-Za-z0-9_]*)'`)

// callLogMethod makes the draft's call steps call the method the log's
// AttributeError names: the integration's call is the log's setting.
func callLogMethod(steps *yaml.Node, log string) {
	m := noAttrRE.FindStringSubmatch(log)
	if m == nil || steps == nil || steps.Kind != yaml.SequenceNode {
		return
	}
	for _, st := range steps.Content {
		if st.Kind != yaml.MappingNode || len(st.Content) != 2 || st.Content[0].Value != scenarios.StepCall {
			continue
		}
		if v := st.Content[1]; v.Kind == yaml.MappingNode {
			setKey(v, "method", scalar(m[1]))
		} else {
			st.Content[1] = scalar(m[1])
		}
	}
}

// unprinted says which Mooncake lines the log quotes the run did not
// print: those no catalog world's run on the model prints at that version
// (a line the model of that release lacks: its fidelity, not the draft's
// world), then those other worlds print (the draft's world is not the
// log's).
func unprinted(quoted []quote, logs []string, fp Fingerprints, version string) []string {
	var lacks, elsewhere []string
	for _, q := range quoted {
		want := norm(q.Text)
		if slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(norm(l), want) }) {
			continue
		}
		// The line as the log has it: what a model must print.
		where := fmt.Sprintf(" (%q)", short(q.Line, 160))
		if q.File != "" {
			where = fmt.Sprintf(" (%s: %q)", q.File, short(q.Line, 160))
		}
		printed := false
		for k, ls := range fp {
			if k.Version == version && slices.ContainsFunc(ls, func(l string) bool { return strings.Contains(l, want) }) {
				printed = true
				break
			}
		}
		if printed {
			elsewhere = append(elsewhere, fmt.Sprintf("the run did not print (other worlds of the model of Mooncake %s do): %s%s", version, q.Text, where))
		} else {
			lacks = append(lacks, fmt.Sprintf("the model of Mooncake %s does not print: %s%s", version, q.Text, where))
		}
	}
	return append(lacks, elsewhere...)
}

// encodeDraft writes the draft's YAML and loads it back.
func encodeDraft(root *yaml.Node, name string) ([]byte, *scenarios.Scenario, error) {
	var b strings.Builder
	b.WriteString(SchemaModeline + "\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, nil, fmt.Errorf("encode scenario: %w", err)
	}
	out := []byte(b.String())
	draft, err := scenarios.Parse(name+".yaml", out)
	if err != nil {
		return nil, nil, fmt.Errorf("the draft does not load (a faultlab bug): %w", err)
	}
	return out, draft, nil
}

// expectFromLog is the draft's expect: the exception the log ends in (or
// the one a caller's line quotes, or, cut before it, the scenario's own)
// with its code, the death the log shows, and the Mooncake error lines it
// quotes. nil, with why, when the log shows an error it can give no
// expectation for (a draft is never a green for an error), when the log's
// death is not the scenario's, or when only the scenario's own outcome
// would check the run.
func expectFromLog(log string, ev Evidence, sc *scenarios.Scenario, version string) (exp *yaml.Node, quoted []quote, why string) {
	var kv []any
	base := scenarios.ExpectFor(sc.Expect, sc.ByVersion, version)
	ms, serverLines := callerExceptions(log)
	quoted = append(quotedErrors(ev), pdReasons(log)...)
	if st, ok := wcStatusFromLog(log); ok {
		// The failed slice's status, which its quote (the format's
		// literal part) leaves out.
		quoted = append(quoted, quote{Text: "): " + st.Text, File: "worker_pool.cpp", Line: "Worker: Process failed for slice (…): " + st.Text})
	}
	lines := serverLines
	for _, q := range quoted {
		lines = append(lines, q.Text)
	}
	sig, sigLine := logDeath(log, ev)
	if sig == "SIGABRT" && masterFatal(ev) {
		// mooncake_master's FATAL, not the caller's death: a world whose
		// master aborts so prints it, and the caller ends as the world does.
		sig, sigLine = "", ""
	}
	qx, qxOK := callerException(ev)
	cc := callerCodes(ev)
	// A log cut before its failure (a hang the operator stopped, or what
	// led up to it) that shows Mooncake's warnings, drafted from a world
	// that fails: the run must print the warnings and then fails as the
	// world does (its exception, death or codes), never ends ok.
	warned := false
	if len(lines) == 0 && len(ms) == 0 && sig == "" && !qxOK && len(cc) == 0 && failing(base) && !ShowsError(log, ev) {
		quoted = quotedWarnings(ev)
		warned = len(quoted) > 0
		if warned {
			// With the lines the world expects that the log shows.
			for _, l := range ev.Lines {
				for _, w := range base.Logs {
					if len(w) >= 12 && strings.Contains(l.Text, w) && !slices.ContainsFunc(quoted, func(q quote) bool { return strings.Contains(q.Text, w) || strings.Contains(w, q.Text) }) {
						quoted = append(quoted, quote{w, l.File(), l.Text})
					}
				}
			}
		}
		for _, q := range quoted {
			lines = append(lines, q.Text)
		}
	}
	switch {
	case len(ms) > 0:
		m := ms[len(ms)-1]
		msg := strings.TrimSpace(m[2])
		kv = append(kv, "raises", mapping("class", m[1], "message", msg))
		if r := base.Raises; r != nil && r.Class == m[1] && r.Message != nil && *r.Message == msg && len(base.Codes) > 0 {
			// The scenario's own outcome: its codes say which call
			// returned it (setup_dummy in standalone storage, not setup).
			kv = append(kv, "codes", codesNode(base.Codes))
		} else if c := reCode.FindStringSubmatch(m[2]); c != nil {
			method := map[string]string{"setup": "setup", "register buffer": "register_buffer"}[c[1]]
			var code int
			fmt.Sscan(c[2], &code)
			kv = append(kv, "codes", mapping(method, code))
		}
	case qxOK:
		// The exception a caller caught and logged (its own line, not
		// Mooncake's): the class, and the message exactly when the whole
		// of it is quoted, else the fragment the run must print.
		r := mapping("class", qx.class)
		if qx.exact {
			setKey(r, "message", scalar(qx.message))
		} else {
			lines = append([]string{qx.message}, lines...)
		}
		kv = append(kv, "raises", r)
	case sig != "":
		// The log's process died. Only a scenario that dies so can stand
		// for it; its line (a death) is expect.dies, not a log line.
		frame := crashFrame(log)
		// The kind of Mooncake call a Python faulthandler dump names.
		call, callFrame := deathCall(log)
		switch {
		case base.Dies == nil || base.Dies.Exit != nil || base.Dies.Signal != sig:
			return nil, nil, fmt.Sprintf("the log's process died of %s (%s); %s %s", sig, short(sigLine, 60), sc.Name, outcomeOf(base))
		case call != "" && !sameDeath(base.Dies.In, call):
			return nil, nil, fmt.Sprintf("the log's process died in %s, %s; %s dies in %s", callFrame, scenarios.CallText(call), sc.Name, scenarios.CallText(base.Dies.In))
		case len(lines) == 0 && frame == "" && (call == "" || call != base.Dies.In):
			// Another caller's data transfer checks no run: the world's
			// call is not the log's, though the cause may be.
			return nil, nil, fmt.Sprintf("the log quotes no exception or error line to check a run against, and %s's outcome alone (%s) does not tell causes apart", sc.Name, sig)
		case len(lines) == 0 && frame != "":
			// A backtrace without a line: the run must die in the
			// Mooncake function the log's innermost frame names.
			kv = append(kv, "dies", mapping("signal", sig, "reason", frame))
		case call != "" && call == base.Dies.In:
			// The run must die in the kind of call the log's
			// faulthandler dump names (the signal alone would stand for
			// any cause that dies so).
			kv = append(kv, "dies", mapping("signal", sig, "in", call))
		default:
			kv = append(kv, "dies", mapping("signal", sig))
		}
	case (base.Raises != nil || base.Dies != nil) && len(lines) == 0:
		// The outcome would be the scenario's, not the log's, and no line
		// of the log would check the run: an abort or a cut-short log then
		// "reproduces" whatever cause ends that way (a glibc heap abort
		// drafted as the etcd plugin's, field corpus batch 2).
		return nil, nil, fmt.Sprintf("the log quotes no exception or error line to check a run against, and %s's outcome alone does not tell causes apart", sc.Name)
	case base.Raises != nil:
		// Cut before the exception: the scenario's own, which the quoted
		// lines must then lead to.
		r := mapping("class", base.Raises.Class)
		if base.Raises.Message != nil {
			setKey(r, "message", scalar(*base.Raises.Message))
		}
		kv = append(kv, "raises", r)
		if len(base.Codes) > 0 {
			kv = append(kv, "codes", codesNode(base.Codes))
		}
	case base.Dies != nil:
		if base.Dies.Exit != nil {
			kv = append(kv, "dies", mapping("exit", *base.Dies.Exit))
		} else {
			kv = append(kv, "dies", mapping("signal", base.Dies.Signal))
		}
	case len(cc) > 0:
		// A caller's list of the store's codes (vLLM's "error_codes=[-707]"):
		// the calls of the scenario that return them, as it expects them.
		m := methodsReturning(base.Codes, cc)
		if len(m) == 0 {
			return nil, nil, fmt.Sprintf("the log's caller lists the codes %v, which no call of %s returns", cc, sc.Name)
		}
		kv = append(kv, "codes", codesNode(m))
	case warned:
		// The warnings, then the world's failing codes.
		kv = append(kv, "codes", codesNode(base.Codes))
	case len(lines) > 0:
		// Error lines but the scenario ends well: the lines alone.
	default:
		if ShowsError(log, ev) {
			return nil, nil, "the log shows an error but neither an exception nor a Mooncake error line explain could turn into an expectation"
		}
		kv = append(kv, "ok", true)
	}
	if len(lines) > 0 {
		kv = append(kv, "logs", lines)
	}
	return mapping(kv...), quoted, ""
}

// callerExceptions are the log's exception lines ([line, class,
// message]) less those a server process raised: the wheel's HTTP metadata
// server's refusal to start (0.3.14) ends its traceback, not the caller's.
// Those are lines the run must print, cut before the address (the
// world's differs).
func callerExceptions(log string) (ms [][]string, serverLines []string) {
	for _, ix := range reException.FindAllStringSubmatchIndex(log, -1) {
		m := []string{log[ix[0]:ix[1]], log[ix[2]:ix[3]], log[ix[4]:ix[5]]}
		if m[1] == "KVTransferError" {
			continue // a request's failure reason (pdReasons), not a raise
		}
		if !serverFrame(log[:ix[0]]) {
			ms = append(ms, m)
			continue
		}
		line := m[1] + ": " + strings.TrimSpace(m[2])
		if p := reHostPort.FindStringIndex(line); p != nil {
			line = strings.TrimSpace(line[:p[0]])
		}
		serverLines = append(serverLines, line)
	}
	return ms, serverLines
}

// serverFrame: the traceback that ends where before ends has its last
// frame in a Mooncake server's own Python module.
func serverFrame(before string) bool {
	i := strings.LastIndex(before, `File "`)
	if i < 0 || reException.MatchString(before[i:]) {
		return false // no frame, or another exception's
	}
	frame, _, _ := strings.Cut(before[i:], "\n")
	return strings.Contains(frame, "mooncake/http_metadata_server.py")
}

// outcomeOf says how a scenario's run ends, for a refusal.
func outcomeOf(e scenarios.Expect) string {
	switch {
	case e.Dies != nil:
		return "dies of " + e.Dies.How()
	case e.Raises != nil:
		return "raises " + e.Raises.Class + " instead"
	}
	return "ends without dying"
}

// masterFatal: the log has a glog FATAL line from mooncake_master's own
// source (a master that aborted at start or on a check).
func masterFatal(ev Evidence) bool {
	return slices.ContainsFunc(ev.Lines, func(l Line) bool {
		return l.Level == "F" && masterFiles[l.File()]
	})
}

var masterFiles = map[string]bool{"master.cpp": true, "master_service.cpp": true, "rpc_service.cpp": true, "ha_helper.cpp": true,
	"http_metadata_server.cpp": true}

// logDeath is the signal the log's process died of and the line that
// says so ("" = none).
func logDeath(log string, ev Evidence) (string, string) {
	for _, l := range ev.Lines {
		if sig := deathLine(l.Text); sig != "" {
			return sig, l.Text
		}
	}
	if sig := logSignal(log); sig != "" {
		return sig, sig
	}
	return "", ""
}

// quotedException is an exception a caller's line quotes.
type quotedException struct {
	class, message string
	exact          bool
}

var (
	// pybind11's TypeError for a call no overload accepts (mooncake's
	// store_py.cpp bindings): the message goes on over several lines.
	rePybindTypeError = regexp.MustCompile(`\b(\w+)\(\): incompatible function arguments`)
	// Python's AttributeError for a method the installed binding lacks.
	reBindingAttr = regexp.MustCompile(`'mooncake\.store\.MooncakeDistributedStore' object has no attribute '\w+'`)
)

// callerException is the exception a caller's line quotes when the log
// has no exception line of its own (vLLM's "An error occurred while
// loading the configuration: setup(): incompatible function arguments",
// LMCache's "... 'mooncake.store.MooncakeDistributedStore' object has no
// attribute 'batch_get_buffer'").
func callerException(ev Evidence) (quotedException, bool) {
	for _, l := range ev.Lines {
		if m := rePybindTypeError.FindString(l.Text); m != "" {
			return quotedException{"TypeError", m, false}, true
		}
		if m := reBindingAttr.FindString(l.Text); m != "" {
			return quotedException{"AttributeError", m, true}, true
		}
	}
	return quotedException{}, false
}

// ExpectsFailure reports whether e expects the failure a log shows: an
// exception, a death, the lines it quotes or a failing (negative) code -
// never ok. A draft that expects less is a false green.
func ExpectsFailure(e scenarios.Expect) bool {
	if e.OK != nil && *e.OK {
		return false
	}
	return e.Raises != nil || e.Dies != nil || len(e.Logs) > 0 || slices.ContainsFunc(slices.Collect(maps.Values(e.Codes)), func(c scenarios.CodeExpect) bool {
		return c.Every != nil && *c.Every < 0 || slices.ContainsFunc(c.Seq, func(v int) bool { return v < 0 })
	})
}

// reCallerCodes: the store's codes a caller lists from a call, as
// vLLM's mooncake_backend.py ("Failed to get 6722 keys out of 6722.
// error_codes=[-707]") and vLLM-Ascend's ("Failed to put key [...],
// res:[-800]") log them.
var reCallerCodes = regexp.MustCompile(`\b(?:error_codes|res|ret|results?|codes?)\s*[=:]\s*\[\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*\]`)

// callerCodes are the failing codes (negative, each once, in order) the
// caller's lines list; Mooncake's own lines name theirs (quotedErrors).
func callerCodes(ev Evidence) []int {
	var out []int
	for _, l := range ev.Lines {
		if l.logger == "glog" || l.logger == "easylog" {
			continue
		}
		for _, m := range reCallerCodes.FindAllStringSubmatch(l.Text, -1) {
			for _, f := range strings.Split(m[1], ",") {
				if c, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && c < 0 && !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// methodsReturning is, of a scenario's expected codes, the calls whose
// codes hold every one of want.
func methodsReturning(codes map[string]scenarios.CodeExpect, want []int) map[string]scenarios.CodeExpect {
	out := map[string]scenarios.CodeExpect{}
	for method, c := range codes {
		if c.Every != nil && len(want) == 1 && *c.Every == want[0] ||
			c.Every == nil && !slices.ContainsFunc(want, func(w int) bool { return !slices.Contains(c.Seq, w) }) {
			out[method] = c
		}
	}
	return out
}

// logSignal is the signal a log shows its process died of ("" = none).
func logSignal(log string) string {
	for _, sig := range []string{"SIGSEGV", "SIGABRT"} {
		if dies(log, sig) {
			return sig
		}
	}
	return ""
}

func firstLine(log string) string {
	ms := reException.FindAllStringSubmatch(log, -1)
	if len(ms) > 0 {
		return ms[len(ms)-1][1] + ": " + strings.TrimSpace(ms[len(ms)-1][2])
	}
	for _, l := range strings.Split(log, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return short(l, 100)
		}
	}
	return "(empty log)"
}

// codesNode writes expected codes as the scenario format has them.
func codesNode(codes map[string]scenarios.CodeExpect) *yaml.Node {
	n := mapping()
	for _, k := range slices.Sorted(maps.Keys(codes)) {
		if c := codes[k]; c.Every != nil {
			setKey(n, k, node(*c.Every))
		} else {
			seq := node(c.Seq)
			seq.Style = yaml.FlowStyle
			setKey(n, k, seq)
		}
	}
	n.Style = yaml.FlowStyle
	return n
}

// mapping builds a YAML mapping node in the given key order.
func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		v, ok := kv[i+1].(*yaml.Node)
		if !ok {
			v = node(kv[i+1])
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[i].(string)}, v)
	}
	return n
}

func node(v any) *yaml.Node {
	n := &yaml.Node{}
	_ = n.Encode(v)
	return n
}

// The master's HTTP ports as its log states them: its start line's flag
// values, and the lines of a start on a held port (models/master).
var (
	reMetricsPort  = regexp.MustCompile(`\bmetrics_port=(\d+)|Failed to start master admin server on (?:port |\S+:)(\d+)|HTTP metrics server started on port (\d+)`)
	reMetadataPort = regexp.MustCompile(`\bhttp_metadata_server_port=(\d+)|(?:Starting C\+\+ HTTP metadata server|Failed to start HTTP metadata server|HTTP metadata server started) on \S+:(\d+)`)
)

// portFromLog is the last port re names in log (0 = none, or not a port
// a world can fix: 1024-65535).
func portFromLog(log string, re *regexp.Regexp) int {
	port := 0
	for _, m := range re.FindAllStringSubmatch(log, -1) {
		for _, g := range m[1:] {
			if n, err := strconv.Atoi(g); err == nil && n >= 1024 && n <= 65535 {
				port = n
			}
		}
	}
	return port
}

// retargetHeldPort moves the world's fixed master port (topology.master
// key, was) and the port-held faults on it to port, the log's.
func retargetHeldPort(root *yaml.Node, key string, was, port int) {
	if was == 0 || port == 0 || port == was {
		return
	}
	topo := child(root, "topology")
	m := child(topo, "master")
	setKey(m, key, node(port))
	setKey(topo, "master", m)
	setKey(root, "topology", topo)
	fs := lookup(root, "faults")
	if fs == nil {
		return
	}
	for _, f := range fs.Content {
		if k, p := lookup(f, "kind"), lookup(f, "port"); k != nil && p != nil && k.Value == string(faults.PortHeld) && p.Value == strconv.Itoa(was) {
			setKey(f, "port", node(port))
		}
	}
}

// flowMapping is mapping written on one line ({at: 0s, kind: …}), as the
// catalog writes faults.
func flowMapping(kv ...any) *yaml.Node {
	m := mapping(kv...)
	m.Style = yaml.FlowStyle
	return m
}

func scalar(s string) *yaml.Node { return node(s) }

// lookup is m's value under key (nil when absent or m is no mapping).
func lookup(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// child is m's mapping under key (a new one when absent).
func child(m *yaml.Node, key string) *yaml.Node {
	if n := lookup(m, key); n != nil && n.Kind == yaml.MappingNode {
		return n
	}
	return mapping()
}

func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if v == nil {
				m.Content = slices.Delete(m.Content, i, i+2)
			} else {
				m.Content[i+1] = v
			}
			return
		}
	}
	if v != nil {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
}
