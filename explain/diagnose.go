package explain

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sglang"
)

// Threshold is the fewest points a cause needs before explain names it;
// below it explain says no cause fits and lists the nearest. Calibrated
// on the field corpus's tuning split (fieldlogs, docs/FIELD.md): every
// tuning case whose right cause scored below it had no line only that
// cause prints, and no wrong top cause scored above it with less.
const Threshold = 4.0

// OutcomePoints is what ending in a catalog scenario's exact outcome (its
// exception message and code, or its death) is worth: the catalog run
// verified that this cause ends so. Ending without an exception is worth
// it only when the scenario prints every error line of the log (a log
// cut short shows no exception either).
const OutcomePoints = 4.0

// Cause is one explanation of a field log. Its JSON is part of the
// `faultlab explain --json` contract.
type Cause struct {
	// Kind: "scenario" (a catalog scenario: reproducible with faultlab
	// run) or "class" (a field cause explain knows from its lines only).
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Version is the Mooncake version a scenario matched at.
	Version string `json:"mooncake_version,omitempty"`
	Cause   string `json:"cause"`
	// Outcome is the scenario's outcome the log ends in, if it does.
	Outcome string  `json:"outcome,omitempty"`
	Points  float64 `json:"points"`
	// Evidence: the log's lines (with glog's file:line) and derived facts
	// that support the cause; Against: those that argue against it.
	Evidence []string `json:"evidence"`
	Against  []string `json:"against,omitempty"`
	Remedy   string   `json:"remedy"`
	Refs     []string `json:"refs,omitempty"`
	// Reproduce: catalog scenarios of a class (`faultlab run NAME`).
	Reproduce []string `json:"reproduce,omitempty"`
	// Resembles: named for the log's words alone (no line of its matched),
	// as one of the nearest when nothing fits.
	Resembles bool `json:"resembles,omitempty"`
	// Match is the catalog match behind a scenario cause.
	Match *Candidate `json:"scenario_match,omitempty"`
	order int
	// claims are the log's lines and facts the cause's class patterns
	// matched (its evidence beyond the catalog's).
	claims []string
	// classPoints are the points its classes' patterns gave it.
	classPoints float64
	// cutShort: a scenario scored on its lines alone, the log lacking its
	// outcome (its points never outrank one whose outcome the log shows).
	cutShort bool
}

// Diagnosis is explain's answer for a field log.
type Diagnosis struct {
	// Verdict: "cause" (Causes names at least one at or above Threshold)
	// or "no-fit" (none does; Nearest lists the closest).
	Verdict string `json:"verdict"`
	// MooncakeVersion is the version the catalog was matched at and
	// VersionFrom where it came from: "given" (--mooncake-version), "log"
	// (pip show / freeze / banner in the log), "" (each scenario's own).
	MooncakeVersion string   `json:"mooncake_version,omitempty"`
	VersionFrom     string   `json:"mooncake_version_from,omitempty"`
	Evidence        Evidence `json:"evidence"`
	Causes          []Cause  `json:"causes"`
	Nearest         []Cause  `json:"nearest,omitempty"`
	// Ambiguous says why no cause is named although one reached the
	// threshold: another class fits within Margin.
	Ambiguous string `json:"ambiguous,omitempty"`
	// Advice says what to add to a log that no cause fits because of what
	// it lacks (advise).
	Advice    string  `json:"advice,omitempty"`
	Threshold float64 `json:"threshold"`
	// Candidates are the catalog scenarios that end in the log's outcome
	// (Explain's answer; the JSON contract before causes existed).
	Candidates []Candidate `json:"candidates"`
	// text is the log as read (readLog): what a draft quotes from.
	text string
	// ranked is every cause that scored, best first (the field corpus's
	// miss breakdown reads how far down the right one was).
	ranked []Cause
}

// Top is the best cause, or the nearest when none fits ("" when there is
// nothing at all).
func (d Diagnosis) Top() (Cause, bool) {
	if len(d.Causes) > 0 {
		return d.Causes[0], true
	}
	return Cause{}, false
}

// Diagnose explains a field log: the catalog scenarios that end in its
// outcome (Explain) and the cause classes its lines show (Classes), each
// scored in points - the outcome, the rarity of the catalog lines it has,
// the weights of class lines - and ranked; causes under Threshold are only
// the nearest. version, when not empty, is the Mooncake version the user
// gives; otherwise the one the log states is used when faultlab models it.
func Diagnose(catalog []*scenarios.Scenario, fp Fingerprints, log, version string) (Diagnosis, error) {
	cls, err := Classes()
	if err != nil {
		return Diagnosis{}, err
	}
	return diagnose(catalog, fp, cls, log, version)
}

