package scenarios

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sglang"
)

// app is one SGLang scheduler started by an init step, with the page →
// host-slot mapping the steps use (page i of a step occupies host slots
// [i*page_size, (i+1)*page_size) of the host pool).
type app struct {
	st       sglang.Scheduler
	pageSize int
}

// startApp starts one scheduler through the side that plays SGLang.
func startApp(ctx context.Context, side sglang.Side, l sglang.Launch) (*app, error) {
	st, err := side.Start(ctx, l)
	if st == nil {
		return nil, err
	}
	return &app{st: st, pageSize: l.HostPool.PageSize}, err
}

func (a *app) hostIndices(n int) []int64 {
	out := make([]int64, 0, n*a.pageSize)
	for i := 0; i < n*a.pageSize; i++ {
		out = append(out, int64(i))
	}
	return out
}

func (a *app) BatchSet(ctx context.Context, keys []string) ([]any, error) {
	a.stamp(keys)
	r, err := a.st.BatchSetV1(ctx, keys, a.hostIndices(len(keys)))
	return boolsToAny(r), err
}

func (a *app) BatchGet(ctx context.Context, keys []string) ([]any, error) {
	r, err := a.st.BatchGetV1(ctx, keys, a.hostIndices(len(keys)))
	out := boolsToAny(r)
	if err == nil {
		a.checkContents(keys, out)
	}
	return out, err
}

// contentFP is the fingerprint a page component's content carries: its
// Mooncake key (every put of a key writes the same content).
func contentFP(componentKey string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(componentKey))
	return h.Sum64() | 1 // never 0 (zeros)
}

// pageMemory is what content checks need of a scheduler: its process and
// the host buffers of pages. The Go model has it; real SGLang's memory is
// real, never symbolic, so it is not asked.
type pageMemory interface {
	Process() engine.Process
	PageBuffers(keys []string, hostIndices []int64) ([]string, []uint64, []int64, error)
}

// symbolic returns the scheduler's page memory when it is symbolic.
func (a *app) symbolic() (pageMemory, engine.Contents, bool) {
	pm, ok := a.st.(pageMemory)
	if !ok {
		return nil, nil, false
	}
	mem, ok := pm.Process().(engine.Contents)
	return pm, mem, ok
}

// stamp writes each page component's fingerprint into its host slot before
// a set, where the engine's memory is symbolic (engine.Contents).
func (a *app) stamp(keys []string) {
	pm, mem, ok := a.symbolic()
	if !ok {
		return
	}
	ks, ptrs, sizes, err := pm.PageBuffers(keys, a.hostIndices(len(keys)))
	if err != nil {
		return // BatchSetV1 reports the same problem
	}
	for i := range ks {
		_ = mem.StampContent(ptrs[i], sizes[i], contentFP(ks[i]))
	}
}

// checkContents replaces a page's true with "corrupt: ..." when a get
// reported success but the host slot does not hold what was put under that
// key (the data invariant flags it).
func (a *app) checkContents(keys []string, got []any) {
	pm, mem, ok := a.symbolic()
	if !ok {
		return
	}
	ks, ptrs, sizes, err := pm.PageBuffers(keys, a.hostIndices(len(keys)))
	if err != nil || len(keys) == 0 {
		return
	}
	per := len(ks) / len(keys)
	for p := range got {
		if got[p] != true {
			continue
		}
		for c := p * per; c < (p+1)*per; c++ {
			if fp, err := mem.ContentFP(ptrs[c], sizes[c]); err != nil || fp != contentFP(ks[c]) {
				got[p] = fmt.Sprintf("corrupt: %s holds %#x, not what was put (%#x)", ks[c], fp, contentFP(ks[c]))
				break
			}
		}
	}
}

func (a *app) BatchExists(ctx context.Context, keys []string) (int, error) {
	return a.st.BatchExists(ctx, keys)
}

func (a *app) HealthCheck(ctx context.Context) (int, error) { return a.st.HealthCheck(ctx) }

func (a *app) Close(ctx context.Context) error { return a.st.Close(ctx) }

// calls converts SGLang's record of Mooncake calls.
func (a *app) calls() []Call {
	var out []Call
	for _, c := range a.st.Calls() {
		call := Call{Method: c.Method, Code: c.Code, Codes: c.Codes, MS: ms(c.Took), RacyMS: ms(c.Racy), HostMS: ms(c.Host)}
		if c.Raised != nil {
			call.Raised = &Exception{Class: c.Raised.Class, Message: c.Raised.Message}
		}
		out = append(out, call)
	}
	return out
}

func (c Call) String() string {
	switch {
	case c.Raised != nil:
		return fmt.Sprintf("%s raised %s", c.Method, c.Raised.Class)
	case c.Codes != nil:
		return fmt.Sprintf("%s -> %v", c.Method, c.Codes)
	}
	return fmt.Sprintf("%s -> %d", c.Method, c.Code)
}
