// Package explain maps a field log (SGLang's, with Mooncake's lines in it)
// to the catalog scenarios that end in the same outcome at that Mooncake
// version, ranked by the log lines that tell their causes apart.
package explain

import (
	"context"
	"fmt"
	"github.com/mooncake-faultlab/faultlab/faults"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// Candidate is one scenario that explains the log. Its JSON is the
// `faultlab explain --json` contract.
type Candidate struct {
	Scenario string `json:"scenario"`
	// Version is the Mooncake version whose expectations matched.
	Version string `json:"mooncake_version"`
	// Cause is the scenario's summary's first sentence.
	Cause string `json:"cause"`
	// Outcome is what the scenario ends in ("RuntimeError: Failed to setup
	// Mooncake store, error code: -1"), found in the log.
	Outcome string `json:"outcome"`
	// MatchedLogs are the scenario's expected log lines that the log has;
	// MissingLogs the ones it lacks.
	MatchedLogs []string `json:"matched_logs"`
	MissingLogs []string `json:"missing_logs"`
	// Telltale are the expected lines no other candidate expects: the ones
	// that tell this cause apart.
	Telltale []string `json:"telltale"`
	// Contradicting are lines the scenario says never appear, but do.
	Contradicting []string `json:"contradicting,omitempty"`
	Remedy        string   `json:"remedy"`
	// Tied: the log cannot tell this candidate from the one before it
	// (same evidence); the catalog order decided.
	Tied bool `json:"tied_with_previous,omitempty"`
	// Score: higher explains the log better (see rank).
	Score float64 `json:"score"`
	// ModelLogs are lines the scenario's run on the model prints that the
	// log has and not every candidate prints: weaker evidence than
	// MatchedLogs (the catalog's expectations), used to break ties.
	ModelLogs []string `json:"model_logs"`
	// DiedAs is the log's faulthandler frame where its process died when
	// the scenario dies in the same kind of call; DiedElsewhere says the
	// scenario dies in another (counted as a contradicting line).
	DiedAs        string `json:"died_as,omitempty"`
	DiedElsewhere string `json:"died_elsewhere,omitempty"`
	bad           int    // contradicting lines, a death in another call
	order         int
	modelled      []string
}

// Key is a scenario at a Mooncake version and, for a scenario that names
// SGLang releases (sglang.versions), at one of them ("" otherwise).
type Key struct{ Scenario, Version, SGLang string }

// releaseKey is the Key's SGLang part of a run of sc at release.
func releaseKey(sc *scenarios.Scenario, release string) string {
	if len(sc.SGLang.Versions) == 0 {
		return ""
	}
	return release
}

// Fingerprints are the log lines each scenario's run on the model prints
// in its main phase (normalized): what a field log of that cause looks
// like beyond the lines the catalog expects.
type Fingerprints map[Key][]string

// Fingerprint runs every catalog scenario (at version, or at each of its
// versions) on eng, a virtual-time engine, and keeps every log line the
// world printed before the remedy (servers starting, then the main phase):
// what an operator's log of that cause would hold.
func Fingerprint(ctx context.Context, catalog []*scenarios.Scenario, eng engine.Engine, version string) Fingerprints {
	opts := scenarios.Options{Seed: 1, Version: version}
	// A container scenario's modelled run prints what the same fault does
	// to processes: its model lines cannot tell it from the process
	// scenario, the simpler cause. It is matched on its expectations.
	var procs []*scenarios.Scenario
	for _, sc := range catalog {
		if !sc.HasLabel(scenarios.ContainerLabel) {
			procs = append(procs, sc)
		}
	}
	jobs := scenarios.Jobs(procs, []engine.Engine{eng}, opts)
	byName := map[string]*scenarios.Scenario{}
	for _, sc := range procs {
		byName[sc.Name] = sc
	}
	fp := Fingerprints{}
	// Worlds and releases print the same lines over and over: each is
	// normalized once (norm's regexps were a third of the time).
	normed := map[string]string{}
	for _, r := range scenarios.RunParallel(ctx, jobs, opts, scenarios.ParallelOptions{}) {
		if r.Verdict != scenarios.Pass && r.Verdict != scenarios.Fail {
			continue
		}
		var lines []string
		for _, e := range r.Trace.Events() {
			if e.Kind == "phase" && e.Text == "remedy" {
				break
			}
			if e.Kind == "log" && !uninformative[e.Text] {
				n, ok := normed[e.Text]
				if !ok {
					n = norm(e.Text)
					normed[e.Text] = n
				}
				lines = append(lines, n)
			}
		}
		fp[Key{r.Scenario, r.MooncakeVersion, releaseKey(byName[r.Scenario], r.SGLangVersion)}] = slices.Compact(slices.Sorted(slices.Values(lines)))
	}
	return fp
}

// uninformative are model lines every cause of their kind prints: a
// Python traceback's head (the metadata server's, SGLang's) says only that
// something raised, which the exception line says better.
var uninformative = map[string]bool{"Traceback (most recent call last):": true}

// Result is the answer: candidates best first.
type Result struct {
	Version    string      `json:"mooncake_version,omitempty"`
	Candidates []Candidate `json:"candidates"`
}

// Explain ranks the catalog's scenarios against log. version, when not
// empty, restricts to scenarios that apply to that Mooncake version and
// uses their expectations at it; otherwise each scenario's own versions
// are tried and the best-matching one kept.
func Explain(catalog []*scenarios.Scenario, fp Fingerprints, log, version string) (Result, error) {
	return explainWithin(catalog, fp, log, version, within{}, &memo{})
}

// within is what the log says of its versions beyond a stated Mooncake
// one: the Mooncake range its source files imply, the SGLang release it
// states.
type within struct {
	mooncake Range
	sglang   string
}

// releases are the SGLang releases of sc to try: the one the log states
// when sc models it, the newest (oldest) when it states a later (earlier)
// one, the two around it otherwise; every one when it states none.
func (w within) releases(sc *scenarios.Scenario) []string {
	rels := sc.SGLangReleases()
	sv, err := mooncake.ParseVersion(w.sglang)
	if err != nil || len(rels) < 2 {
		return rels
	}
	var below, above []string
	for _, r := range rels {
		switch c := mooncake.MustVersion(r).Compare(sv); {
		case c == 0:
			return []string{r}
		case c < 0:
			below = append(below, r)
		default:
			above = append(above, r)
		}
	}
	var out []string
	if len(below) > 0 {
		out = append(out, below[len(below)-1])
	}
	if len(above) > 0 {
		out = append(out, above[0])
	}
	return out
}

// explainWithin is Explain preferring, among a scenario's versions, those
// in the range the log's source files imply, and the SGLang releases the
// log states.
func explainWithin(catalog []*scenarios.Scenario, fp Fingerprints, log, version string, w within, rc *memo) (Result, error) {
	res := Result{Version: version, Candidates: []Candidate{}}
	if version != "" {
		if _, err := mooncake.ProfileFor(version); err != nil {
			return res, err
		}
	}
	// Expected lines match the log with only hex addresses normalized
	// (their numbers matter: "Mounting segment: 268435456 bytes"); modelled
	// lines match it with ports and sizes masked too.
	text, masked := mooncake.NormalizeAddresses(log), norm(log)
	addrs := maskAddrs(text)
	df, n := rc.docFreq(catalog, fp, version)
	for i, sc := range catalog {
		vs, ok := sc.Versions(version)
		if !ok {
			continue
		}
		vs = w.mooncake.prefer(vs)
		var best *Candidate
		for _, v := range vs {
			for _, rel := range w.releases(sc) {
				c, ok := match(sc, v, rel, text, addrs, rc)
				if !ok {
					continue
				}
				c.modelled = fp[Key{sc.Name, v, rel}]
				if c.Outcome == okOutcome && len(c.MatchedLogs) == 0 && !slices.ContainsFunc(c.modelled, func(l string) bool { return strings.Contains(masked, l) }) {
					continue // a scenario that ends well, and nothing of it in the log
				}
				c.order = i
				if best == nil || c.bad < best.bad || (c.bad == best.bad && len(c.MatchedLogs) > len(best.MatchedLogs)) {
					best = &c
				}
			}
		}
		if best != nil {
			res.Candidates = append(res.Candidates, *best)
		}
	}
	score(res.Candidates, df, n, masked)
	telltales(res.Candidates)
	slices.SortStableFunc(res.Candidates, func(a, b Candidate) int {
		switch {
		case a.bad != b.bad:
			return a.bad - b.bad
		case a.Score > b.Score+1e-9:
			return -1
		case b.Score > a.Score+1e-9:
			return 1
		}
		return a.order - b.order
	})
	for i := 1; i < len(res.Candidates); i++ {
		a, b := res.Candidates[i-1], res.Candidates[i]
		res.Candidates[i].Tied = a.bad == b.bad && math.Abs(a.Score-b.Score) < 1e-9
	}
	return res, nil
}

// docFreq counts, per expected log line, how many of the catalog's
// scenarios name or print it at the version (any version they run at when
// it is ""): a line few causes print is strong evidence, one every setup
// prints is none. A scenario is one document whatever number of releases
// it lists: counted per scenario × version, trimming one world's releases
// from seven to four moved a held-out log's answer (docs/FIELD.md).
func docFreq(catalog []*scenarios.Scenario, fp Fingerprints, version string) (map[string]int, int) {
	df := map[string]int{}
	n := 0
	for _, sc := range catalog {
		vs, ok := sc.Versions(version)
		if !ok {
			continue
		}
		n++
		lines := []string{}
		for _, v := range vs {
			for _, rel := range sc.SGLangReleases() {
				lines = append(append(lines, scenarios.ExpectForSGLang(sc.Expect, sc.ByVersion, v, sc.BySGLang, rel).Logs...), fp[Key{sc.Name, v, rel}]...)
			}
		}
		for _, l := range slices.Compact(slices.Sorted(slices.Values(lines))) {
			df[l]++
		}
	}
	return df, n
}

// score: the rarity (inverse document frequency) of the lines the log
// has that the candidate expects or prints, minus that of the lines the
// log has which other candidates print and this one does not (evidence it
// leaves unexplained), minus a quarter of that of expected lines missing.
func score(cs []Candidate, df map[string]int, n int, masked string) {
	idf := func(l string) float64 { return math.Log(1 + float64(n)/float64(max(1, df[l]))) }
	present := map[string]bool{}
	owners := map[string]int{}
	for i := range cs {
		for _, l := range cs[i].MatchedLogs {
			present[l] = true
		}
		seen := map[string]bool{}
		for _, l := range cs[i].modelled {
			if strings.Contains(masked, l) {
				present[l] = true
			}
			if !seen[l] {
				seen[l] = true
				owners[l]++
			}
		}
	}
	for i := range cs {
		// A line is the candidate's if it expects it, prints it, or prints
		// a line containing it (an expected fragment of a modelled line).
		mine := map[string]bool{}
		for _, l := range append(append(append([]string{}, cs[i].MatchedLogs...), cs[i].MissingLogs...), cs[i].modelled...) {
			mine[l] = true
		}
		printed := strings.Join(cs[i].modelled, "\n")
		for l := range present {
			if !mine[l] && maskedPattern(l).MatchString(printed) {
				mine[l] = true
			}
		}
		s := 0.0
		cs[i].ModelLogs = []string{}
		for _, l := range slices.Sorted(maps.Keys(present)) {
			if !mine[l] {
				s -= idf(l)
				continue
			}
			s += idf(l)
			if !slices.Contains(cs[i].MatchedLogs, l) && owners[l] < len(cs) {
				cs[i].ModelLogs = append(cs[i].ModelLogs, l)
			}
		}
		// A missing expected line counts a quarter: a pasted log is
		// often an excerpt, but a complete one lacking it argues against.
		for _, l := range cs[i].MissingLogs {
			s -= idf(l) / 4
		}
		cs[i].Score = math.Round(s*1000) / 1000
	}
}

// match checks whether the log ends in sc's outcome at version v.
func match(sc *scenarios.Scenario, v, release, text, addrs string, rc *memo) (Candidate, bool) {
	exp := scenarios.ExpectForSGLang(sc.Expect, sc.ByVersion, v, sc.BySGLang, release)
	c := Candidate{Scenario: sc.Name, Version: v, Cause: cause(sc.Summary), Remedy: Remedy(sc), MatchedLogs: []string{}, MissingLogs: []string{}, Telltale: []string{}}
	switch {
	case exp.Raises != nil:
		msg := ""
		if exp.Raises.Message != nil {
			msg = *exp.Raises.Message
		}
		re := rc.literal(msg)
		if msg == "" {
			re = rc.literal(exp.Raises.Class)
		}
		if !re.MatchString(text) {
			return c, false
		}
		c.Outcome = strings.TrimSuffix(exp.Raises.Class+": "+msg, ": ")
	case exp.Dies != nil:
		if !dies(text, exp.Dies.How()) {
			return c, false
		}
		c.Outcome = "process died (" + exp.Dies.How() + ")"
		// Where the log's process died, as its faulthandler dump names
		// it, against where this cause's does.
		if kind, frame := rc.deathCall(text); kind != "" && exp.Dies.In != "" {
			if sameDeath(exp.Dies.In, kind) {
				c.DiedAs = frame + ", " + scenarios.CallText(kind)
			} else {
				c.DiedElsewhere = "this cause dies in " + scenarios.CallText(exp.Dies.In) + "; the log's process died in " + frame + ", " + scenarios.CallText(kind)
				c.bad++
			}
		}
	default:
		// A scenario that ends well (a warning, a fallback) explains a log
		// only if every line it expects is there and nothing was raised.
		if raisesIn(text) {
			return c, false
		}
		c.Outcome = okOutcome
	}
	for _, l := range exp.Logs {
		// Literally, or with the field's own host:port where the run had
		// its own ("Failed to set location of 10.0.0.5:12345" is the
		// catalog's "... of 127.0.0.1:17781"); sizes stay, they tell
		// causes apart ("Mounting segment: 268435456 bytes").
		if rc.literal(l).MatchString(text) || rc.addrs(l).MatchString(addrs) {
			c.MatchedLogs = append(c.MatchedLogs, l)
		} else {
			c.MissingLogs = append(c.MissingLogs, l)
		}
	}
	if exp.Raises == nil && exp.Dies == nil && len(c.MissingLogs) > 0 {
		return c, false
	}
	for _, l := range exp.NoLogs {
		if rc.literal(l).MatchString(text) {
			c.Contradicting = append(c.Contradicting, l)
		}
	}
	// The scenario that produced a log expects nothing it lacks and
	// forbids nothing it has.
	c.bad += len(c.Contradicting)
	return c, true
}

const okOutcome = "no exception"

// raisedException: the exception line itself ("RuntimeError: ..."),
// which a traceback cut short lacks.
var raisedException = regexp.MustCompile(`(?m)(^|\s)([A-Z][A-Za-z]*(Error|Exception)): `)

// raisesIn: text raises - an exception line or a traceback - other than
// SGLang PD's KVTransferError, which its schedulers catch and log as a
// request's failure reason (pdReasons): never a process's outcome.
func raisesIn(text string) bool {
	if strings.Contains(text, "Traceback (most recent call last)") {
		return true
	}
	for _, m := range raisedException.FindAllStringSubmatch(text, -1) {
		if m[2] != "KVTransferError" {
			return true
		}
	}
	return false
}

// raised: a Python exception line or a traceback.
var raised = regexp.MustCompile(raisedException.String() + `|Traceback \(most recent call last\)`)

// dies: the text shows the death how names (a signal, or "exit N").
func dies(text, how string) bool {
	words := map[string][]string{
		"SIGSEGV": {"SIGSEGV", "Segmentation fault", "exit code 139", "signal 11"},
		"SIGABRT": {"SIGABRT", "Aborted", "exit code 134", "signal 6"},
	}[how]
	if n, ok := strings.CutPrefix(how, "exit "); ok {
		words = []string{"exit code " + n, "exit status " + n, "exited with code " + n}
	}
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(text, w) }) || backtraceSignal(text) == how ||
		slices.Contains(lineDeaths(text), how)
}