// diagnose is Diagnose with the cause classes given (a test leaves one out).
func diagnose(catalog []*scenarios.Scenario, fp Fingerprints, cls []Class, log, version string) (Diagnosis, error) {
	log, ev := readLog(log)
	d := Diagnosis{Evidence: ev, Causes: []Cause{}, Threshold: Threshold, text: log}
	if version != "" {
		d.MooncakeVersion, d.VersionFrom = version, "given"
	} else if v := KnownMooncakeVersion(ev.MooncakeVersion); v != "" {
		d.MooncakeVersion, d.VersionFrom = v, "log"
	}
	// A class of a bug some releases have is no cause of a log from
	// another release.
	release := version
	if release == "" {
		release = ev.MooncakeVersion
	}
	cls = slices.DeleteFunc(slices.Clone(cls), func(c Class) bool { return !c.InReleases(release, ev.MooncakeRange) })
	// The raw log keeps multi-line messages whole (a pybind11 TypeError);
	// the stripped lines let a glog-prefixed line match an expected text.
	w := within{sglang: ev.SGLangVersion}
	if d.MooncakeVersion == "" {
		w.mooncake = ev.MooncakeRange
	}
	rc := &memo{}
	res, err := explainWithin(catalog, fp, log+"\n"+ev.Text(), d.MooncakeVersion, w, rc)
	if err != nil {
		return d, err
	}
	d.Candidates = res.Candidates
	byName := map[string]int{}
	var all []Cause
	for _, c := range res.Candidates {
		// Ending well is an outcome only when the scenario prints every
		// error line the log has: an excerpt cut before its exception
		// shows no exception either (a refused connect ending well
		// outranked the QP failure the same excerpt opened with).
		outcome, ends := OutcomePoints, "ends in: "+c.Outcome
		if c.Outcome == okOutcome && slices.ContainsFunc(ev.Lines, func(l Line) bool {
			return errorLine(l) && !prints(fp, rc, Cause{Name: c.Scenario, Version: c.Version, Match: &c}, l.Text)
		}) {
			outcome, ends = 0, ends+" (no outcome points: the log has error lines this cause never prints)"
		}
		pts := outcome + math.Max(-2, math.Min(6, c.Score)) - 3*float64(c.bad)
		evid := []string{ends}
		for _, l := range c.MatchedLogs {
			evid = append(evid, "expected line: "+Humanize(l))
		}
		for _, l := range c.ModelLogs {
			evid = append(evid, "modelled line: "+short(l, 120))
		}
		if c.DiedAs != "" {
			pts++
			evid = append(evid, "died in "+c.DiedAs+", as this cause's process does")
		}
		var against []string
		for _, l := range c.Contradicting {
			against = append(against, "this cause never prints: "+Humanize(l))
		}
		if c.DiedElsewhere != "" {
			against = append(against, c.DiedElsewhere)
		}
		m := c
		byName[c.Scenario] = len(all)
		all = append(all, Cause{Kind: "scenario", Name: c.Scenario, Version: c.Version, Cause: Humanize(c.Cause), Outcome: c.Outcome,
			Points: pts, Evidence: evid, Against: against, Remedy: Humanize(c.Remedy), Match: &m, order: len(all)})
		if c.Outcome != okOutcome {
			unexplained(fp, rc, &all[len(all)-1], ev.Lines)
		}
	}
	if !raisesIn(log) && !showsDeath(log) {
		// Cut before the outcome (or never reaching one; a traceback cut
		// before its exception line): the catalog scenarios by their lines
		// alone. A log that shows its process die has its outcome: the
		// scenarios that die so scored above, the others do not end so.
		for _, c := range partial(catalog, fp, log+"\n"+ev.Text(), ev.Lines, d.MooncakeVersion, w, byName, rc) {
			c.order = len(all)
			byName[c.Name] = len(all)
			all = append(all, c)
		}
	}
	// What the operator's env dump or command line sets agrees with a
	// scenario's config or not. (Settings read off Mooncake's lines may
	// come from any process of the world - mooncake_client's devices - so
	// they only shape new's draft.)
	stated := map[string]string{}
	for k, v := range ev.Env {
		if strings.HasPrefix(k, "MC_") || slices.Contains(logSettings, k) {
			stated[k] = v
		}
	}
	for j := range all {
		if sc := find(catalog, all[j].Name); sc != nil {
			envAgreement(&all[j], sc, stated)
			launchAgreement(&all[j], sc, ev.Flags)
		}
	}
	facts := ev.Facts()
	for _, cl := range cls {
		pts, evid, against := cl.match(ev.Lines, facts)
		// A telltale of another cause (a line only it prints) that a
		// scenario's model never prints counts against the scenario.
		for _, l := range cl.telltales(ev.Lines) {
			for j := range all {
				if all[j].Kind != "scenario" || cl.Explains(all[j].Name) || prints(fp, rc, all[j], l.Text) {
					continue
				}
				all[j].Points -= TelltaleAgainst
				all[j].Against = append(all[j].Against, fmt.Sprintf("%s - a sign of %s, which this cause never prints", l.Cite(), cl.Name))
			}
		}
		if pts <= 0 && len(evid) == 0 {
			continue
		}
		claims := slices.Clone(evid)
		if sc := linked(catalog, cl, d.MooncakeVersion, scoredBy(all, byName), withholdsLogLib(log)); sc != nil {
			// A field class the catalog reproduces: its points go to the
			// scenario, whose remedy a run verified.
			evid = append([]string{"field class " + cl.Name + ": " + cl.Cause}, evid...)
			if j, ok := byName[sc.Name]; ok {
				all[j].Points += pts
				all[j].Evidence = append(all[j].Evidence, evid...)
				all[j].Against = append(all[j].Against, against...)
				all[j].claims = append(all[j].claims, claims...)
				all[j].classPoints += pts
				continue
			}
			byName[sc.Name] = len(all)
			all = append(all, Cause{Kind: "scenario", Name: sc.Name, Cause: Humanize(cause(sc.Summary)), Points: pts, Evidence: evid,
				Against: against, Remedy: Humanize(Remedy(sc)), Refs: cl.Refs, order: len(all), claims: claims, classPoints: pts})
			continue
		}
		if j, ok := byName[cl.Name]; ok {
			all[j].Points += pts
			all[j].Evidence = append(all[j].Evidence, evid...)
			all[j].Against = append(all[j].Against, against...)
			all[j].claims = append(all[j].claims, claims...)
			all[j].classPoints += pts
			continue
		}
		c := Cause{Kind: "class", Name: cl.Name, Cause: cl.Cause, Points: pts, Evidence: evid, Against: against,
			Remedy: cl.Remedy, Refs: cl.Refs, Reproduce: cl.Scenarios, order: len(all), claims: claims, classPoints: pts}
		sc := find(catalog, cl.Name)
		if sc == nil && cl.Cause == "" {
			continue // the signature of a scenario this catalog (--catalog DIR) lacks
		}
		if sc != nil {
			// A catalog scenario's signature when the log was cut before
			// the outcome: its cause and verified remedy.
			c.Kind, c.Cause, c.Remedy = "scenario", Humanize(cause(sc.Summary)), Humanize(Remedy(sc))
			c.Evidence = append([]string{"outcome not in the log (cut short?)"}, c.Evidence...)
			c.cutShort = true
		}
		all = append(all, c)
	}
	logLibs := libsFromLog(log)
	for i := range all {
		all[i].Points = math.Round(all[i].Points*100) / 100
		if len(logLibs) == 0 || all[i].Kind != "scenario" {
			continue
		}
		if sc := find(catalog, all[i].Name); sc != nil {
			all[i].Remedy = remedyForLibs(all[i].Remedy, sc.Topology.MissingLibs, logLibs)
		}
	}
	seen := map[string]int{}
	for _, c := range all {
		seen[c.Name] = fieldSeen(cls, c.Name)
	}
	slices.SortStableFunc(all, func(a, b Cause) int {
		if a.Points != b.Points {
			if a.Points > b.Points {
				return -1
			}
			return 1
		}
		// Equal points: the catalog's own ranking (its rarity score, then
		// its order), which the cap on it in points hides.
		if a.Match != nil && b.Match != nil && math.Abs(a.Match.Score-b.Match.Score) > 1e-9 {
			if a.Match.Score > b.Match.Score {
				return -1
			}
			return 1
		}
		// Then how often each comes up in the field.
		if sa, sb := seen[a.Name], seen[b.Name]; sa != sb {
			return sb - sa
		}
		return a.order - b.order
	})
	// A best cause that another cause (not one its class links) matches
	// within Margin is not told apart by the log: naming it would be a
	// coin toss. The log gets no cause, and both lead the nearest. Points
	// cap a scenario's catalog evidence; the comparison uses it uncapped.
	if len(all) > 1 && all[0].Points >= Threshold {
		for _, c := range all[1:] {
			if sameClass(cls, all[0].Name, c.Name) || c.Points <= 0 {
				continue
			}
			if uncapped(all[0])-uncapped(c) < Margin {
				d.Ambiguous = fmt.Sprintf("%s (%.2f) and %s (%.2f) fit about equally: the log does not tell them apart", all[0].Name, all[0].Points, c.Name, c.Points)
				break
			}
			if claimedToo(all[0], c) {
				d.Ambiguous = fmt.Sprintf("%s (%.2f) and %s (%.2f) rest on the same lines: the log does not tell them apart", all[0].Name, all[0].Points, c.Name, c.Points)
				break
			}
		}
	}
	// A log of INFO lines only shows how a run went, not how it failed:
	// the lines a world's run prints on its way (a standalone setup's IPC
	// lines) name no cause, however rare they are. A class's own patterns
	// still can (an INFO line's impossible value, the master's
	// object_already_exists).
	quiet := infoOnly(ev.Lines) && len(all) > 0 && all[0].classPoints < Threshold
	for _, c := range all {
		if c.Points > 0 {
			d.ranked = append(d.ranked, c)
		}
		switch {
		case c.Points >= Threshold && d.Ambiguous == "" && !quiet:
			d.Causes = append(d.Causes, c)
		case c.Points <= 0:
		case len(d.Nearest) < 3,
			// The whole group the log cannot tell apart.
			d.Ambiguous != "" && uncapped(all[0])-uncapped(c) < Margin:
			d.Nearest = append(d.Nearest, c)
		}
	}
	d.Verdict = "no-fit"
	if len(d.Causes) > 0 {
		d.Verdict = "cause"
		return d, nil
	}
	d.Advice = advise(d.Nearest, ev, quiet)
	// Nothing fits: the nearest by the log's words fill what points left.
	listed := func(name string) bool {
		return slices.ContainsFunc(d.Nearest, func(c Cause) bool {
			i := slices.IndexFunc(cls, func(x Class) bool { return x.Name == name })
			return c.Name == name || i >= 0 && cls[i].Explains(c.Name)
		})
	}
	for _, c := range resemble(cls, ev.Lines, facts, listed, 3-len(d.Nearest)) {
		if sc := find(catalog, c.Name); sc != nil {
			c.Kind, c.Cause, c.Remedy = "scenario", Humanize(cause(sc.Summary)), Humanize(Remedy(sc))
		}
		d.Nearest = append(d.Nearest, c)
	}
	return d, nil
}

