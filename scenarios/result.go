package scenarios

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// Verdicts.
const (
	Pass  = "pass"
	Fail  = "fail"
	Skip  = "skip"
	Error = "error"
)

// Result is the outcome of one scenario at one Mooncake version on one
// engine. Its JSON is the report contract of DESIGN.md.
type Result struct {
	Scenario        string `json:"scenario"`
	Engine          string `json:"engine"`
	MooncakeVersion string `json:"mooncake_version"`
	Seed            uint64 `json:"seed"`
	// SGLang is who played SGLang ("model": the Go model; "real": SGLang's
	// own code) and SGLangVersion the release it played.
	SGLang        string    `json:"sglang,omitempty"`
	SGLangVersion string    `json:"sglang_version,omitempty"`
	Verdict       string    `json:"verdict"`
	Reason        string    `json:"reason"`
	Observed      Observed  `json:"observed"`
	Remedy        *Observed `json:"remedy,omitempty"`
	VirtualMS     float64   `json:"virtual_ms"`
	WallMS        float64   `json:"wall_ms"`
	TraceHash     string    `json:"trace_hash"`
	// Addrs are the world's role addresses ({{master}}...), so texts from
	// different engines compare with them abstracted.
	Addrs map[string]string `json:"addrs,omitempty"`
	// Source is the scenario file, so replay can find it again.
	Source string `json:"source,omitempty"`

	// Trace is the run's full trace (not in the JSON; replay rebuilds it).
	Trace *trace.Trace `json:"-"`
}

// Exception is a raised Python exception.
type Exception struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

// Death is a process death observed instead of an exception: the signal
// and the engine's reason (the last Mooncake words).
type Death struct {
	Signal string `json:"signal,omitempty"`
	Exit   int    `json:"exit,omitempty"` // the exit status of a death without a signal
	Reason string `json:"reason"`
	// In is the kind of Mooncake call the process died in (CallKind;
	// "" = not known).
	In string `json:"in,omitempty"`
}

// How is the signal, or "exit N" (engine.DeathHow).
func (d *Death) How() string { return engine.DeathHow(d.Signal, d.Exit) }

// Call is one Mooncake store call SGLang made and what Python got back:
// Code for int-returning calls, Codes for batch calls, Raised when the
// binding raised.
type Call struct {
	Method string     `json:"method"`
	Code   int        `json:"code"`
	Codes  []int      `json:"codes,omitempty"`
	Raised *Exception `json:"raised,omitempty"`
	// MS is how long the call took (virtual in sim; wall, scaled back, elsewhere).
	MS float64 `json:"ms"`
	// RacyMS is how much of MS the model spent in waits whose length real
	// Mooncake draws from a race (engine.Racy; sim only).
	RacyMS float64 `json:"racy_ms,omitempty"`
	// HostMS is how much of MS the model charged for host work (CPU and
	// memory: engine.HostWork; sim only).
	HostMS float64 `json:"host_ms,omitempty"`
}

// StepResult is what one I/O step returned.
type StepResult struct {
	Step   string `json:"step"`
	Result any    `json:"result"`
}

// Observed is what one phase did.
type Observed struct {
	Exception *Exception `json:"exception"`
	// Died is set when the SGLang process died inside Mooncake (Exception
	// then stays nil: Python raised nothing).
	Died *Death `json:"died,omitempty"`
	// EndedIn is the step whose exception or death ended the phase
	// (Step.String(), e.g. "init tp0"); "" when no step raised.
	EndedIn string `json:"ended_in,omitempty"`
	// Calls are every store call with a code, in order.
	Calls []Call   `json:"calls"`
	Logs  []string `json:"logs"`
	// LogSources is each log line's trace source (a process), parallel to
	// Logs when known: lines of different processes reach the trace in no
	// guaranteed order on a wall-clock engine, so the oracle orders the
	// expected logs only within one source.
	LogSources []string `json:"-"`
	// SGLangLogs are SGLang's own lines (trace source "sglang") as
	// "LEVEL text", in order: what the model and real SGLang must agree on.
	SGLangLogs []string     `json:"sglang_logs,omitempty"`
	Steps      []StepResult `json:"steps,omitempty"`
	// DurationMS is the phase's duration (virtual in sim).
	DurationMS float64 `json:"duration_ms"`
	// TimingsMS is the time spent in each Mooncake method during the
	// phase (setup, put, register_buffer...; see Timings).
	TimingsMS map[string]float64 `json:"timings_ms,omitempty"`
	// RacyMS is the part of TimingsMS spent in racy waits (Call.RacyMS).
	RacyMS map[string]float64 `json:"racy_ms,omitempty"`
	// HostMS is the part of TimingsMS charged for host work (Call.HostMS).
	HostMS map[string]float64 `json:"host_ms,omitempty"`
}