// lineDeaths are the signals the text's death lines name (an assert's,
// glibc's heap check, glog's trailer, a signal's own line).
func lineDeaths(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if sig := deathLine(strings.TrimSpace(l)); sig != "" {
			out = append(out, sig)
		}
	}
	return out
}

// A gdb backtrace names no signal; its innermost frames do: a copy that
// faults is a SIGSEGV on the address it was given, raise/abort at the top
// is glog's or libc's abort().
var backtraceSignals = []struct {
	re  *regexp.Regexp
	sig string
}{
	{regexp.MustCompile(`(?m)^\s*#0\s+(?:0x[0-9a-fA-F]+\s+in\s+)?_*(?:GI_)?_*mem(?:cpy|move|set)\w*\s*\(`), "SIGSEGV"},
	{regexp.MustCompile(`(?m)^\s*#[0-2]\s+(?:0x[0-9a-fA-F]+\s+in\s+)?_*(?:GI_)?_*(?:raise|abort|pthread_kill\w*)\s*\(`), "SIGABRT"},
}

// backtraceSignal is the signal a pasted gdb backtrace shows ("" = none).
func backtraceSignal(text string) string {
	for _, b := range backtraceSignals {
		if b.re.MatchString(text) {
			return b.sig
		}
	}
	return ""
}