// showsDeath reports whether the log shows a process die (a signal's
// line, glog's or glibc's abort, a gdb backtrace).
func showsDeath(log string) bool {
	return backtraceSignal(log) != "" || len(lineDeaths(log)) > 0
}

// Margin is the lead a best cause needs over the next cause of another
// class before explain names it (field corpus tuning split: every right
// top cause led by at least 1).
const Margin = 1.0

// claimedToo: best rests only on lines its class patterns match (no
// catalog outcome or line) and other's class patterns match every one of
// them: the lines cannot tell the two apart, only the classes' weights
// for the same line differ.
func claimedToo(best, other Cause) bool {
	if best.Match != nil || best.cutShort || len(best.claims) == 0 {
		return false
	}
	for _, l := range best.claims {
		if !slices.Contains(other.claims, l) {
			return false
		}
	}
	return true
}

// uncapped is a cause's points with its catalog evidence (the rarity of
// its lines) not capped.
func uncapped(c Cause) float64 {
	if c.Match == nil {
		return c.Points
	}
	return c.Points - math.Max(-2, math.Min(6, c.Match.Score)) + c.Match.Score
}

// sameClass: a and b are one cause class (a class and a scenario it links,
// or two scenarios one class links).
func sameClass(cls []Class, a, b string) bool {
	for _, cl := range cls {
		if cl.Explains(a) && cl.Explains(b) {
			return true
		}
	}
	return false
}

