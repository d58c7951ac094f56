package te_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/metadata"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// httpMeta serves a *metadata.Server; down makes every request time out
// the way curl reports it, and gets counts the GETs that reached it.
type httpMeta struct {
	s    *metadata.Server
	down bool
	gets int
}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "timeout" }
func (timeoutErr) CurlText() string {
	return "Timeout was reached err: Operation timed out after 3000 milliseconds with 0 bytes received"
}

func (m *httpMeta) Do(_ context.Context, method, raw string, body []byte, _ string) (int, []byte, error) {
	if m.down {
		return 0, nil, timeoutErr{}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return 0, nil, errors.New("bad url")
	}
	if method == "GET" {
		m.gets++
	}
	code, resp := m.s.Handle(method, u.Query().Get("key"), body)
	return code, resp, nil
}

func newHTTPEngine(t *testing.T, version string, m *httpMeta) (*te.Engine, *[]string) {
	t.Helper()
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	e := te.New(te.Config{Profile: p, Host: te.Host{Name: "n"}, Metadata: m,
		Log: mlog.Func(func(_, text string) { logs = append(logs, text) })})
	if err := e.InitStore(context.Background(), "127.0.0.1:48513", "http://127.0.0.1:8080/metadata", "tcp", nil); err != nil {
		t.Fatal(err)
	}
	return e, &logs
}

// wantLastLogs checks the engine's last log lines.
func wantLastLogs(t *testing.T, logs []string, want ...string) {
	t.Helper()
	if len(logs) < len(want) || !slices.Equal(logs[len(logs)-len(want):], want) {
		t.Errorf("logs = %q, want them to end with %q", logs, want)
	}
}

const rpcMetaGET = "GET http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A48513"

func TestRPCMetaEntry(t *testing.T) {
	ctx := context.Background()
	t.Run("the own entry is read back once, then cached", func(t *testing.T) {
		m := &httpMeta{s: metadata.New(false)}
		e, _ := newHTTPEngine(t, "0.3.7.post2", m)
		if !rpcOK(ctx, e, "127.0.0.1:48513") || !rpcOK(ctx, e, "127.0.0.1:48513") {
			t.Fatal("RPCMetaEntry = false, want true")
		}
		if m.gets != 1 {
			t.Errorf("GETs = %d, want 1 (rpc_meta_map_ caches a found entry)", m.gets)
		}
		m.down = true
		if !rpcOK(ctx, e, "127.0.0.1:48513") {
			t.Error("a cached entry needs no metadata service")
		}
	})
	t.Run("an unreachable service fails every read, nothing cached", func(t *testing.T) {
		m := &httpMeta{s: metadata.New(false)}
		e, logs := newHTTPEngine(t, "0.3.7.post2", m)
		m.down = true
		for range 2 {
			if rpcOK(ctx, e, "127.0.0.1:48513") {
				t.Fatal("RPCMetaEntry = true with the service down")
			}
		}
		wantLastLogs(t, *logs,
			rpcMetaGET+" curl: Timeout was reached err: Operation timed out after 3000 milliseconds with 0 bytes received",
			"Failed to find location of 127.0.0.1:48513")
		m.down = false
		if !rpcOK(ctx, e, "127.0.0.1:48513") {
			t.Error("RPCMetaEntry = false once the service answers")
		}
	})
	t.Run("a missing entry is a failure with the server's answer", func(t *testing.T) {
		m := &httpMeta{s: metadata.New(false)}
		e, logs := newHTTPEngine(t, "0.3.9", m)
		if rpcOK(ctx, e, "127.0.0.1:9") {
			t.Fatal("RPCMetaEntry = true for a key nobody wrote")
		}
		wantLastLogs(t, *logs,
			"GET http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A9 http=404 body: metadata not found",
			"Failed to find location of 127.0.0.1:9")
	})
	t.Run("P2PHANDSHAKE parses the name", func(t *testing.T) {
		e, _ := newEngine(t, "0.3.9", nil, nil)
		if err := e.InitStore(ctx, "127.0.0.1", te.P2PHandshake, "tcp", nil); err != nil {
			t.Fatal(err)
		}
		if !rpcOK(ctx, e, "127.0.0.1:15000") {
			t.Error("RPCMetaEntry = false in P2PHANDSHAKE mode")
		}
	})
}

