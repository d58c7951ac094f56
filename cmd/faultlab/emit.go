package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// expectBlock is an expect: mapping in the scenario format's key order.
type expectBlock struct {
	OK     *bool          `yaml:"ok,omitempty"`
	Raises *raisesBlock   `yaml:"raises,omitempty"`
	Dies   *diesBlock     `yaml:"dies,omitempty"`
	Codes  map[string]any `yaml:"codes,omitempty"`
	Logs   []string       `yaml:"logs,omitempty"`
}

type raisesBlock struct {
	Class   string `yaml:"class"`
	Message string `yaml:"message"`
}

type diesBlock struct {
	Signal string `yaml:"signal,omitempty"`
	Exit   int    `yaml:"exit,omitempty"` // a death by exit() (no signal)
	In     string `yaml:"in,omitempty"`   // the kind of Mooncake call it died in
}

// observedExpect turns what a phase did into the expect block that says
// exactly that: the exception or death, every method's codes, and the
// WARNING/ERROR log lines (at most 4, the first of each text), with the
// world's addresses written back as placeholders.
func observedExpect(r scenarios.Result, o scenarios.Observed) expectBlock {
	var e expectBlock
	abstract := func(s string) string { return scenarios.AbstractAddrs(s, r.Addrs) }
	switch {
	case o.Exception != nil:
		e.Raises = &raisesBlock{Class: o.Exception.Class, Message: abstract(o.Exception.Message)}
	case o.Died != nil:
		e.Dies = &diesBlock{Signal: o.Died.Signal, Exit: o.Died.Exit, In: o.Died.In}
	default:
		t := true
		e.OK = &t
	}
	if c := o.Codes(); len(c) > 0 {
		e.Codes = c
	}
	levels := logLevels(r)
	for _, l := range o.Logs {
		if len(e.Logs) == 4 {
			break
		}
		if lv := levels[l]; lv != "ERROR" && lv != "WARNING" {
			continue
		}
		if l = abstract(l); !slices.Contains(e.Logs, l) {
			e.Logs = append(e.Logs, l)
		}
	}
	return e
}

// logLevels maps a log text to its level, from the trace.
func logLevels(r scenarios.Result) map[string]string {
	m := map[string]string{}
	if r.Trace == nil {
		return m
	}
	for _, ev := range r.Trace.Events() {
		if ev.Kind == "log" {
			if _, ok := m[ev.Text]; !ok {
				m[ev.Text] = ev.Level
			}
		}
	}
	return m
}

// emitExpects prints, per run that ran, the expect: block (and the
// remedy's) of what was observed, ready to paste into the scenario.
func emitExpects(w io.Writer, rs []scenarios.Result) error {
	for _, r := range rs {
		if r.Verdict == scenarios.Skip {
			continue
		}
		doc := map[string]any{"expect": observedExpect(r, r.Observed)}
		if r.Remedy != nil {
			doc["remedy"] = map[string]any{"expect": observedExpect(r, *r.Remedy)}
		}
		var b strings.Builder
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return fmt.Errorf("emit expect: %w", err)
		}
		fmt.Fprintf(w, "\n# observed: %s @%s on %s (%s)\n%s", r.Scenario, r.MooncakeVersion, r.Engine, r.Verdict, b.String())
	}
	return nil
}