// PartialWeight scales the rarity of a catalog line found in a log that
// lacks the scenario's outcome: the line alone says less than the line
// with the outcome it leads to.
const PartialWeight = 0.5

// partial scores the catalog scenarios a log does not end like, by the
// rare lines they expect or print at a version that the log has (IDF over
// the catalog, times PartialWeight), less those they say never appear.
// Lines most scenarios print (servers starting) say nothing of a cause.
func partial(catalog []*scenarios.Scenario, fp Fingerprints, log string, lines []Line, version string, w within, skip map[string]int, rc *memo) []Cause {
	df, n := rc.docFreq(catalog, fp, version)
	text, masked := mooncake.NormalizeAddresses(log), norm(log)
	var out []Cause
	for _, sc := range catalog {
		if _, ok := skip[sc.Name]; ok {
			continue
		}
		vs, ok := sc.Versions(version)
		if !ok {
			continue
		}
		vs = w.mooncake.prefer(vs)
		var best *Cause
		for _, v := range vs {
			for _, rel := range w.releases(sc) {
				exp := scenarios.ExpectForSGLang(sc.Expect, sc.ByVersion, v, sc.BySGLang, rel)
				pts := 0.0
				var evid, against []string
				seen := map[string]bool{}
				add := func(l, kind string) {
					if seen[l] || 4*df[l] > n {
						return
					}
					seen[l] = true
					pts += PartialWeight * math.Log(1+float64(n)/float64(max(1, df[l])))
					evid = append(evid, kind+": "+short(Humanize(l), 120))
				}
				for _, l := range exp.Logs {
					if rc.literal(l).MatchString(text) {
						add(l, "expected line")
					}
				}
				for _, l := range fp[Key{sc.Name, v, rel}] {
					if strings.Contains(masked, l) {
						add(l, "modelled line")
					}
				}
				for _, l := range exp.NoLogs {
					if rc.literal(l).MatchString(text) {
						pts -= 3
						against = append(against, "this cause never prints: "+Humanize(l))
					}
				}
				if len(evid) == 0 || (best != nil && pts <= best.Points) {
					continue
				}
				// Lines alone never outrank a scenario whose outcome the log
				// shows (at most OutcomePoints + 6): one more line every
				// mooncake_client start prints (0.3.14's rpc_meta GET) put
				// standalone/default-allocator, cut short, above the run's own
				// scenario.
				pts = math.Min(pts, OutcomePoints+6)
				best = &Cause{Kind: "scenario", Name: sc.Name, Version: v, Cause: Humanize(cause(sc.Summary)), Points: pts, cutShort: true,
					Evidence: append([]string{"outcome not in the log (cut short?)"}, evid...), Against: against, Remedy: Humanize(Remedy(sc))}
			}
		}
		if best != nil {
			unexplained(fp, rc, best, lines)
			out = append(out, *best)
		}
	}
	return out
}