// pattern matches an expected text in a log: literally, with {{role}}
// placeholders standing for any address and hex addresses normalized.
func pattern(s string) *regexp.Regexp { return literal(mooncake.NormalizeAddresses(s)) }

// memo is what one Explain or Diagnose computes once: each expected
// text's patterns (the catalog names the same lines at every version and
// in every phase: compiling them per use was most of explain's time) and
// the lines' document frequencies at a version.
type memo struct {
	lit, addr map[string]*regexp.Regexp
	df        map[string]docs
	// died is deathCall of the text match last read (text, kind, frame).
	died [3]string
}

// deathCall is deathCall(text), once per text.
func (c *memo) deathCall(text string) (kind, frame string) {
	if c.died[0] != text {
		k, f := deathCall(text)
		c.died = [3]string{text, k, f}
	}
	return c.died[1], c.died[2]
}

// docs is docFreq's answer: per line, how many of n scenarios print it.
type docs struct {
	df map[string]int
	n  int
}

func (c *memo) literal(s string) *regexp.Regexp { return cached(&c.lit, s, pattern) }
func (c *memo) addrs(s string) *regexp.Regexp {
	return cached(&c.addr, s, func(s string) *regexp.Regexp { return literal(maskAddrs(mooncake.NormalizeAddresses(s))) })
}

