package main

import (
	"context"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/mooncake-faultlab/faultlab/cmd/mooncakelines/internal/sourcecov"
	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// explainer feeds each of Mooncake's texts to explain as the one glog
// line an operator would paste: does explain name a cause for it alone?
// A text it names none for is a line a field log can quote and get "no
// cause fits" for, however well the model prints it.
type explainer struct {
	catalog []*scenarios.Scenario
	fp      explain.Fingerprints
}

func newExplainer(ctx context.Context) (*explainer, error) {
	cat, err := scenarios.Catalog()
	if err != nil {
		return nil, err
	}
	return &explainer{cat, explain.Fingerprint(ctx, cat, sim.New(), "")}, nil
}

// glogLine is l as Mooncake prints it: glog's prefix with the level and
// file:line of its first statement, each value made up.
func glogLine(l sourcecov.Line) string {
	level := map[string]string{"WARNING": "W", "PWARNING": "W", "FATAL": "F"}[l.Kind]
	if level == "" {
		level = "E"
	}
	text := strings.TrimSpace(strings.ReplaceAll(l.Text, "«»", "7"))
	return fmt.Sprintf("%s1201 10:00:00.000000 12345 %s] %s\n", level, path.Base(l.Where[0]), text)
}

// causes names explain's first cause for each line ("" for none), at the
// tag's release when faultlab knows it.
func (e *explainer) causes(ctx context.Context, tag string, lines []sourcecov.Line) ([]string, error) {
	version := ""
	if v := strings.TrimPrefix(tag, "v"); slices.Contains(mooncake.Versions, v) {
		version = v
	}
	out := make([]string, len(lines))
	errs := make([]error, len(lines))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, l := range lines {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			d, err := explain.Diagnose(e.catalog, e.fp, glogLine(l), version)
			if top, ok := d.Top(); ok && err == nil && d.Verdict == "cause" {
				out[i] = top.Name
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, ctx.Err()
}
