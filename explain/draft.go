package explain

import (
	"context"
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mooncake-faultlab/faultlab/engine"
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
	return s
}

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
var reErrorWords = regexp.MustCompile(`(?i)\b(failed|failure|error|errors|exception|timeout|timed out|refused|not found|not available|cannot|unable)\b|\[\d+\]$`)

// errorLine: glog's E and F lines, and any line whose words say it failed
// (a quoted message without its prefix, a warning ending in an errno).
func errorLine(l Line) bool {
	return l.Level == "E" || l.Level == "F" || reErrorWords.MatchString(l.Text)
}

// quotedErrors are the error lines a log quotes, as fragments a run's
// log can contain: each line's longest run of words without an address, a
// number or an id (the field's, not the model's); an errno ("[12]") stays,
// it names the error, and a run ending in one wins ("...: Cannot allocate
// memory [12]"); else the longest, the later on a tie.
func quotedErrors(ev Evidence) []string {
	var out []string
	for _, l := range ev.Lines {
		// The exception and its traceback are expect.raises, not lines.
		if !errorLine(l) || raised.MatchString(l.Text) || strings.HasPrefix(l.Text, "File \"") || strings.HasPrefix(l.Text, "Traceback") {
			continue
		}
		best, bestErrno := "", false
		var run []string
		flush := func() {
			f := strings.Trim(strings.Join(run, " "), ":,;=() ")
			// A warning's errno is whatever the last failed call left
			// (PLOG(WARNING) after a size check); an error's is its own.
			errno := l.Level != "W" && l.Level != "I" && len(run) > 1 && reErrno.MatchString(run[len(run)-1]) && len(f) >= 12
			if (errno && !bestErrno) || (errno == bestErrno && len(f) >= len(best)) {
				best, bestErrno = f, errno
			}
			run = nil
		}
		for _, w := range strings.Fields(l.Text) {
			if strings.ContainsAny(w, "0123456789") && !reErrno.MatchString(w) {
				flush()
				continue
			}
			run = append(run, w)
		}
		flush()
		if len(best) >= 12 && !slices.Contains(out, best) {
			out = append(out, best)
		}
	}
	return out
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
	dr.Diagnosis = diag
	if err != nil {
		dr.Missing = []string{err.Error()}
		return dr
	}
	ev := diag.Evidence
	// The scenario causes in rank order: the best first; one the model
	// cannot run (a container world) or does not reproduce gives way to
	// the next.
	var tried []Cause
	for _, c := range append(append([]Cause{}, diag.Causes...), diag.Nearest...) {
		if c.Kind == "scenario" && len(tried) < MaxDraftTries {
			tried = append(tried, c)
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
			versions = []string{based.Version}
			if based.Version == "" {
				vs, _ := sc.Versions("")
				versions = slices.Clone(vs)
				slices.Reverse(versions)
			}
		}
		var first []string
		for _, v := range versions {
			out, missing := draftAt(ctx, sc, &based, eng, log, ev, opt.Name, v)
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

// MaxDraftTries is how many of explain's scenario causes new tries, best
// first, before it gives up.
const MaxDraftTries = 3

// draftAt builds the draft at one version and runs it; the YAML when the
// run ends in the log's error, else what it did not reproduce.
func draftAt(ctx context.Context, sc *scenarios.Scenario, based *Cause, eng engine.Engine, log string, ev Evidence, name, version string) ([]byte, []string) {
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
	setKey(root, "labels", node(labels))
	setKey(root, "mooncake", mapping("versions", []string{version}))
	config := child(root, "config")
	env := child(config, "env")
	settings := settingsFromLog(ev)
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		setKey(env, k, scalar(settings[k]))
	}
	setKey(config, "env", env)
	setKey(root, "config", config)

	exp, quoted, why := expectFromLog(log, ev, sc, version)
	if exp == nil {
		return nil, []string{why}
	}
	setKey(root, "expect", exp)
	root.HeadComment = fmt.Sprintf("based on %s (faultlab explain's best catalog cause, %.1f points): %s", sc.Name, based.Points, based.Cause)
	if ev.SGLangVersion != "" {
		root.HeadComment += "\nthe log states SGLang " + ev.SGLangVersion
	}
	var b strings.Builder
	b.WriteString(SchemaModeline + "\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, []string{fmt.Sprintf("encode scenario: %v", err)}
	}
	out := []byte(b.String())
	draft, err := scenarios.Parse(name+".yaml", out)
	if err != nil {
		return nil, []string{fmt.Sprintf("the draft does not load (a faultlab bug): %v", err)}
	}
	if e := draft.Expect; e.OK != nil && *e.OK && ShowsError(log, ev) {
		return nil, []string{"refusing a draft that expects ok for a log that shows an error (a faultlab bug)"}
	}
	rs := scenarios.Run(ctx, draft, eng, scenarios.Options{Seed: 1, Version: version})
	if len(rs) == 0 {
		return nil, []string{"the draft did not run"}
	}
	r := rs[0]
	if r.Verdict == scenarios.Pass {
		return out, nil
	}
	missing := []string{fmt.Sprintf("%s with the log's settings at Mooncake %s on %s did not end in the log's error: %s %s", sc.Name, version, eng.Name(), r.Verdict, Humanize(r.Reason))}
	if ex := r.Observed.Exception; ex != nil {
		missing = append(missing, fmt.Sprintf("the model raised %s: %s", ex.Class, ex.Message))
	}
	for _, q := range quoted {
		missing = append(missing, "the log quotes: "+q)
	}
	return nil, missing
}

// expectFromLog is the draft's expect: the exception the log ends in (or,
// cut before it, the scenario's own) with its code, and the Mooncake error
// lines the log quotes. nil, with why, when the log shows an error it can
// give no expectation for (a draft is never a green for an error), or when
// only the scenario's own outcome would check the run.
func expectFromLog(log string, ev Evidence, sc *scenarios.Scenario, version string) (exp *yaml.Node, quoted []string, why string) {
	var kv []any
	base := scenarios.ExpectFor(sc.Expect, sc.ByVersion, version)
	ms := reException.FindAllStringSubmatch(log, -1)
	quoted = quotedErrors(ev)
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
	case (base.Raises != nil || base.Dies != nil) && len(quoted) == 0:
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
		if sig := logSignal(log); sig != "" && sig != base.Dies.Signal {
			// The log's own death, not the scenario's.
			return nil, nil, fmt.Sprintf("the log's process died of %s; %s's dies of %s", sig, sc.Name, base.Dies.Signal)
		}
		if base.Dies.Exit != nil {
			kv = append(kv, "dies", mapping("exit", *base.Dies.Exit))
		} else {
			kv = append(kv, "dies", mapping("signal", base.Dies.Signal))
		}
	case len(quoted) > 0:
		// Error lines but the scenario ends well: the lines alone.
	default:
		if ShowsError(log, ev) {
			return nil, nil, "the log shows an error but neither an exception nor an error line explain could turn into an expectation"
		}
		kv = append(kv, "ok", true)
	}
	if len(quoted) > 0 {
		kv = append(kv, "logs", quoted)
	}
	return mapping(kv...), quoted, ""
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

func scalar(s string) *yaml.Node { return node(s) }

// child is m's mapping under key (a new one when absent).
func child(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.MappingNode {
			return m.Content[i+1]
		}
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