// EnvAgrees and EnvDisagrees are what a setting the log states is worth
// to a scenario whose config sets it alike, or otherwise: small, they
// order causes the lines cannot tell apart.
const (
	EnvAgrees    = 0.5
	EnvDisagrees = 1.0
)

// envAgreement scores the settings the log's env states (protocol,
// devices, standalone storage, MC_* switches; not addresses or sizes, which
// differ between any two worlds) against the scenario's config env.
func envAgreement(c *Cause, sc *scenarios.Scenario, stated map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(stated)) {
		if k == "MOONCAKE_GLOBAL_SEGMENT_SIZE" || k == "MOONCAKE_LOCAL_BUFFER_SIZE" {
			continue
		}
		v := stated[k]
		// The values the scenario's processes see: config.env, and each
		// node's env merged over it (one party may run another protocol).
		var svs []string
		if x, ok := sc.Config.Env[k]; ok && x != nil {
			svs = append(svs, *x)
		}
		for _, n := range sc.Topology.Nodes {
			if x, ok := n.Env[k]; ok && x != nil {
				svs = append(svs, *x)
			}
		}
		same := func(a, b string) bool {
			if k == "MOONCAKE_DEVICE" {
				// Device names are the host's; naming some or none is
				// what a cause turns on.
				return (a == "") == (b == "")
			}
			return strings.EqualFold(a, b)
		}
		switch {
		case slices.ContainsFunc(svs, func(sv string) bool { return same(sv, v) }):
			c.Points += EnvAgrees
			c.Evidence = append(c.Evidence, fmt.Sprintf("the log sets %s=%s, as this scenario does", k, v))
		case len(svs) > 0:
			c.Points -= EnvDisagrees
			c.Against = append(c.Against, fmt.Sprintf("the log sets %s=%s, this scenario %q", k, v, strings.Join(svs, ", ")))
		case strings.HasPrefix(k, "MC_"):
			c.Points -= EnvDisagrees
			c.Against = append(c.Against, fmt.Sprintf("the log sets %s=%s, this scenario does not", k, v))
		}
	}
}

// launchFlags are the SGLang launch flags that build a host pool a
// catalog world's SGLang has (the pools whose allocator some releases got
// wrong): a log's command line with or without them tells those worlds
// apart.
var launchFlags = []struct {
	flag string
	has  func(scenarios.Node) bool
}{
	{"--disaggregation-decode-enable-offload-kvcache", func(n scenarios.Node) bool { return n.HostPool.Builder == sglang.BuilderDecodeOffload }},
	{"--speculative-algorithm", func(n scenarios.Node) bool { return n.HostPool.Draft != nil }},
}

