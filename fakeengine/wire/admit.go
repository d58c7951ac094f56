package wire

import (
	"io"
	"net"
)

// Admission is what a server does with a connection's first request
// before serving it: a server whose transport is not the client's (an
// RDMA coro_rpc server and a TCP client, models/master TCPClient).
type Admission int

const (
	// Serve: as any call.
	Serve Admission = iota
	// Hold: no reply; the connection stays open until the client's
	// request timer closes it, then the admit function's closed runs.
	Hold
	// CloseEOF: the connection is closed without a reply; the client
	// reads end of file (told apart from a reset by the response's eof
	// field, since a JSON-lines close is not coro_rpc's).
	CloseEOF
	// Exit: the server's process ends: the listener closes, every
	// connection is reset; exited runs once, on its own goroutine.
	Exit
)

// AdmitFunc decides a connection's fate from its first request's method.
// closed is called when a held connection ends.
type AdmitFunc func(method string) (a Admission, closed func())

// SetAdmit installs admit (nil: serve every call) and what runs after an
// Exit. Call before Listen.
func (s *Server) SetAdmit(admit AdmitFunc, exited func()) { s.admit, s.exited = admit, exited }

// admitted applies the admission to the connection c whose first request
// is req; false = the connection is done.
func (s *Server) admitted(c net.Conn, req request, enc interface{ Encode(any) error }) bool {
	if s.admit == nil {
		return true
	}
	a, closed := s.admit(req.Method)
	switch a {
	case Hold:
		// Read until the client gives up (its timer closes the socket).
		_, _ = io.Copy(io.Discard, c)
		if closed != nil {
			closed()
		}
		return false
	case CloseEOF:
		_ = enc.Encode(response{ID: req.ID, EOF: true})
		return false
	case Exit:
		s.exit(c)
		return false
	}
	return true
}

// exit ends the server as its process would: no listener, every
// connection reset. Close afterwards is a no-op.
func (s *Server) exit(c net.Conn) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	_ = s.ln.Close()
	for other := range s.conns {
		if tc, ok := other.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with RST: a dead process's sockets
		}
		if other != c {
			_ = other.Close()
		}
	}
	s.mu.Unlock()
	s.cancel()
	if s.exited != nil {
		go s.exited()
	}
}
