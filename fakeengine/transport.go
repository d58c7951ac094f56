package fakeengine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"time"

	"github.com/mooncake-faultlab/faultlab/fakeengine/servers"
	"github.com/mooncake-faultlab/faultlab/fakeengine/wire"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// nodeNet is one node's view of the network: every address a model names
// is resolved to this node's toxiproxy listener for that party, so each
// link (tp0→master, tp0→metadata, tp0→tp1...) can be faulted on its own.
type nodeNet struct {
	w    *World
	node string
	proc *Process // the calling process (names its shm for mooncake_client)
}

// dialAddr maps a model-visible address to the address to dial.
func (n nodeNet) dialAddr(addr string) string {
	if a, ok := n.w.route(n.node, addr); ok {
		return a
	}
	// Not a party of this world (a wrong address in a config): dial it as
	// is, as the real client would.
	return addr
}

func (n nodeNet) wallTimeouts(t client.Timeouts) wire.Timeouts {
	return wire.Timeouts{Connect: n.w.scale.timeout(t.Connect), Request: n.w.scale.timeout(t.Request)}
}

// rescale reports a transport failure's duration in Mooncake time.
func (n nodeNet) rescale(err error) error {
	if re, ok := master.AsRPCError(err); ok {
		re.After = n.w.scale.mooncake(re.After)
	}
	return err
}

// Master implements client.MasterTransport.
func (n nodeNet) Master(addr string, t client.Timeouts) master.Service {
	stub := servers.MasterStub{Addr: n.dialAddr(addr), T: n.wallTimeouts(t)}
	// Every RPC releases the world gate while it waits on the socket.
	return master.Via{Do: func(ctx context.Context, rpc master.RPC, call func(master.Service) error) error {
		n.w.mvMu.Lock()
		mv := n.w.masterVersion
		n.w.mvMu.Unlock()
		if text, bad := mooncake.SkewFails(mv, n.w.spec.Version, rpc.Op); bad {
			// Version skew: the call reaches the master (a stopped one
			// still refuses) and fails on decoding, before it acts.
			if err := n.call(ctx, func() error { _, err := stub.ServiceReady(ctx); return err }); err != nil {
				return err
			}
			if text == mooncake.SkewInvalidArg {
				mlog.Trace{T: n.w.trace, Source: "master"}.Log(mlog.Warning, "rpc route/execute error, error msg: invalid rpc arg")
			}
			return &master.RPCError{Kind: master.Incompatible, Op: rpc.Op, Text: text}
		}
		return n.call(ctx, func() error { return call(stub) })
	}}
}

// call runs one RPC with the gate released, as coro_io::client_pool does
// it: a refused connect is retried (4 connects spread over
// client.RefusedPoolCost, measured on the real wheels) before the call fails
// with Refused — so a server that comes back within that window answers.
// Durations are reported in Mooncake time.
func (n nodeNet) call(ctx context.Context, fn func() error) error {
	var err error
	n.w.gate.wait(func() {
		start := time.Now()
		gap := n.w.scale.wall(client.RefusedPoolCost / poolConnects)
		for i := 0; ; i++ {
			err = fn()
			re, ok := master.AsRPCError(err)
			if !ok || re.Kind != master.Refused {
				return
			}
			// The pool waits a gap after each connect, and gives up one gap
			// after its last.
			if serr := sleepWall(ctx, gap); serr != nil {
				err = fmt.Errorf("rpc %s: %w", re.Op, serr)
				return
			}
			if i == poolConnects-1 {
				re.After = time.Since(start)
				return
			}
		}
	})
	return n.rescale(err)
}

// poolConnects is how many connects client_pool makes to a refusing server.
const poolConnects = 4

// curlError is a metadata transport failure with curl_easy_strerror's text
// (what Mooncake's HTTP metadata plugin logs).
type curlError struct {
	kind int
	text string
	err  error
}

func (e *curlError) Error() string    { return "curl: " + e.text }
func (e *curlError) Unwrap() error    { return e.err }
func (e *curlError) CurlText() string { return e.text }

var _ te.CurlError = (*curlError)(nil)

// curl's timeouts in Mooncake's HTTPStoragePlugin (transfer_metadata_plugin.cpp).
const (
	curlConnectTimeout = 1500 * time.Millisecond
	curlTimeout        = 3000 * time.Millisecond
)