// launchAgreement: a log with SGLang's launch command (its storage or PD
// flags) agrees with a world whose SGLang builds a pool the command's
// flags build, and disagrees with one whose pool needs a flag the command
// lacks.
func launchAgreement(c *Cause, sc *scenarios.Scenario, flags map[string]string) {
	if len(flags) == 0 {
		return
	}
	for _, lf := range launchFlags {
		if !slices.ContainsFunc(sc.Topology.Nodes, lf.has) {
			continue
		}
		if _, ok := flags[lf.flag]; ok {
			c.Points += EnvAgrees
			c.Evidence = append(c.Evidence, fmt.Sprintf("the log's command line has %s, as this scenario's SGLang does", lf.flag))
		} else {
			c.Points -= EnvDisagrees
			c.Against = append(c.Against, fmt.Sprintf("the log's command line lacks %s, which this scenario's SGLang runs with", lf.flag))
		}
	}
}

// UnexplainedAgainst is what one of Mooncake's own error lines costs a
// scenario that ends in the log's outcome but never prints the line, for
// at most MaxUnexplained lines (a long log's many errors are one story).
const (
	UnexplainedAgainst = 2.0
	MaxUnexplained     = 3
)

// unexplained charges c for Mooncake's own error lines in lines that its
// runs never print: ending alike (or sharing some lines) explains no other
// error (a log of "P2P: No valid port found" and setup -1 named an RDMA
// device world that ends in -1 too and never prints it).
func unexplained(fp Fingerprints, rc *memo, c *Cause, lines []Line) {
	cost := UnexplainedAgainst
	if c.cutShort {
		cost *= PartialWeight // its lines count at that weight too
	}
	n := 0
	for _, l := range lines {
		if n < MaxUnexplained && mooncakeError(l) && !prints(fp, rc, *c, abortReason(l.Text)) {
			n++
			c.Points -= cost
			c.Against = append(c.Against, l.Cite()+" - a Mooncake error this cause never prints")
		}
	}
}

// mooncakeError: an E or F line of Mooncake's C++ logger (glog), the
// lines a scenario's model prints word for word, or the reason a native
// abort() printed (glibc's assert or heap check): an abort for another
// reason is another death.
func mooncakeError(l Line) bool {
	if healthyError(l.Text) {
		return false
	}
	// A glog line pasted without its severity letter is an error by its words.
	glogError := l.Level == "E" || l.Level == "F" || l.Level == "" && reErrorWords.MatchString(l.Text)
	return glogError && l.logger == "glog" || reAssertLine.MatchString(l.Text) || reMallocAbort.MatchString(l.Text)
}

// abortReason is what of an abort's line a run must print: an assert's
// "Assertion `…' failed." (its program and source path are the field's),
// else the line.
func abortReason(text string) string {
	if m := reAssertLine.FindStringSubmatch(text); m != nil {
		return m[2]
	}
	return text
}

// reElision is what people put where they cut a line short.
var reElision = regexp.MustCompile(`\.\.\.+|…`)

// elided are the pieces of a line the operator cut short with "..."
// ("Process failed for slice (... retry_cnt: 0): transport retry counter
// exceeded"), which a printed line must have in order (piecesIn); nil
// when it is not cut, or when no piece is long enough to tell a line by
// (16 letters).
func elided(line string) []string {
	if !strings.Contains(line, "...") && !strings.Contains(line, "…") {
		return nil
	}
	var pieces []string
	longest := 0
	for _, p := range reElision.Split(line, -1) {
		// A piece of a few letters says nothing.
		if p = strings.TrimSpace(p); len(p) >= 4 {
			pieces = append(pieces, p)
			longest = max(longest, len(p))
		}
	}
	if longest < 16 {
		return nil
	}
	return pieces
}

// piecesIn: every piece is in printed, in order.
func piecesIn(pieces []string, printed string) bool {
	if len(pieces) == 0 {
		return false
	}
	at := 0
	for _, p := range pieces {
		i := strings.Index(printed[at:], p)
		if i < 0 {
			return false
		}
		at += i + len(p)
	}
	return true
}

// TelltaleAgainst is what a telltale line of another cause that a
// scenario never prints costs the scenario.
const TelltaleAgainst = 3.0