// CodesOf is every code method returned, in call order: a batch call
// contributes its per-key codes, a call that raised none.
func (o Observed) CodesOf(method string) []int {
	var out []int
	for _, c := range o.Calls {
		if c.Method != method || c.Raised != nil {
			continue
		}
		if c.Codes != nil {
			out = append(out, c.Codes...)
		} else {
			out = append(out, c.Code)
		}
	}
	return out
}

// Codes is method → code (one call) or [codes] (several), as the report shows it.
func (o Observed) Codes() map[string]any {
	m := map[string]any{}
	seen := map[string]bool{}
	for _, c := range o.Calls {
		if seen[c.Method] || c.Raised != nil {
			continue
		}
		seen[c.Method] = true
		cs := o.CodesOf(c.Method)
		if len(cs) == 1 {
			m[c.Method] = cs[0]
		} else {
			m[c.Method] = cs
		}
	}
	return m
}

// MarshalJSON adds the "codes" map the report contract names.
func (o Observed) MarshalJSON() ([]byte, error) {
	type plain Observed
	calls := o.Calls
	if calls == nil {
		calls = []Call{}
	}
	logs := o.Logs
	if logs == nil {
		logs = []string{}
	}
	p := plain(o)
	p.Calls, p.Logs = calls, logs
	return json.Marshal(struct {
		plain
		Codes map[string]any `json:"codes"`
	}{p, o.Codes()})
}

// Summary counts verdicts.
type Summary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Skip  int `json:"skip"`
	Error int `json:"error"`
}

// Add counts one verdict.
func (s *Summary) Add(verdict string) {
	switch verdict {
	case Pass:
		s.Pass++
	case Fail:
		s.Fail++
	case Skip:
		s.Skip++
	default:
		s.Error++
	}
}

// Report is the JSON file `faultlab run --report` writes.
type Report struct {
	// Run is the metadata of the run that wrote the report.
	Run        *RunInfo     `json:"run,omitempty"`
	Results    []Result     `json:"results"`
	Summary    Summary      `json:"summary"`
	Comparison []Comparison `json:"comparison,omitempty"`
}

// NewReport summarizes results.
func NewReport(rs []Result) Report {
	r := Report{Results: rs}
	if r.Results == nil {
		r.Results = []Result{}
	}
	for _, x := range rs {
		r.Summary.Add(x.Verdict)
	}
	return r
}

// Comparison is one scenario × version across engines.
type Comparison struct {
	Scenario        string `json:"scenario"`
	MooncakeVersion string `json:"mooncake_version"`
	// SGLangVersion is the SGLang release every column played.
	SGLangVersion string          `json:"sglang_version,omitempty"`
	Engines       []EngineOutcome `json:"engines"`
	// Differences names the fields that differ between engines that ran.
	Differences []string `json:"differences"`
}

// EngineOutcome is one engine's column of a comparison.
type EngineOutcome struct {
	Engine string `json:"engine"`
	// SGLang is who played SGLang and at which release ("model 0.5.23",
	// "real 0.5.23"); SGLangLogs its lines.
	SGLang     string             `json:"sglang,omitempty"`
	SGLangLogs []string           `json:"sglang_logs,omitempty"`
	Verdict    string             `json:"verdict"`
	Codes      map[string]any     `json:"codes"`
	Exception  *Exception         `json:"exception"`
	Died       *Death             `json:"died,omitempty"`
	DurationMS float64            `json:"duration_ms"`
	TimingsMS  map[string]float64 `json:"timings_ms,omitempty"`
	// CallCounts is how many calls of each method TimingsMS sums.
	CallCounts map[string]int `json:"-"`
	// RacyMS is Observed.RacyMS, HostMS Observed.HostMS.
	RacyMS map[string]float64 `json:"-"`
	HostMS map[string]float64 `json:"-"`
}

