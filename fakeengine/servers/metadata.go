// Package servers holds the fake engine's network servers: the HTTP
// metadata server, the master RPC server and the transfer (data) endpoint.
// Each one serves a sim model on a real loopback socket in wall time; none
// re-implements the model.
package servers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/fakeengine/wire"
	"github.com/mooncake-faultlab/faultlab/models/metadata"
)

// MetadataHandler serves Mooncake's HTTP metadata REST API
// (mooncake-store/src/http_metadata_server.cpp) from a models/metadata model:
//
//	GET    /metadata?key=K  200 <value> (Content-Type application/json) | 404 "metadata not found"
//	PUT    /metadata?key=K  200 "metadata updated" | 200 "metadata unchanged" | 400 "Duplicate rpc_meta key not allowed"
//	DELETE /metadata?key=K  200 "metadata deleted" | 404 "metadata not found"
//	any    /metadata        400 "Missing key parameter" without ?key=
//	GET    /health          200 "OK" (the wheel's Python server: 404 "404: Not Found")
//
// The model is not safe for concurrent use; the handler serialises calls.
type MetadataHandler struct {
	mu    sync.Mutex
	model *metadata.Server
	pause wire.Pauser
	// wrong answers a request instead of the model (a wrong-answer fault).
	wrong func(method, key string) (status int, body string, ok bool)
}

// SetWrong makes the handler answer the requests wrong covers with its
// status and body, the store untouched; nil restores its own answers.
func (h *MetadataHandler) SetWrong(wrong func(method, key string) (status int, body string, ok bool)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wrong = wrong
}

// Pause holds every request until Resume (SIGSTOP: the kernel still
// accepts, nothing answers, curl times out).
func (h *MetadataHandler) Pause() { h.pause.Pause() }

// Resume releases held requests.
func (h *MetadataHandler) Resume() { h.pause.Resume() }

// NewMetadataHandler wraps a model.
func NewMetadataHandler(model *metadata.Server) *MetadataHandler {
	return &MetadataHandler{model: model}
}

// Reset drops every key, as a restarted server would.
func (h *MetadataHandler) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.model.Reset()
}

// Len is the number of keys stored.
func (h *MetadataHandler) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.model.Len()
}

// ServeHTTP implements http.Handler.
func (h *MetadataHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.pause.Wait(r.Context().Done()) {
		return
	}
	switch r.URL.Path {
	case "/health":
		if h.model.NoHealth { // a route the Python server lacks
			writeText(w, http.StatusNotFound, h.model.NoRoute)
			return
		}
		if r.Method != http.MethodGet {
			writeText(w, http.StatusMethodNotAllowed, "Method not allowed")
			return
		}
		writeText(w, http.StatusOK, "OK")
	case "/metadata":
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeText(w, http.StatusBadRequest, "failed to read body")
			return
		}
		h.mu.Lock()
		if st, b, ok := h.model.Authorize(r.Header.Get("Authorization")); !ok {
			h.mu.Unlock()
			writeText(w, st, string(b))
			return
		}
		if h.wrong != nil {
			if st, b, ok := h.wrong(r.Method, r.URL.Query().Get("key")); ok {
				h.mu.Unlock()
				writeText(w, st, b)
				return
			}
		}
		status, resp := h.model.Handle(r.Method, r.URL.Query().Get("key"), body)
		h.mu.Unlock()
		if r.Method == http.MethodGet && status == http.StatusOK {
			// The embedded server marks stored values as JSON.
			w.Header().Set("Content-Type", "application/json")
		} else {
			w.Header().Set("Content-Type", "text/plain")
		}
		w.WriteHeader(status)
		_, _ = w.Write(resp)
	default:
		writeText(w, http.StatusNotFound, h.model.NoRoute)
	}
}

func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text)
}

// HTTPServer is an http.Server on a listener it owns, stopped by Close.
type HTTPServer struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	err  error
}

// ServeHTTP listens on addr ("127.0.0.1:0" for an ephemeral port) and
// serves h until Close.
func ServeHTTP(ctx context.Context, addr string, h http.Handler) (*HTTPServer, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http server: listen %s: %w", addr, err)
	}
	s := &HTTPServer{
		srv:  &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
		ln:   ln,
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	return s, nil
}

// Addr is the bound host:port.
func (s *HTTPServer) Addr() string { return s.ln.Addr().String() }

// Close closes the listener and every connection, and waits for Serve to
// return.
func (s *HTTPServer) Close() error {
	err := s.srv.Close()
	<-s.done
	if err != nil {
		return fmt.Errorf("http server %s: close: %w", s.ln.Addr(), err)
	}
	return s.err
}