func (c *memo) docFreq(catalog []*scenarios.Scenario, fp Fingerprints, version string) (map[string]int, int) {
	d, ok := c.df[version]
	if !ok {
		d.df, d.n = docFreq(catalog, fp, version)
		if c.df == nil {
			c.df = map[string]docs{}
		}
		c.df[version] = d
	}
	return d.df, d.n
}

func cached(m *map[string]*regexp.Regexp, s string, compile func(string) *regexp.Regexp) *regexp.Regexp {
	if *m == nil {
		*m = map[string]*regexp.Regexp{}
	}
	re, ok := (*m)[s]
	if !ok {
		re = compile(s)
		(*m)[s] = re
	}
	return re
}

// reHostPort: a host:port, an IPv4 or bracketed IPv6 one included.
var reHostPort = regexp.MustCompile(`(\[[0-9A-Fa-f:]*\]|[A-Za-z0-9][\w.\-]*):\d{2,5}\b`)

// maskAddrs masks host:port pairs: one world's addresses are not
// another's.
func maskAddrs(s string) string { return reHostPort.ReplaceAllString(s, "ADDR") }

// maskedPattern matches an expected text in masked (norm) lines.
func maskedPattern(s string) *regexp.Regexp { return literal(norm(s)) }

func literal(s string) *regexp.Regexp {
	parts := placeholder.Split(s, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(strings.Join(parts, `\S+`))
}

// norm makes texts from different worlds comparable: hex addresses,
// IPv4 addresses and long numbers (ports, sizes, ids) are masked.
func norm(s string) string {
	s = mooncake.NormalizeAddresses(s)
	s = ipv4.ReplaceAllString(s, "IP")
	return longNum.ReplaceAllString(s, "#")
}

var (
	ipv4    = regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b`)
	longNum = regexp.MustCompile(`\d{4,}`)
)

var placeholder = regexp.MustCompile(`\{\{\s*[a-z_][a-z0-9_]*\s*\}\}`)

// telltales fills each candidate's Telltale: its expected lines that not
// every other candidate expects, the ones that tell the causes apart.
func telltales(cs []Candidate) {
	count := map[string]int{}
	for _, c := range cs {
		for _, l := range slices.Compact(slices.Sorted(slices.Values(append(append([]string{}, c.MatchedLogs...), c.MissingLogs...)))) {
			count[l]++
		}
	}
	for i := range cs {
		for _, l := range append(append([]string{}, cs[i].MatchedLogs...), cs[i].MissingLogs...) {
			if count[l] < len(cs) || len(cs) == 1 {
				cs[i].Telltale = append(cs[i].Telltale, l)
			}
		}
	}
}

// cause is the summary's first sentence, on one line.
func cause(summary string) string {
	s := strings.Join(strings.Fields(summary), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// gpuRemedy says what a remedy's gpus change on node n, in the words of
// the fix on the host.
func gpuRemedy(sc *scenarios.Scenario, n string, g scenarios.GPU) []string {
	var was scenarios.GPU
	for _, node := range sc.Topology.Nodes {
		if node.Name == n && node.GPU != nil {
			was = *node.GPU
		}
	}
	var out []string
	switch {
	case g.Peermem && !was.Peermem:
		out = append(out, "on "+n+" load nvidia_peermem (modprobe nvidia_peermem)")
	case !g.Peermem && was.Peermem:
		out = append(out, "on "+n+" unload nvidia_peermem")
	}
	switch {
	case g.DmaBuf && !was.DmaBuf:
		out = append(out, "on "+n+" a GPU driver and kernel with dma-buf")
	case !g.DmaBuf && was.DmaBuf:
		out = append(out, "on "+n+" GPUs without dma-buf")
	}
	if max(g.Count, 1) != max(was.Count, 1) {
		out = append(out, fmt.Sprintf("on %s %d GPUs", n, max(g.Count, 1)))
	}
	return out
}

// Remedy describes the fix the scenario's remedy phase verified: what it
// changed and what was then observed.
func Remedy(sc *scenarios.Scenario) string {
	r := sc.Remedy
	if r == nil {
		return "none verified (the scenario has no remedy phase)"
	}
	var parts []string
	if r.ClearFaults != nil && *r.ClearFaults && len(sc.Faults) > 0 {
		var fs []string
		for _, f := range sc.Faults {
			if h := heal(f); h != "" {
				fs = append(fs, h)
			}
		}
		if len(fs) > 0 {
			parts = append(parts, strings.Join(slices.Compact(fs), ", "))
		}
	}
	if v := r.MasterVersion; v != "" {
		switch {
		case v == "run" && (sc.Topology.Master == nil || sc.Topology.Master.MooncakeVersion == ""):
			// No skew to undo: the master of the same release, started
			// again (on the port now freed).
			parts = append(parts, "restart mooncake_master")
		case v == "run":
			parts = append(parts, "run mooncake_master of the clients' release")
		default:
			parts = append(parts, "run mooncake_master of "+v)
		}
	}
	if r.MissingLibs != nil {
		var got []string
		for _, l := range sc.Topology.MissingLibs {
			if !slices.Contains(r.MissingLibs, l) {
				got = append(got, l)
			}
		}
		if len(got) > 0 {
			parts = append(parts, "install "+strings.Join(got, ", ")+" (or put its directory on LD_LIBRARY_PATH) and start the processes that failed again")
		}
	}
	if len(r.MasterFlags) > 0 {
		var fl []string
		for _, k := range slices.Sorted(maps.Keys(r.MasterFlags)) {
			fl = append(fl, "--"+k+"="+r.MasterFlags[k])
		}
		parts = append(parts, "restart mooncake_master with "+strings.Join(fl, " "))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Env)) {
		if v := r.Env[k]; v == nil {
			parts = append(parts, "unset "+k)
		} else {
			parts = append(parts, "set "+k+"="+*v)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(r.NodeEnv)) {
		for _, k := range slices.Sorted(maps.Keys(r.NodeEnv[n])) {
			if v := r.NodeEnv[n][k]; v == nil {
				parts = append(parts, "on "+n+" unset "+k)
			} else {
				parts = append(parts, "on "+n+" set "+k+"="+*v)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.ExtraConfig)) {
		if v := r.ExtraConfig[k]; v == nil {
			parts = append(parts, "drop "+k+" from --hicache-storage-backend-extra-config")
		} else {
			parts = append(parts, fmt.Sprintf("set %s=%v in --hicache-storage-backend-extra-config", k, v))
		}
	}
	if r.File != nil {
		parts = append(parts, "fix the config file ("+sc.Config.FilePath+")")
	}
	for _, n := range slices.Sorted(maps.Keys(r.HostPools)) {
		hp := r.HostPools[n]
		d := fmt.Sprintf("host pool on %s: allocator %s", n, hp.Allocator)
		if hp.Draft != nil {
			d += ", draft pool of its own (" + hp.Draft.Allocator + ")"
		}
		parts = append(parts, d)
	}
	for _, n := range slices.Sorted(maps.Keys(r.GPUs)) {
		parts = append(parts, gpuRemedy(sc, n, r.GPUs[n])...)
	}
	for _, n := range slices.Sorted(maps.Keys(r.NPUs)) {
		parts = append(parts, npuRemedy(sc, n, r.NPUs[n])...)
	}
	if r.Steps != nil {
		var ss []string
		for _, s := range r.Steps {
			ss = append(ss, s.String())
		}
		parts = append(parts, "then "+strings.Join(ss, ", "))
	}
	if len(parts) == 0 {
		parts = append(parts, "start again unchanged")
	}
	return strings.Join(parts, "; ") + " → " + verified(sc)
}

func verified(sc *scenarios.Scenario) string {
	e := sc.Remedy.Expect
	var out []string
	if e.OK != nil && *e.OK {
		out = append(out, "starts")
	}
	if e.Raises != nil {
		out = append(out, "raises "+e.Raises.Class)
	}
	for _, m := range slices.Sorted(maps.Keys(e.Codes)) {
		out = append(out, m+" "+e.Codes[m].String())
	}
	return "verified: " + strings.Join(out, ", ")
}

// heal says what healing a fault means to an operator.
func heal(f scenarios.FaultSpec) string {
	switch f.Kind {
	case "master-down":
		return "start mooncake_master / make MOONCAKE_MASTER reachable"
	case "metadata-down":
		return "start the metadata service / fix MOONCAKE_TE_META_DATA_SERVER"
	case "client-down":
		return "start mooncake_client"
	case "link":
		return "fix the network path to " + f.Target
	case "process":
		return "restart " + f.Target
	case "container":
		switch f.Action {
		case "stop", "kill":
			return "start " + f.Target + "'s container again"
		case "pause":
			return "unpause " + f.Target + "'s container"
		case "partition":
			return "reconnect " + f.Target + "'s container to the network"
		case "memory":
			return "a new " + f.Target + " container without the memory limit"
		}
		return "" // restart, replace: the new container is there already
	case "port-held":
		if p, ok := f.Params.(faults.PortHeldParams); ok {
			return fmt.Sprintf("free port %d (stop the other process listening on it)", p.Port)
		}
	}
	return "clear " + f.Kind
}

// Stack frames as operators paste them: gdb's "#1  0x7f… in ns::F::g (…)",
// glog's failure handler "@ 0x7f… ns::F::g()", backward-cpp's and py-spy's
// native `File "<unknown>", line 0, in ns::F::g(…)`.
var reNativeFrame = regexp.MustCompile(`^\s*(?:#\d+\s+(?:0x[0-9a-fA-F]+\s+in\s+)?|@\s+0x[0-9a-fA-F]+\s+(?:\(unknown\)\s+)?|File "<unknown>", line \d+, in\s+)([~\w:]+)`)

// crashFrame is the innermost frame of a pasted native backtrace that is
// Mooncake's code (its mooncake:: namespace, without it) or libibverbs'
// ("" = none): where a model says its process died. libc's and the C++
// library's frames say nothing of the cause.
func crashFrame(log string) string {
	for _, l := range strings.Split(log, "\n") {
		m := reNativeFrame.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		switch f := m[1]; {
		case strings.HasPrefix(f, "mooncake::"):
			return strings.TrimPrefix(f, "mooncake::")
		case strings.HasPrefix(f, "ibv_"):
			return f
		}
	}
	return ""
}