func TestRePublishRpcMetaEntry(t *testing.T) {
	ctx := context.Background()
	const own = `{"ip_or_host_name":"127.0.0.1","rpc_port":15000}`
	cases := []struct {
		name    string
		prepare func(s *metadata.Server)
		rc      int
		log     string
		gets    int
		stored  string
	}{
		{"same entry stored: no write", func(*metadata.Server) {}, 0, "", 1, own},
		{"entry lost with the master: written again", func(s *metadata.Server) { s.Reset() }, 0, "Re-publishing RPC meta entry for 127.0.0.1:48513", 1, own},
		{"another location stored: the server refuses the write", func(s *metadata.Server) {
			s.Reset()
			s.Handle("PUT", "mooncake/rpc_meta/127.0.0.1:48513", []byte(`{"ip_or_host_name":"127.0.0.1","rpc_port":16000}`))
		}, mooncake.ERR_METADATA, "Failed to re-publish RPC meta entry for 127.0.0.1:48513", 1, `{"ip_or_host_name":"127.0.0.1","rpc_port":16000}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &httpMeta{s: metadata.New(true)}
			e, logs := newHTTPEngine(t, "0.3.12.post1", m)
			c.prepare(m.s)
			n, gets := len(*logs), m.gets // the install read its own descriptor (0.3.12+)
			if rc := e.RePublishRpcMetaEntry(ctx); rc != c.rc {
				t.Errorf("rc = %d, want %d", rc, c.rc)
			}
			if m.gets-gets != c.gets {
				t.Errorf("GETs = %d, want %d", m.gets-gets, c.gets)
			}
			got := (*logs)[n:]
			if c.log == "" && len(got) != 0 {
				t.Errorf("logs = %q, want none", got)
			}
			if c.log != "" && !slices.Contains(got, c.log) {
				t.Errorf("logs %q lack %q", got, c.log)
			}
			if code, body := m.s.Handle("GET", "mooncake/rpc_meta/127.0.0.1:48513", nil); code != 200 || string(body) != c.stored {
				t.Errorf("stored = %d %s, want 200 %s", code, body, c.stored)
			}
		})
	}
}

// transfer_engine_impl.cpp registerLocalMemory: from v0.3.12 a failed
// descriptor write is rolled back through unregisterLocalMemory, which
// writes the descriptor again (real 0.3.13.post1: two PUT timeouts).
func TestRegisterMetadataRollback(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		version string
		puts    int
		warn    bool
	}{{"0.3.11.post1", 1, false}, {"0.3.12.post1", 2, true}, {"0.3.13.post1", 2, true}} {
		t.Run(c.version, func(t *testing.T) {
			m := &httpMeta{s: metadata.New(true)}
			e, logs := newHTTPEngine(t, c.version, m)
			m.down = true
			n := len(*logs)
			if rc := e.RegisterLocalMemory(ctx, 0x1000, 4096, true); rc != mooncake.ERR_METADATA {
				t.Fatalf("rc = %d, want ERR_METADATA", rc)
			}
			puts := 0
			for _, l := range (*logs)[n:] {
				if l == "Failed to register segment descriptor, name 127.0.0.1:48513 protocol tcp" {
					puts++
				}
			}
			if puts != c.puts {
				t.Errorf("descriptor writes = %d, want %d (logs %q)", puts, c.puts, (*logs)[n:])
			}
			if got := slices.Contains(*logs, "Failed to roll back registration for tcp, ret=-200"); got != c.warn {
				t.Errorf("rollback warning = %v, want %v", got, c.warn)
			}
			if e.IsRegistered(0x1000, 4096) {
				t.Error("the region stayed registered")
			}
		})
	}
}

// From v0.3.10.post2 the TCP install starts from its own name's segment
// descriptor (tcp_transport.cpp v0.3.10.post2:549): with HTTP metadata a
// fresh service answers 404 and the engine warns; in P2P mode the
// handshake branch has no local descriptor yet. Real runs of tcp and of
// auto-discovery's fallback at 0.3.9 … 0.3.14 (REAL-FINDINGS §54) print
// exactly these lines at exactly these releases.
func TestTCPInstallReadsOwnSegmentDesc(t *testing.T) {
	const get404 = "GET http://127.0.0.1:8080/metadata?key=mooncake%2Fram%2F127.0.0.1%3A48513 http=404 body: metadata not found"
	const warn = "Failed to retrieve segment descriptor, name 127.0.0.1:48513"
	const p2p = "Local segment descriptor not found"
	for _, c := range []struct {
		version string
		want    bool
	}{{"0.3.9", false}, {"0.3.10.post1", false}, {"0.3.10.post2", true}, {"0.3.11.post1", true}, {"0.3.12.post1", true}, {"0.3.14", true}} {
		m := &httpMeta{s: metadata.New(false)}
		_, logs := newHTTPEngine(t, c.version, m)
		got := slices.Contains(*logs, get404) && slices.Contains(*logs, warn)
		if got != c.want || (!c.want && m.gets != 0) || slices.Contains(*logs, p2p) {
			t.Errorf("HTTP %s: logs the read = %v (GETs %d), want %v; logs %q", c.version, got, m.gets, c.want, *logs)
		}
		if c.want && slices.Index(*logs, warn) != slices.Index(*logs, get404)+1 {
			t.Errorf("HTTP %s: the warning should follow the 404: %q", c.version, *logs)
		}
		for _, auto := range []bool{false, true} {
			_, logs = newP2PEngine(t, c.version, auto)
			if got := slices.Contains(*logs, p2p); got != c.want {
				t.Errorf("P2P %s (auto-discovery %v): logs %q = %v, want %v; logs %q", c.version, auto, p2p, got, c.want, *logs)
			}
		}
	}
}

// newP2PEngine initialises a P2PHANDSHAKE store engine on tcp, or on
// rdma with no NIC (auto-discovery's TCP fallback).
func newP2PEngine(t *testing.T, version string, auto bool) (*te.Engine, *[]string) {
	t.Helper()
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	e := te.New(te.Config{Profile: p, Host: te.Host{Name: "n"},
		Log: mlog.Func(func(_, text string) { logs = append(logs, text) })})
	proto := "tcp"
	if auto {
		proto = "rdma"
	}
	if err := e.InitStore(context.Background(), "127.0.0.1", te.P2PHandshake, proto, nil); err != nil {
		t.Fatal(err)
	}
	return e, &logs
}

func rpcOK(ctx context.Context, e *te.Engine, name string) bool {
	_, ok := e.RPCMetaEntry(ctx, name)
	return ok
}

// MC_TCP_BIND_ADDRESS is published unchecked; only an address asio can
// resolve reaches the segment (sim,real seed 30005). A bracketed IPv6
// literal is no name to getaddrinfo (real 0.3.12.post1,
// io/peer-advertises-bracketed-ipv6).
func TestResolvable(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "::1": true, "[::1]": false, "localhost": true,
		"not-an-ip": false, "": false, "127.0.0.1:99": false,
	} {
		if got := te.Resolvable(host); got != want {
			t.Errorf("Resolvable(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestHTTPPluginWording: HTTPStoragePlugin's failure texts per release
// (transfer_metadata_plugin.cpp v0.3.5:224-235 against v0.3.6:255-264;
// real 0.3.4.post2: "Unexpected code in http response, PUT … response
// code: 500 response body: injected").
func TestHTTPPluginWording(t *testing.T) {
	ctx := context.Background()
	const u = "http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2Fpeer%3A1"
	for _, tc := range []struct {
		version string
		down    bool
		want    string
	}{
		{"0.3.5", false, "Unexpected code in http response, GET " + u + " response code: 404 response body: metadata not found"},
		{"0.3.6", false, "GET " + u + " http=404 body: metadata not found"},
		{"0.3.4.post2", true, "Error from http client, GET " + u + " error: Timeout was reached"},
		{"0.3.9", true, "GET " + u + " curl: Timeout was reached err: Operation timed out after 3000 milliseconds with 0 bytes received"},
	} {
		m := &httpMeta{s: metadata.New(false)}
		e, logs := newHTTPEngine(t, tc.version, m)
		m.down = tc.down
		if _, ok := e.RPCMetaEntry(ctx, "peer:1"); ok {
			t.Fatalf("%s: RPCMetaEntry(peer:1) = true, want false", tc.version)
		}
		wantLastLogs(t, *logs, tc.want, "Failed to find location of peer:1")
	}
}
