package metadata_test

import (
	"net/http"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/metadata"
)

func TestREST(t *testing.T) {
	type step struct {
		method, key, body string
		code              int
		resp              string
	}
	run := func(t *testing.T, s *metadata.Server, steps []step) {
		for i, st := range steps {
			code, resp := s.Handle(st.method, st.key, []byte(st.body))
			if code != st.code || string(resp) != st.resp {
				t.Fatalf("step %d %s %s: got %d %q, want %d %q", i, st.method, st.key, code, resp, st.code, st.resp)
			}
		}
	}
	common := []step{
		{http.MethodGet, "", "", 400, "Missing key parameter"},
		{http.MethodGet, "mooncake/ram/a", "", 404, "metadata not found"},
		{http.MethodPut, "mooncake/ram/a", `{"x":1}`, 200, "metadata updated"},
		{http.MethodPut, "mooncake/ram/a", `{"x":2}`, 200, "metadata updated"},
		{http.MethodGet, "mooncake/ram/a", "", 200, `{"x":2}`},
		{http.MethodPut, "mooncake/rpc_meta/h:1", `{"p":1}`, 200, "metadata updated"},
		{http.MethodPut, "mooncake/rpc_meta/h:1", `{"p":2}`, 400, "Duplicate rpc_meta key not allowed"},
		{http.MethodDelete, "mooncake/rpc_meta/h:1", "", 200, "metadata deleted"},
		{http.MethodDelete, "mooncake/rpc_meta/h:1", "", 404, "metadata not found"},
	}
	t.Run("python server / embedded before 0.3.12", func(t *testing.T) {
		s := metadata.New(false)
		run(t, s, append(common,
			step{http.MethodPut, "mooncake/rpc_meta/h:2", `{"p":1}`, 200, "metadata updated"},
			step{http.MethodPut, "mooncake/rpc_meta/h:2", `{"p":1}`, 400, "Duplicate rpc_meta key not allowed"}))
	})
	t.Run("embedded 0.3.12+", func(t *testing.T) {
		s := metadata.New(true)
		run(t, s, append(common,
			step{http.MethodPut, "mooncake/rpc_meta/h:2", `{"p":1}`, 200, "metadata updated"},
			step{http.MethodPut, "mooncake/rpc_meta/h:2", `{"p":1}`, 200, "metadata unchanged"}))
	})
}
