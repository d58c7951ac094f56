// Package wire is the fake engine's RPC protocol: JSON lines over TCP, one
// connection per call. It stands in for coro_rpc/struct_pack; it is our own
// format, not Mooncake's. Unlike coro_io::client_pool it keeps no idle
// connections, so a call after the server died never reads "End of file" on
// a pooled connection (sim/pool.go models that; docs/ENGINES.md).
//
// A call:
//
//	client dials                        (connect timeout: TCP only)
//	server → {"hello":"faultlab-fake/1","service":"master"}\n
//	client → {"id":1,"method":"PutStart","params":{...}}\n
//	server → {"id":1,"code":0,"result":{...}}\n
//	client closes                       (hello + reply: within the request timeout)
//
// code is a mooncake.ErrorCode (0 = OK); "error" carries a harness failure
// (bad request, unknown method) as text. Failures are classified as the
// models' transports classify them (models/master.RPCError):
//   - dial refused, or the connection closed before the hello (toxiproxy in
//     front of a stopped server accepts, then closes): Refused, at once;
//   - dial not answered within the connect timeout (an unroutable address):
//     ConnectTimeout;
//   - connected, but hello or reply missing after the request timeout
//     (toxiproxy blackhole: the proxy accepts and drops data; a paused
//     server): RequestTimeout;
//   - reset, or EOF/torn line after the hello: Reset.
package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Protocol is the hello banner's protocol name.
const Protocol = "faultlab-fake/1"

// maxLine bounds one JSON line (objects travel base64-encoded in it).
const maxLine = 64 << 20

type hello struct {
	Hello   string `json:"hello"`
	Service string `json:"service"`
}

