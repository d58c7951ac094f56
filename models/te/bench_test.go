package te_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// wrongPathServer is Mooncake's HTTP metadata server asked at a path it
// has no route for: every request is its framework's 404.
type wrongPathServer struct{ reqs []string }

func (s *wrongPathServer) Do(_ context.Context, method, url string, _ []byte, _ string) (int, []byte, error) {
	s.reqs = append(s.reqs, method)
	return http.StatusNotFound, []byte("404: Not Found"), nil
}

// kvServer is the metadata server at its route: PUT stores, GET of a
// missing key is 404 "metadata not found".
type kvServer struct{ kv map[string][]byte }

func (s *kvServer) Do(_ context.Context, method, url string, body []byte, _ string) (int, []byte, error) {
	switch method {
	case http.MethodPut:
		s.kv[url] = body
		return http.StatusOK, nil, nil
	case http.MethodGet:
		if b, ok := s.kv[url]; ok {
			return http.StatusOK, b, nil
		}
		return http.StatusNotFound, []byte("metadata not found"), nil
	}
	delete(s.kv, url)
	return http.StatusOK, nil, nil
}

// transfer_engine_bench against a metadata URL answering 404 (Mooncake#391):
// the requests and lines each release made on real (docs/REAL-FINDINGS.md
// §43), and the SIGABRT of the initiator's LOG_ASSERT(xport).
func TestBenchMetadata404(t *testing.T) {
	const url = "http://127.0.0.1:8080/metadata/"
	cases := []struct {
		version string
		status  int
		reqs    []string
		logs    []string // the ERROR and FATAL lines after the RPC port's
	}{
		{"0.3.4.post2", -6, []string{"PUT", "PUT"}, []string{
			"Unexpected code in http response, PUT " + url + "?key=mooncake%2Frpc_meta%2F127.0.0.1%3A12345 response code: 404 response body: 404: Not Found",
			"Failed to set location of 127.0.0.1:12345",
			"Unexpected code in http response, PUT " + url + "?key=mooncake%2Fram%2F127.0.0.1%3A12345 response code: 404 response body: 404: Not Found",
			"Failed to register segment descriptor, name 127.0.0.1:12345 protocol tcp",
			"TcpTransport: cannot publish segments, check the availability of metadata storage",
			"Assert failed: xport",
		}},
		{"0.3.9", -6, []string{"PUT", "PUT"}, []string{
			"PUT " + url + "?key=mooncake%2Frpc_meta%2F127.0.0.1%3A12345 http=404 body: 404: Not Found",
			"Failed to set location of 127.0.0.1:12345",
			"PUT " + url + "?key=mooncake%2Fram%2F127.0.0.1%3A12345 http=404 body: 404: Not Found",
			"Failed to register segment descriptor, name 127.0.0.1:12345 protocol tcp",
			"TcpTransport: cannot publish segments, check the availability of metadata storage",
			"Assert failed: xport",
		}},
		{"0.3.13.post1", -6, []string{"PUT", "GET", "PUT", "DELETE"}, []string{
			"PUT " + url + "?key=mooncake%2Frpc_meta%2F127.0.0.1%3A12345 http=404 body: 404: Not Found",
			"Failed to set location of 127.0.0.1:12345",
			"GET " + url + "?key=mooncake%2Fram%2F127.0.0.1%3A12345 http=404 body: 404: Not Found",
			"PUT " + url + "?key=mooncake%2Fram%2F127.0.0.1%3A12345 http=404 body: 404: Not Found",
			"Failed to register segment descriptor, name 127.0.0.1:12345 protocol tcp",
			"TcpTransport: cannot publish segments, check the availability of metadata storage",
			"DELETE " + url + "?key=mooncake%2Fram%2F127.0.0.1%3A12345 http=404 body: 404: Not Found",
			"Failed to unregister segment descriptor, name 127.0.0.1:12345",
			"Assert failed: xport",
		}},
		{"0.3.14", -6, []string{"GET", "PUT", "GET", "PUT", "DELETE"}, nil},
	}
	for _, c := range cases {
		t.Run(c.version, func(t *testing.T) {
			p, err := mooncake.ProfileFor(c.version)
			if err != nil {
				t.Fatal(err)
			}
			var logs []string
			srv := &wrongPathServer{}
			end, err := te.RunBench(context.Background(), te.Config{Profile: p, Host: te.Host{Name: "n"}, Metadata: srv,
				Log: mlog.Func(func(level, text string) {
					if level == mlog.Error || level == mlog.Fatal {
						logs = append(logs, text)
					}
				})}, &stepClock{}, te.BenchFlags{Mode: "initiator", Metadata: url, LocalServerName: "127.0.0.1:12345", BufferSize: 64 << 20, Bound: time.Second})
			if err != nil || end != (engine.BenchEnd{Status: c.status}) {
				t.Fatalf("RunBench = %+v, %v; want status %d", end, err, c.status)
			}
			if !slices.Equal(srv.reqs, c.reqs) {
				t.Errorf("requests %q, want %q", srv.reqs, c.reqs)
			}
			if c.logs != nil && !slices.Equal(logs, c.logs) {
				t.Errorf("error lines\n%s\nwant\n%s", strings.Join(logs, "\n"), strings.Join(c.logs, "\n"))
			}
		})
	}
}

