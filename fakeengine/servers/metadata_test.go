package servers

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/metadata"
)

func TestMetadataREST(t *testing.T) {
	type step struct {
		method, query, body string
		status              int
		resp                string
		ctype               string
	}
	const meta = `{"ip_or_host_name":"127.0.0.1","rpc_port":12345}`
	cases := []struct {
		name          string
		sameUnchanged bool
		python        *metadata.PythonRules // the wheel's server instead of the embedded one
		path          string
		steps         []step
	}{
		{name: "get missing key", path: "/metadata", steps: []step{
			{"GET", "key=mooncake/ram/a", "", 404, "metadata not found", "text/plain"},
		}},
		{name: "missing key parameter", path: "/metadata", steps: []step{
			{"GET", "", "", 400, "Missing key parameter", "text/plain"},
			{"PUT", "", "{}", 400, "Missing key parameter", "text/plain"},
			{"DELETE", "key=", "", 400, "Missing key parameter", "text/plain"},
		}},
		{name: "put get delete", path: "/metadata", steps: []step{
			{"PUT", "key=mooncake/ram/a", `{"name":"a"}`, 200, "metadata updated", "text/plain"},
			{"GET", "key=mooncake/ram/a", "", 200, `{"name":"a"}`, "application/json"},
			{"PUT", "key=mooncake/ram/a", `{"name":"b"}`, 200, "metadata updated", "text/plain"},
			{"GET", "key=mooncake/ram/a", "", 200, `{"name":"b"}`, "application/json"},
			{"DELETE", "key=mooncake/ram/a", "", 200, "metadata deleted", "text/plain"},
			{"DELETE", "key=mooncake/ram/a", "", 404, "metadata not found", "text/plain"},
			{"GET", "key=mooncake/ram/a", "", 404, "metadata not found", "text/plain"},
		}},
		{name: "duplicate rpc_meta, old servers", path: "/metadata", steps: []step{
			{"PUT", "key=mooncake/rpc_meta/127.0.0.1:12345", meta, 200, "metadata updated", "text/plain"},
			{"PUT", "key=mooncake/rpc_meta/127.0.0.1:12345", meta, 400, "Duplicate rpc_meta key not allowed", "text/plain"},
			{"PUT", "key=mooncake/rpc_meta/127.0.0.1:12345", "{}", 400, "Duplicate rpc_meta key not allowed", "text/plain"},
		}},
		{name: "duplicate rpc_meta, same value unchanged", sameUnchanged: true, path: "/metadata", steps: []step{
			{"PUT", "key=mooncake/rpc_meta/127.0.0.1:12345", meta, 200, "metadata updated", "text/plain"},
			{"PUT", "key=mooncake/rpc_meta/127.0.0.1:12345", meta, 200, "metadata unchanged", "text/plain"},
			{"PUT", "key=mooncake/rpc_meta/127.0.0.1:12345", "{}", 400, "Duplicate rpc_meta key not allowed", "text/plain"},
			{"DELETE", "key=mooncake/rpc_meta/127.0.0.1:12345", "", 200, "metadata deleted", "text/plain"},
			{"PUT", "key=mooncake/rpc_meta/127.0.0.1:12345", "{}", 200, "metadata updated", "text/plain"},
		}},
		{name: "health", path: "/health", steps: []step{
			{"GET", "", "", 200, "OK", "text/plain"},
		}},
		{name: "python server: no health route, key required (0.3.14)", python: &metadata.PythonRules{DuplicateCheck: true, SameValueOK: true, KeyRequired: true}, path: "/health", steps: []step{
			{"GET", "", "", 404, "404: Not Found", "text/plain"},
		}},
		{name: "python server: missing key (0.3.11)", python: &metadata.PythonRules{DuplicateCheck: true}, path: "/metadata", steps: []step{
			{"GET", "", "", 404, "metadata not found", "text/plain"},
		}},
		// coro_http's and aiohttp's own 404 (real 0.3.13.post1, a URL
		// with a trailing slash).
		{name: "unknown path, embedded server", path: "/metadata/", steps: []step{
			{"PUT", "key=mooncake/rpc_meta/a", meta, 404, "404 Not Found", "text/plain"},
		}},
		{name: "unknown path, python server", python: &metadata.PythonRules{DuplicateCheck: true}, path: "/", steps: []step{
			{"PUT", "key=mooncake/rpc_meta/a", meta, 404, "404: Not Found", "text/plain"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := metadata.New(tc.sameUnchanged)
			if tc.python != nil {
				model = metadata.NewPython(*tc.python)
			}
			h := NewMetadataHandler(model)
			srv, err := ServeHTTP(context.Background(), "127.0.0.1:0", h)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := srv.Close(); err != nil {
					t.Error(err)
				}
			})
			hc := &http.Client{Timeout: 2 * time.Second}
			for i, s := range tc.steps {
				url := "http://" + srv.Addr() + tc.path
				if s.query != "" {
					url += "?" + s.query
				}
				req, err := http.NewRequest(s.method, url, bytes.NewBufferString(s.body))
				if err != nil {
					t.Fatal(err)
				}
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != s.status || string(body) != s.resp || resp.Header.Get("Content-Type") != s.ctype {
					t.Errorf("step %d %s %s?%s: got %d %q (%s), want %d %q (%s)", i, s.method, tc.path, s.query,
						resp.StatusCode, body, resp.Header.Get("Content-Type"), s.status, s.resp, s.ctype)
				}
			}
			hc.CloseIdleConnections()
		})
	}
}

func TestHTTPServerCloseFreesPort(t *testing.T) {
	srv, err := ServeHTTP(context.Background(), "127.0.0.1:0", NewMetadataHandler(metadata.New(true)))
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("dial %s after Close succeeded", addr)
	}
}