// prints reports whether a scenario cause's run prints (or expects) line.
func prints(fp Fingerprints, rc *memo, c Cause, line string) bool {
	masked := norm(line)
	pieces := elided(masked)
	for k, ls := range fp {
		if k.Scenario != c.Name || (c.Version != "" && k.Version != c.Version) {
			continue
		}
		for _, l := range ls {
			if strings.Contains(masked, l) || strings.Contains(l, masked) || piecesIn(pieces, l) {
				return true
			}
		}
	}
	if c.Match != nil {
		for _, l := range append(append([]string{}, c.Match.MatchedLogs...), c.Match.MissingLogs...) {
			if rc.literal(l).MatchString(line) {
				return true
			}
		}
	}
	return false
}

// linked is the catalog scenario a class links that runs at version: of
// those, the one the log's catalog evidence already scores highest (a
// class can link the same failure on two paths, named devices and
// auto-discovery, or peer memory and DMA-BUF, and the log's own lines
// tell which), else the first. With no version, or none that runs at it,
// the same among all it links. With LinkWhenScored only a scored one, or
// one fits accepts. nil: none, or a catalog given with --catalog lacks
// them.
func linked(catalog []*scenarios.Scenario, cl Class, version string, score func(string) (float64, bool), fits func(*scenarios.Scenario) bool) *scenarios.Scenario {
	pick := func(atVersion bool) *scenarios.Scenario {
		var first, best, fit *scenarios.Scenario
		bestPts := 0.0
		for _, n := range cl.Scenarios {
			sc := find(catalog, n)
			if sc == nil {
				continue
			}
			if _, ok := sc.Versions(version); atVersion && !ok {
				continue
			}
			if first == nil {
				first = sc
			}
			if fit == nil && fits(sc) {
				fit = sc
			}
			if pts, scored := score(n); scored && (best == nil || pts > bestPts) {
				best, bestPts = sc, pts
			}
		}
		switch {
		case best != nil:
			return best
		case cl.LinkWhenScored:
			return fit
		}
		return first
	}
	if version != "" {
		if sc := pick(true); sc != nil {
			return sc
		}
	}
	return pick(false)
}

// withholdsLogLib: a world that withholds a native library
// (topology.missing_libs) reproduces a log whose loader names another
// library some wheel needs: new --from-log withholds the log's. One with
// mooncake_client when the loader's line is mooncake_client's, else
// SGLang's start when the log has its install hint, a caller's import
// otherwise.
func withholdsLogLib(log string) func(*scenarios.Scenario) bool {
	libs := libsFromLog(log)
	client := strings.Contains(log, "mooncake_client: error while loading shared libraries")
	hint := strings.Contains(log, "Please install mooncake")
	return func(sc *scenarios.Scenario) bool {
		switch {
		case len(libs) == 0 || len(sc.Topology.MissingLibs) == 0:
			return false
		case client:
			return sc.Topology.Client != nil && sc.Topology.Client.Present != nil && *sc.Topology.Client.Present
		}
		return sc.StartsSGLang() == hint
	}
}

// scoredBy reads a scenario's points among the causes so far, its
// catalog evidence uncapped (two linked scenarios both at the cap differ
// below it).
func scoredBy(all []Cause, byName map[string]int) func(string) (float64, bool) {
	return func(name string) (float64, bool) {
		if j, ok := byName[name]; ok {
			return uncapped(all[j]), true
		}
		return 0, false
	}
}