type request struct {
	ID     uint64          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type response struct {
	ID     uint64          `json:"id"`
	Code   int             `json:"code"`
	Error  string          `json:"error,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	// EOF: the server closed the connection without a reply (admit.go).
	EOF bool `json:"eof,omitempty"`
}

// HandlerFunc serves one method. A mooncake.ErrorCode error travels as its
// code; any other error as text.
type HandlerFunc func(ctx context.Context, params json.RawMessage) (any, error)

// Server accepts connections and dispatches one request per line.
type Server struct {
	service  string
	handlers map[string]HandlerFunc
	logger   *slog.Logger

	ln     net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	pause  Pauser
	// admit and exited: admit.go.
	admit  AdmitFunc
	exited func()
}

// NewServer returns a server for service (named in the hello) with no
// methods yet.
func NewServer(service string, logger *slog.Logger) *Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Server{service: service, handlers: map[string]HandlerFunc{}, logger: logger, conns: map[net.Conn]struct{}{}}
}

// Handle registers a method. Call before Listen.
func (s *Server) Handle(method string, h HandlerFunc) { s.handlers[method] = h }

// Listen binds addr and serves until Close.
func (s *Server) Listen(ctx context.Context, addr string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("wire %s: listen %s: %w", s.service, addr, err)
	}
	s.ln = ln
	// Handlers get a context that Close cancels, not the caller's.
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.accept()
	return nil
}

// Addr is the bound host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	enc := json.NewEncoder(c)
	if err := enc.Encode(hello{Hello: Protocol, Service: s.service}); err != nil {
		return
	}
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for first := true; sc.Scan(); first = false {
		if !s.pause.Wait(s.ctx.Done()) {
			return
		}
		var req request
		resp := response{}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			resp.Error = fmt.Sprintf("bad request: %v", err)
		} else {
			if first && !s.admitted(c, req, enc) {
				return
			}
			resp.ID = req.ID
			s.dispatch(req, &resp)
		}
		if err := enc.Encode(resp); err != nil {
			return
		}
	}
}

func (s *Server) dispatch(req request, resp *response) {
	h, ok := s.handlers[req.Method]
	if !ok {
		resp.Error = fmt.Sprintf("%s: unknown method %q", s.service, req.Method)
		return
	}
	res, err := h(s.ctx, req.Params)
	if err != nil {
		var code mooncake.ErrorCode
		if errors.As(err, &code) {
			resp.Code = int(code)
			return
		}
		resp.Error = err.Error()
		return
	}
	if res != nil {
		b, err := json.Marshal(res)
		if err != nil {
			resp.Error = fmt.Sprintf("%s %s: encode result: %v", s.service, req.Method, err)
			return
		}
		resp.Result = b
	}
}

// Close stops accepting, drops every connection and waits for handlers.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed || s.ln == nil {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	if err != nil {
		return fmt.Errorf("wire %s: close: %w", s.service, err)
	}
	return nil
}

// Timeouts of one call, in wall time (already scaled by the caller).
type Timeouts struct {
	Connect time.Duration
	Request time.Duration
}

// RemoteError is a harness failure reported by the server (not a Mooncake
// error code): a bug, never a scenario outcome.
type RemoteError struct{ Method, Text string }

func (e *RemoteError) Error() string { return fmt.Sprintf("remote %s: %s", e.Method, e.Text) }

// Call makes one call on a fresh connection to addr. A transport failure
// is a *master.RPCError whose After is the wall time spent; a non-zero code
// is returned as mooncake.ErrorCode; result, if non-nil, receives the reply.
func Call(ctx context.Context, addr string, t Timeouts, method string, params, result any) error {
	start := time.Now()
	fail := func(kind master.RPCKind) error {
		return &master.RPCError{Kind: kind, Op: method, After: time.Since(start)}
	}
	var p json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("wire %s: encode params: %w", method, err)
		}
		p = b
	}
	connectDeadline := start.Add(t.Connect)
	dctx, cancel := context.WithDeadline(ctx, connectDeadline)
	var d net.Dialer
	c, err := d.DialContext(dctx, "tcp", addr)
	cancel()
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("wire %s: dial %s: %w", method, addr, cerr)
		}
		if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
			return fail(master.ConnectTimeout)
		}
		return fail(master.Refused)
	}
	defer c.Close()
	// A cancelled ctx interrupts any blocked read or write.
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	r := bufio.NewReader(c)
	// Through a proxy the TCP connect always succeeds; from here on the
	// request timeout runs, as coro_rpc's does once connected. A timer
	// expires the connection rather than SetDeadline(now+d): socket
	// deadlines fire up to 1 ms late (epoll's millisecond timeout), which
	// TimeoutScale would magnify 100-fold; timers are ~0.1 ms late.
	expire := AfterPrecise(t.Request, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer expire.Stop()
	line, err := readLine(r)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("wire %s: %w", method, cerr)
		}
		if isTimeout(err) {
			return fail(master.RequestTimeout)
		}
		if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fail(master.Reset) // reset, or a hello cut short (limit_data)
		}
		// Closed before the hello: toxiproxy accepted but the server behind
		// it is gone, which a direct dial would see as ECONNREFUSED.
		return fail(master.Refused)
	}
	var h hello
	if err := json.Unmarshal(line, &h); err != nil || h.Hello != Protocol {
		return fmt.Errorf("wire %s: %s is not a %s server (got %q)", method, addr, Protocol, line)
	}

	b, err := json.Marshal(request{ID: 1, Method: method, Params: p})
	if err != nil {
		return fmt.Errorf("wire %s: encode request: %w", method, err)
	}
	if _, err := c.Write(append(b, '\n')); err != nil {
		return classifyAfterHello(ctx, method, err, fail)
	}
	line, err = readLine(r)
	if err != nil {
		return classifyAfterHello(ctx, method, err, fail)
	}
	var resp response
	if err := json.Unmarshal(line, &resp); err != nil {
		// A toxic that cut the line (limit_data) leaves a torn reply: the
		// client library would fail to deserialize it, an RPC failure.
		return fail(master.Reset)
	}
	if resp.EOF {
		return fail(master.EOF)
	}
	if resp.Error != "" {
		return &RemoteError{Method: method, Text: resp.Error}
	}
	if resp.Code != 0 {
		return mooncake.ErrorCode(resp.Code)
	}
	if result != nil && len(resp.Result) > 0 {
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("wire %s: decode result: %w", method, err)
		}
	}
	return nil
}

func classifyAfterHello(ctx context.Context, method string, err error, fail func(master.RPCKind) error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("wire %s: %w", method, cerr)
	}
	if isTimeout(err) {
		return fail(master.RequestTimeout)
	}
	return fail(master.Reset)
}

func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return line, nil
}

func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Pause holds every request until Resume, as a SIGSTOPped process: the
// kernel still completes connects (the hello stands for that), but nothing
// answers, so callers hit their request timeout.
func (s *Server) Pause() { s.pause.Pause() }

// Resume releases held requests.
func (s *Server) Resume() { s.pause.Resume() }

// Pauser holds requests while paused; the zero value is running.
type Pauser struct {
	mu     sync.Mutex
	paused chan struct{} // non-nil while paused
}

// Pause holds every later Wait until Resume.
func (p *Pauser) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused == nil {
		p.paused = make(chan struct{})
	}
}

// Resume releases held requests.
func (p *Pauser) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused != nil {
		close(p.paused)
		p.paused = nil
	}
}

// Wait returns true once not paused, false if done closes first.
func (p *Pauser) Wait(done <-chan struct{}) bool {
	p.mu.Lock()
	ch := p.paused
	p.mu.Unlock()
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	case <-done:
		return false
	}
}
