// Package timeline renders runs as a self-contained HTML page: per run one
// lane per party (SGLang on each node, master, metadata service,
// mooncake_client, faults, harness) on a shared time axis, every call,
// return code, log line and fault as a mark, failures highlighted, and the
// full event list below. No script, no server, no external file.
package timeline

import (
	"fmt"
	"html/template"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// Lane is one party's row.
type Lane struct {
	ID    string // stable id: sglang-tp0, master, metadata, client, fault, harness
	Label string
	Marks []Mark
}

// Mark is one event on a lane.
type Mark struct {
	Left  float64 // percent of the axis
	At    string
	Kind  string
	Text  string
	Bad   bool
	Fault bool
	// Width (percent) draws an active fault as a bar from its start to
	// its heal (or the end of the run).
	Width float64
}

// Run is one result's section.
type Run struct {
	Title   string
	Verdict string
	Reason  string
	Span    string
	Ticks   []Tick
	Lanes   []Lane
	Events  []Row
}

// Tick is an axis label.
type Tick struct {
	Left  float64
	Label string
}

// Row is one line of the event list.
type Row struct {
	At, Lane, Kind, Text string
	Bad                  bool
}

// negCode: a Mooncake error code (negative) among a call's return codes.
var negCode = regexp.MustCompile(`(^|[\[ ])-\d+`)

// laneOrder: the parties in the order a reader follows a request.
var laneOrder = []string{"sglang", "client", "master", "metadata", "fault", "harness"}

// laneOf maps a trace source to its lane. SGLang's own events carry no
// node in the trace: they belong to the node whose Mooncake store spoke
// last (every catalog scenario with several nodes inits them in turn).
func laneOf(src, lastNode string) (id, label string) {
	switch {
	case strings.HasPrefix(src, "mooncake:"):
		n := strings.TrimPrefix(src, "mooncake:")
		return "sglang-" + n, "SGLang " + n + " (MooncakeStore)"
	case src == "sglang":
		return "sglang-" + lastNode, "SGLang " + lastNode + " (MooncakeStore)"
	case src == "master":
		return "master", "mooncake_master"
	case src == "metadata":
		return "metadata", "metadata service"
	case src == "client":
		return "client", "mooncake_client"
	case src == "fault":
		return "fault", "faults"
	}
	return src, src
}

func rank(id string) int {
	for i, p := range laneOrder {
		if strings.HasPrefix(id, p) {
			return i
		}
	}
	return len(laneOrder)
}

// bad: an event that shows something went wrong.
func bad(e trace.Event) bool {
	switch e.Kind {
	case "raise", "died":
		return true
	case "return":
		_, codes, ok := strings.Cut(e.Text, "-> ")
		return ok && negCode.MatchString(codes)
	case "log":
		return e.Level == "ERROR" || e.Level == "FATAL"
	}
	return false
}

// Build lays out one result.
func Build(r scenarios.Result) Run {
	// The run's own addresses, as the report has them: a person reads
	// this page (placeholders are for scenarios and comparisons).
	run := Run{Title: fmt.Sprintf("%s @%s on %s (seed %d)", r.Scenario, r.MooncakeVersion, r.Engine, r.Seed), Verdict: r.Verdict, Reason: scenarios.ExpandAddrs(r.Reason, r.Addrs)}
	var evs []trace.Event
	if r.Trace != nil {
		evs = r.Trace.Events()
	}
	var end time.Duration
	for _, e := range evs {
		end = max(end, e.At)
	}
	span := max(end, time.Millisecond)
	run.Span = fmtAt(end)
	for i := 0; i <= 4; i++ {
		run.Ticks = append(run.Ticks, Tick{Left: float64(i) * 25, Label: fmtAt(span * time.Duration(i) / 4)})
	}
	lanes := map[string]*Lane{}
	// The master and an HTTP metadata service get a lane also when they
	// said nothing (down from the start); mooncake_client when it spoke.
	for _, role := range []string{"master", "metadata"} {
		if a, ok := r.Addrs[role]; ok && (role == "master" || strings.HasPrefix(a, "http")) {
			id, label := laneOf(role, "")
			lanes[id] = &Lane{ID: id, Label: label}
		}
	}
	lastNode := "tp0"
	for _, e := range evs {
		if n, ok := strings.CutPrefix(e.Source, "mooncake:"); ok {
			lastNode = n
		}
		id, label := laneOf(e.Source, lastNode)
		l, ok := lanes[id]
		if !ok {
			l = &Lane{ID: id, Label: label}
			lanes[id] = l
		}
		kind := e.Kind
		if e.Level != "" {
			kind = e.Level
		}
		text := scenarios.ExpandAddrs(e.Text, r.Addrs)
		m := Mark{Left: 100 * float64(e.At) / float64(span), At: fmtAt(e.At), Kind: kind, Text: text, Bad: bad(e), Fault: e.Source == "fault"}
		if f, ok := strings.CutPrefix(e.Text, "start "); ok && m.Fault {
			m.Width = 100 * float64(faultEnd(evs, f, e.At, end)-e.At) / float64(span)
		}
		l.Marks = append(l.Marks, m)
		run.Events = append(run.Events, Row{At: m.At, Lane: label, Kind: kind, Text: text, Bad: m.Bad})
	}
	for _, l := range lanes {
		run.Lanes = append(run.Lanes, *l)
	}
	slices.SortFunc(run.Lanes, func(a, b Lane) int {
		if d := rank(a.ID) - rank(b.ID); d != 0 {
			return d
		}
		return strings.Compare(a.ID, b.ID)
	})
	return run
}

// faultEnd is when the fault started at from was healed or cleared (the
// run's end if never).
func faultEnd(evs []trace.Event, fault string, from, end time.Duration) time.Duration {
	for _, e := range evs {
		if e.Source == "fault" && e.At >= from && (e.Text == "heal "+fault || e.Text == "clear all") {
			return e.At
		}
	}
	return end
}

func fmtAt(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }

// Write renders the runs (skipped ones are left out: nothing happened).
func Write(w io.Writer, title string, rs []scenarios.Result) error {
	var runs []Run
	for _, r := range rs {
		if r.Verdict != scenarios.Skip {
			runs = append(runs, Build(r))
		}
	}
	return page.Execute(w, struct {
		Title string
		Runs  []Run
	}{title, runs})
}

var page = template.Must(template.New("timeline").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fff}
h1{font-size:18px}
section.run{border:1px solid #ccc;border-radius:6px;margin:0 0 24px;padding:8px 12px}
section.run.fail,section.run.error{border:2px solid #c62828;background:#fff5f5}
h2{font-size:15px;margin:4px 0}
.verdict{font-weight:bold;text-transform:uppercase;padding:1px 6px;border-radius:3px;background:#2e7d32;color:#fff}
.fail .verdict,.error .verdict{background:#c62828}
.reason{color:#c62828;margin:2px 0 8px}
.axis,.lane{display:flex;align-items:center;min-height:26px}
.lane{border-top:1px solid #eee}
.label{width:220px;flex:none;font-weight:600;padding-right:8px}
.track{position:relative;flex:1;height:22px;background:#fafafa}
.axis .track{background:none;height:16px;color:#666;font-size:11px}
.tick{position:absolute;transform:translateX(-50%);white-space:nowrap}
.mark{position:absolute;top:3px;width:6px;height:16px;margin-left:-3px;border-radius:2px;background:#1565c0;opacity:.8}
.mark.log{background:#90a4ae}.mark.return{background:#2e7d32}.mark.call{background:#1565c0}
.mark.fault{background:#ef6c00;height:20px;top:1px;min-width:6px;opacity:.6}
.mark.bad{background:#c62828;opacity:1;z-index:2}
table{border-collapse:collapse;width:100%;margin-top:8px;font:12px ui-monospace,monospace}
td{padding:1px 6px;vertical-align:top;border-top:1px solid #f0f0f0}
tr.bad td{color:#c62828;font-weight:600}
details summary{cursor:pointer;color:#555;margin-top:6px}
</style></head><body>
<h1>{{.Title}}</h1>
{{range .Runs}}<section class="run {{.Verdict}}" data-verdict="{{.Verdict}}">
<h2><span class="verdict">{{.Verdict}}</span> {{.Title}} <small>({{.Span}})</small></h2>
{{if .Reason}}<div class="reason">{{.Reason}}</div>{{end}}
<div class="axis"><div class="label">time</div><div class="track">{{range .Ticks}}<span class="tick" style="left:{{.Left}}%">{{.Label}}</span>{{end}}</div></div>
{{range .Lanes}}<div class="lane" data-lane="{{.ID}}"><div class="label">{{.Label}}</div><div class="track">{{range .Marks}}<span class="mark {{.Kind}}{{if .Bad}} bad{{end}}{{if .Fault}} fault{{end}}" style="left:{{.Left}}%{{if .Width}};width:{{.Width}}%;margin-left:0{{end}}" title="{{.At}} {{.Kind}}: {{.Text}}"></span>{{end}}</div></div>
{{end}}<details open><summary>{{len .Events}} events</summary><table>
{{range .Events}}<tr{{if .Bad}} class="bad"{{end}}><td>{{.At}}</td><td>{{.Lane}}</td><td>{{.Kind}}</td><td>{{.Text}}</td></tr>
{{end}}</table></details></section>
{{end}}</body></html>
`))
