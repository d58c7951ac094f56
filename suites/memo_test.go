package suites_test

import (
	"sync"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// realRuns holds the real catalog's runs (the Go SGLang model, newest
// release, seed 1) for the other suites that need the same run: the SGLang
// agreement's model side. One `make test` runs a scenario × version on an
// engine once, whichever suite Ginkgo's order reaches first. The agreement
// (first) also runs the real catalog's entries it does not cover in its
// own tail, where its pairs leave slots free: the catalog then waits for
// nothing.
var realRuns = &runMemo{m: map[string]scenarios.Result{}}

type runMemo struct {
	mu sync.Mutex
	m  map[string]scenarios.Result
}

func (r *runMemo) get(key string) (scenarios.Result, bool) {
	if r == nil {
		return scenarios.Result{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.m[key]
	return res, ok
}

// put keeps a run that finished; one the harness broke (error) or a
// cancelled context cut short is not worth reusing.
func (r *runMemo) put(key string, res scenarios.Result) {
	if r == nil || res.Verdict == scenarios.Error {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[key] = res
}