// A target does not assert the transport: after the failed install it
// registers its buffer without publishing it (no transport to do so),
// serves, and on SIGTERM its destructor's DELETE of the rpc_meta fails too
// (real 0.3.9, docs/REAL-FINDINGS.md §43).
func TestBenchTargetAfterFailedInstall(t *testing.T) {
	p, err := mooncake.ProfileFor("0.3.9")
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	srv := &wrongPathServer{}
	end, err := te.RunBench(context.Background(), te.Config{Profile: p, Host: te.Host{Name: "n"}, Metadata: srv,
		Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}, &stepClock{},
		te.BenchFlags{Mode: "target", Metadata: "http://127.0.0.1:8080/metadata/", LocalServerName: "127.0.0.1:12345", BufferSize: 64 << 20, Bound: time.Second})
	if err != nil || end != (engine.BenchEnd{Stopped: true}) {
		t.Fatalf("RunBench = %+v, %v; want stopped, status 0", end, err)
	}
	if want := []string{"PUT", "PUT", "DELETE"}; !slices.Equal(srv.reqs, want) {
		t.Errorf("requests %q, want %q", srv.reqs, want)
	}
	want := []string{"TcpTransport: cannot publish segments, check the availability of metadata storage", "DRAM is used, numa node num: 1",
		"DELETE http://127.0.0.1:8080/metadata/?key=mooncake%2Frpc_meta%2F127.0.0.1%3A12345 http=404 body: 404: Not Found",
		"Failed to remove location of 127.0.0.1:12345"}
	if got := logs[len(logs)-len(want):]; !slices.Equal(got, want) {
		t.Errorf("last lines %q, want %q", got, want)
	}
}

// The remedy: a target at the right URL serves until SIGTERM and returns 0;
// its lines per release (real 0.3.4.post2, 0.3.9, 0.3.13.post1).
func TestBenchTargetServes(t *testing.T) {
	cases := []struct {
		version string
		tail    []string
	}{
		{"0.3.4.post2", []string{"numa node num: 1", "Received signal 15, stopping target server..."}},
		{"0.3.9", []string{"DRAM is used, numa node num: 1"}},
		{"0.3.13.post1", []string{"DRAM is used, numa node num: 1"}},
	}
	for _, c := range cases {
		t.Run(c.version, func(t *testing.T) {
			p, err := mooncake.ProfileFor(c.version)
			if err != nil {
				t.Fatal(err)
			}
			var logs []string
			clock := &stepClock{}
			end, err := te.RunBench(context.Background(), te.Config{Profile: p, Host: te.Host{Name: "n"}, Metadata: &kvServer{kv: map[string][]byte{}},
				Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}, clock,
				te.BenchFlags{Mode: "target", Metadata: "http://127.0.0.1:8080/metadata", LocalServerName: "127.0.0.1:12345", BufferSize: 64 << 20, Bound: 2 * time.Second})
			if err != nil || end != (engine.BenchEnd{Stopped: true}) {
				t.Fatalf("RunBench = %+v, %v; want stopped, status 0", end, err)
			}
			if clock.now != 2*time.Second {
				t.Errorf("served until %v, want 2s", clock.now)
			}
			if got := logs[len(logs)-len(c.tail):]; !slices.Equal(got, c.tail) {
				t.Errorf("last lines %q, want %q (all: %q)", got, c.tail, logs)
			}
		})
	}
}
