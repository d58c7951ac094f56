package scenarios

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/sglang"
)

// app is one SGLang scheduler started by an init step, with the page →
// host-slot mapping the steps use (page i of a step occupies host slots
// [i*page_size, (i+1)*page_size) of the host pool).
type app struct {
	st       *sglang.MooncakeStore
	pageSize int
}

func startApp(ctx context.Context, l sglang.Launch) (*app, error) {
	st, err := sglang.Start(ctx, l)
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
	r, err := a.st.BatchSetV1(ctx, keys, a.hostIndices(len(keys)))
	return boolsToAny(r), err
}

func (a *app) BatchGet(ctx context.Context, keys []string) ([]any, error) {
	r, err := a.st.BatchGetV1(ctx, keys, a.hostIndices(len(keys)))
	return boolsToAny(r), err
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
		call := Call{Method: c.Method, Code: c.Code, Codes: c.Codes, MS: ms(c.Took)}
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