// Do implements te.MetadataHTTP over real HTTP through this node's proxy.
func (n nodeNet) Do(ctx context.Context, method, rawURL string, body []byte, auth string) (status int, resp []byte, err error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, nil, &curlError{kind: -1, text: "URL using bad/illegal format or missing URL err: " + err.Error(), err: err}
	}
	host, port := u.Hostname(), u.Port()
	connect, timeout := n.w.scale.wall(curlConnectTimeout), n.w.scale.wall(curlTimeout)
	if a, party := n.w.route(n.node, u.Host); party {
		u.Host = a
		connect, timeout = n.w.partyTimeout(curlConnectTimeout), n.w.partyTimeout(curlTimeout)
	}
	n.w.gate.wait(func() { status, resp, err = n.do(ctx, method, u.String(), body, auth, connect, timeout) })
	var ce *curlError
	if errors.As(err, &ce) {
		// curl's message names the URL's host and port (not the proxy's).
		ce.text = curlText(ce.kind, host, port)
	}
	return status, resp, err
}

// curl failures as HTTPStoragePlugin logs them: curl_easy_strerror plus
// the error buffer (curl 8 wording, as sim words them).
const (
	curlRefused = iota
	curlTimedOut
	curlReset
)

func curlText(kind int, host, port string) string {
	switch kind {
	case curlTimedOut:
		return fmt.Sprintf("Timeout was reached err: Operation timed out after %d milliseconds with 0 bytes received", curlTimeout.Milliseconds())
	case curlReset:
		return "Failure when receiving data from the peer err: Recv failure: Connection reset by peer"
	}
	return fmt.Sprintf("Couldn't connect to server err: Failed to connect to %s port %s after 0 ms: Couldn't connect to server", host, port)
}

func (n nodeNet) do(ctx context.Context, method, u string, body []byte, auth string, connect, timeout time.Duration) (int, []byte, error) {
	d := &net.Dialer{Timeout: connect}
	hc := &http.Client{
		Timeout: timeout,
		// One connection per request and no idle pool: nothing outlives the
		// call, so World.Close leaves no goroutine behind.
		Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true},
	}
	defer hc.CloseIdleConnections()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, nil, &curlError{kind: -1, text: "URL using bad/illegal format or missing URL err: " + err.Error(), err: err}
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	r, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, fmt.Errorf("metadata %s %s: %w", method, u, ctx.Err())
		}
		return 0, nil, classifyCurl(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return 0, nil, classifyCurl(err)
	}
	return r.StatusCode, b, nil
}

// classifyCurl names a Go HTTP failure as curl would. A connection closed
// before any response is toxiproxy in front of a stopped server, which a
// direct connect would see as refused.
func classifyCurl(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &curlError{kind: curlTimedOut, err: err}
	case errors.Is(err, syscall.ECONNRESET):
		return &curlError{kind: curlReset, err: err}
	}
	return &curlError{kind: curlRefused, err: err}
}

// RealClient implements client.RealClientTransport: mooncake_client's RPC
// through this node's proxy; shm travels through the world's registry.
func (n nodeNet) RealClient(addr string, t client.Timeouts) client.RealClientService {
	return realClientConn{n: n, stub: servers.RealClientStub{Addr: n.dialAddr(addr), T: n.wallTimeouts(t), Shms: &n.w.shms,
		ShmID: func(shm hostmem.Shm) string { return fmt.Sprintf("%s/p%d/%s", n.node, n.proc.id, shm.FD) }}}
}

type realClientConn struct {
	n    nodeNet
	stub servers.RealClientStub
}

func (c realClientConn) do(ctx context.Context, fn func() error) error { return c.n.call(ctx, fn) }

func (c realClientConn) ServiceReady(ctx context.Context) error {
	return c.do(ctx, func() error { return c.stub.ServiceReady(ctx) })
}

func (c realClientConn) RegisterShm(ctx context.Context, dummy string, shm hostmem.Shm, isLocal bool) (rc int, err error) {
	err = c.do(ctx, func() (e error) { rc, e = c.stub.RegisterShm(ctx, dummy, shm, isLocal); return })
	return
}

func (c realClientConn) Ping(ctx context.Context, dummy string) error {
	return c.do(ctx, func() error { return c.stub.Ping(ctx, dummy) })
}

func (c realClientConn) PutFrom(ctx context.Context, dummy, key string, ptr uint64, size int64, b *client.BufferBatch) (rc int, err error) {
	err = c.do(ctx, func() (e error) { rc, e = c.stub.PutFrom(ctx, dummy, key, ptr, size, b); return })
	return
}

func (c realClientConn) GetInto(ctx context.Context, dummy, key string, ptr uint64, size int64, b *client.BufferBatch) (rc int, err error) {
	err = c.do(ctx, func() (e error) { rc, e = c.stub.GetInto(ctx, dummy, key, ptr, size, b); return })
	return
}

func (c realClientConn) IsExist(ctx context.Context, key string) (rc int, err error) {
	err = c.do(ctx, func() (e error) { rc, e = c.stub.IsExist(ctx, key); return })
	return
}