// Compare builds comparisons for every scenario × version that ran on more
// than one engine, in first-seen order.
func Compare(rs []Result) []Comparison {
	// A scenario's runs at different SGLang releases are not compared
	// with each other: each release is its own column set.
	type key struct{ s, v, g string }
	var order []key
	groups := map[key][]Result{}
	for _, r := range rs {
		k := key{r.Scenario, r.MooncakeVersion, r.SGLangVersion}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []Comparison
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		c := Comparison{Scenario: k.s, MooncakeVersion: k.v, SGLangVersion: k.g, Differences: []string{}}
		var ran []EngineOutcome
		for _, r := range g {
			eo := EngineOutcome{Engine: r.Engine, Verdict: r.Verdict, Codes: r.Observed.Codes(), Exception: r.Observed.Exception, Died: r.Observed.Died, DurationMS: r.Observed.DurationMS, TimingsMS: r.Observed.TimingsMS, CallCounts: CallCounts(r.Observed.Calls), RacyMS: r.Observed.RacyMS, HostMS: r.Observed.HostMS,
				SGLang: strings.TrimSpace(r.SGLang + " " + r.SGLangVersion), SGLangLogs: r.Observed.SGLangLogs}
			for i, l := range eo.SGLangLogs {
				eo.SGLangLogs[i] = abstractAddrs(l, r.Addrs)
			}
			if e := r.Observed.Exception; e != nil {
				eo.Exception = &Exception{Class: e.Class, Message: abstractAddrs(e.Message, r.Addrs)}
			}
			c.Engines = append(c.Engines, eo)
			if r.Verdict == Pass || r.Verdict == Fail {
				ran = append(ran, eo)
			}
		}
		diff := map[string]bool{}
		for _, eo := range ran[min(1, len(ran)):] {
			a := ran[0]
			if !jsonEqual(a.Codes, eo.Codes) {
				diff["codes"] = true
			}
			ae, be := excText(a.Exception), excText(eo.Exception)
			if ae.Class != be.Class {
				diff["exception.class"] = true
			}
			if normalize(ae.Message) != normalize(be.Message) {
				diff["exception.message"] = true
			}
			if diedSignal(a.Died) != diedSignal(eo.Died) {
				diff["died"] = true
			}
			if a.Verdict != eo.Verdict {
				diff["verdict"] = true
			}
			if !slices.EqualFunc(a.SGLangLogs, eo.SGLangLogs, func(x, y string) bool { return normalize(x) == normalize(y) }) {
				diff["sglang_logs"] = true
			}
			// Whole phases include process start (Python, imports) on real:
			// flag only more than 2x and 1 s apart. Mooncake calls must agree
			// within the timing tolerance.
			lo, hi := min(a.DurationMS, eo.DurationMS), max(a.DurationMS, eo.DurationMS)
			if hi-lo > 1000 && hi > 2*lo {
				diff["duration"] = true
			}
			for _, m := range TimingDiffs(refTimings(ran), eo.TimingsMS, eo.CallCounts, eo.RacyMS, eo.HostMS) {
				diff["timing."+m] = true
			}
			for _, m := range TimingDiffs(refTimings(ran), a.TimingsMS, a.CallCounts, a.RacyMS, a.HostMS) {
				diff["timing."+m] = true
			}
		}
		for d := range diff {
			c.Differences = append(c.Differences, d)
		}
		sort.Strings(c.Differences)
		out = append(out, c)
	}
	return out
}

// LiteralAddr: a role "address" that is Mooncake's own keyword, the same
// text on every engine (sim's {{metadata}} of a P2PHANDSHAKE topology; real
// has no address for it), so texts keep it rather than a placeholder
// (sim,real seed 30016: sim's setup() TypeError read '{{metadata}}', real's
// 'P2PHANDSHAKE').
func LiteralAddr(a string) bool { return a == "" || a == "P2PHANDSHAKE" }

// abstractAddrs replaces the world's role addresses with their
// placeholders, longest first.
func abstractAddrs(s string, addrs map[string]string) string {
	roles := make([]string, 0, len(addrs))
	for r, a := range addrs {
		if !LiteralAddr(a) {
			roles = append(roles, r)
		}
	}
	sort.Slice(roles, func(i, j int) bool {
		if len(addrs[roles[i]]) != len(addrs[roles[j]]) {
			return len(addrs[roles[i]]) > len(addrs[roles[j]])
		}
		return roles[i] < roles[j]
	})
	for _, r := range roles {
		s = strings.ReplaceAll(s, addrs[r], "{{"+r+"}}")
	}
	return s
}

// diedSignal compares deaths by signal only: reasons are engine texts.
func diedSignal(d *Death) string {
	if d == nil {
		return ""
	}
	return d.How()
}

func excText(e *Exception) Exception {
	if e == nil {
		return Exception{}
	}
	return *e
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
