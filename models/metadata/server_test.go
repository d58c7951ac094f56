package metadata_test

import (
	"net/http"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"

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

// The wheel's Python server per release: the probe's sequence on each
// installed wheel (docs/REAL-FINDINGS.md §29), answer for answer.
func TestPythonServerByRelease(t *testing.T) {
	const k = "mooncake/rpc_meta/node0"
	a, b := `{"ip_or_host_name":"127.0.0.1","rpc_port":15000}`, `{"ip_or_host_name":"127.0.0.1","rpc_port":15001}`
	type ans struct {
		code int
		text string
	}
	for _, tc := range []struct {
		name                       string
		rules                      metadata.PythonRules
		again, other, noKey, final ans
	}{
		{"0.3.4.post2", metadata.PythonRules{},
			ans{200, "metadata updated"}, ans{200, "metadata updated"}, ans{404, "metadata not found"}, ans{200, b}},
		{"0.3.6.post1-0.3.11.post1", metadata.PythonRules{DuplicateCheck: true},
			ans{400, "Duplicate rpc_meta key not allowed"}, ans{400, "Duplicate rpc_meta key not allowed"}, ans{404, "metadata not found"}, ans{200, a}},
		{"0.3.12.post1-0.3.13.post1", metadata.PythonRules{DuplicateCheck: true, KeyRequired: true},
			ans{400, "Duplicate rpc_meta key not allowed"}, ans{400, "Duplicate rpc_meta key not allowed"}, ans{400, "metadata key is required"}, ans{200, a}},
		{"0.3.14", metadata.PythonRules{DuplicateCheck: true, SameValueOK: true, KeyRequired: true},
			ans{200, "metadata unchanged"}, ans{400, "Duplicate rpc_meta key not allowed"}, ans{400, "metadata key is required"}, ans{200, a}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := metadata.NewPython(tc.rules)
			got := func(m, key, body string) ans {
				c, r := s.Handle(m, key, []byte(body))
				return ans{c, string(r)}
			}
			for _, st := range []struct {
				what      string
				got, want ans
			}{
				{"PUT A", got(http.MethodPut, k, a), ans{200, "metadata updated"}},
				{"PUT A again", got(http.MethodPut, k, a), tc.again},
				{"PUT B", got(http.MethodPut, k, b), tc.other},
				{"GET", got(http.MethodGet, k, ""), tc.final},
				{"no key", got(http.MethodGet, "", ""), tc.noKey},
				{"DELETE missing", got(http.MethodDelete, "mooncake/ram/nope", ""), ans{404, "metadata not found"}},
			} {
				if st.got != st.want {
					t.Errorf("%s: %v, want %v", st.what, st.got, st.want)
				}
			}
			if f := s.Fresh(); f.Len() != 0 || f.AnyPut != s.AnyPut {
				t.Errorf("Fresh: %d keys, AnyPut %v", f.Len(), f.AnyPut)
			}
		})
	}
}

// 0.3.14's Python server with MC_METADATA_HTTP_TOKEN: 401 "unauthorized"
// unless "Bearer <token>" (real 0.3.14: no header or another token, 401;
// the token, 200). Without the variable, or before 0.3.14, it is open.
func TestAuthorize(t *testing.T) {
	env := map[string]string{metadata.TokenEnv: "s3cret"}
	v14, v13 := mooncake.MustProfile("0.3.14"), mooncake.MustProfile("0.3.13.post1")
	for _, c := range []struct {
		what   string
		s      *metadata.Server
		auth   string
		status int
	}{
		{"no header", metadata.PythonAt(v14, env), "", 401},
		{"another token", metadata.PythonAt(v14, env), "Bearer wrong", 401},
		{"no scheme", metadata.PythonAt(v14, env), "s3cret", 401},
		{"empty bearer", metadata.PythonAt(v14, env), "Bearer ", 401},
		{"the token", metadata.PythonAt(v14, env), "Bearer s3cret", 0},
		{"scheme in any case", metadata.PythonAt(v14, env), "bearer s3cret", 0},
		{"no token set", metadata.PythonAt(v14, nil), "", 0},
		{"before 0.3.14", metadata.PythonAt(v13, env), "", 0},
		{"embedded server", metadata.New(true), "", 0},
	} {
		st, body, ok := c.s.Authorize(c.auth)
		if st != c.status || ok != (c.status == 0) || (!ok && string(body) != "unauthorized") {
			t.Errorf("%s: %d %q %v, want %d", c.what, st, body, ok, c.status)
		}
	}
}