func find(catalog []*scenarios.Scenario, name string) *scenarios.Scenario {
	for _, sc := range catalog {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}

// roles names what a scenario's {{placeholder}} stands for, for people:
// a run substitutes its own addresses, a person reads the role.
var roles = map[string]string{
	"master":         "the master's address",
	"master_ip":      "the master's IP",
	"master_ipv6":    "the master's IPv6 address",
	"metadata_ipv6":  "the metadata server's IPv6 URL",
	"master_metrics": "the master's metrics address",
	"metadata":       "the metadata server's address",
	"etcd":           "etcd's address",
	"client":         "mooncake_client's address",
}

var rePlaceholder = regexp.MustCompile(`\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}`)

// Humanize replaces {{role}} placeholders with the role they stand for
// ("the master's address"), so person-facing output never shows them.
func Humanize(s string) string {
	return rePlaceholder.ReplaceAllStringFunc(s, func(m string) string {
		name := rePlaceholder.FindStringSubmatch(m)[1]
		if r, ok := roles[name]; ok {
			return "<" + r + ">"
		}
		return "<" + strings.ReplaceAll(name, "_", " ") + ">"
	})
}

// String is a one-line summary, for logs and test failures.
func (c Cause) String() string {
	return fmt.Sprintf("%s %s (%.2f)", c.Kind, c.Name, c.Points)
}

// remedyForLibs names, in a world's verified remedy, the libraries the
// log's loader lines lack instead of the ones the world withholds: the
// world stands for any library its release needs (new --from-log drafts
// it so), and "install libibverbs.so.1" for a log without libnuma.so.1
// would send the operator to the wrong package.
func remedyForLibs(remedy string, withheld, logLibs []string) string {
	if len(withheld) == 0 {
		return remedy
	}
	return strings.Replace(remedy, "install "+strings.Join(withheld, ", ")+" ", "install "+strings.Join(logLibs, ", ")+" ", 1)
}

// advise says what the log lacks, when that is why no cause fits: Mooncake's
// own lines, the lines where a run of INFO lines failed, or the setup that
// tells apart the worlds ending in its exception.
func advise(nearest []Cause, ev Evidence, quiet bool) string {
	if a := adviceForBareException(ev.Lines); a != "" {
		return a
	}
	if quiet && len(nearest) > 0 && nearest[0].Points >= Threshold {
		return "the log has INFO lines only (no error, warning, exception or death): the lines a run prints on its way name no cause; add the lines where it fails, or how the process ended (its exit status)"
	}
	return adviceForUnstatedSetup(nearest, ev)
}

// adviceForBareException: a log of a caller's Mooncake exception with
// none of Mooncake's own lines ("Failed to setup Mooncake store, error
// code: -1" and its traceback) - the commonest paste - holds only the
// code setup() or register_buffer() returned, which many causes share;
// Mooncake logged the reason just before, on the same process's stderr.
func adviceForBareException(lines []Line) string {
	exc := ""
	for _, l := range lines {
		if l.Source != "" || l.logger == "glog" || l.logger == "easylog" {
			return ""
		}
		if m := raisedException.FindStringIndex(l.Text); m != nil && reReturnedCode.MatchString(l.Text[m[0]:]) {
			exc = strings.TrimSpace(l.Text[m[0]:])
		}
	}
	if exc == "" {
		return ""
	}
	return "the log has the caller's exception (" + short(exc, 100) + ") but none of Mooncake's own lines, and the error code alone is shared by many causes: " +
		"Mooncake logs the reason just before it on the same process's stderr, as glog lines like \"E1201 12:00:00.123456  4242 rdma_context.cpp:123] ...\" " +
		"(and mooncake_master's own log for the master's side); explain the log with those lines"
}

// reReturnedCode: an exception that carries only what a Mooncake call
// returned - SGLang's setup and register_buffer errors, its warmup's put.
var reReturnedCode = regexp.MustCompile(`(?i)mooncake.*error code:? -?\d|Warmup put failed`)

// adviceForUnstatedSetup: the nearest causes all end in the log's own
// exception (the standalone allocator's RuntimeError has four), so what
// tells them apart is the setup the log does not state - the releases
// (an allocator bug of some SGLang releases, an API of some Mooncake
// ones) and the launch flags (PD decode offload, a draft model).
func adviceForUnstatedSetup(nearest []Cause, ev Evidence) string {
	if len(nearest) < 2 || ev.MooncakeVersion != "" && ev.SGLangVersion != "" && len(ev.Flags) > 0 {
		return ""
	}
	for _, c := range nearest[:2] {
		if c.Match == nil || len(c.Evidence) == 0 || !strings.HasPrefix(c.Evidence[0], "ends in: ") || strings.HasPrefix(c.Evidence[0], "ends in: no ") {
			return ""
		}
	}
	var lacks []string
	if ev.MooncakeVersion == "" || ev.SGLangVersion == "" {
		lacks = append(lacks, "`pip show mooncake-transfer-engine sglang` (the releases)")
	}
	if len(ev.Flags) == 0 {
		lacks = append(lacks, "the launch command line (its --hicache-*, --disaggregation-*, --speculative-* flags)")
	}
	return "several causes end in this log's exception and the log does not say which setup it ran: add " + strings.Join(lacks, " and ") + " to the log and explain it again"
}

// infoOnly: every line of the log is an INFO line (glog's I, a Python
// logger's INFO) or one a healthy run prints (healthyError, glog's own
// notice before InitGoogleLogging).
func infoOnly(lines []Line) bool {
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l.Text) == "" || healthyError(l.Text) || strings.Contains(l.Text, "Logging before InitGoogleLogging() is written to STDERR") {
			continue
		}
		if l.Level != "I" {
			return false
		}
		n++
	}
	return n > 0
}
