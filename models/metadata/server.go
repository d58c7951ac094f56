// Package metadata models the HTTP metadata server (the master's embedded
// one, mooncake-store/src/http_metadata_server.cpp, and the wheel's
// mooncake_http_metadata_server, mooncake-wheel/mooncake/http_metadata_server.py):
// GET/PUT/DELETE /metadata?key=K. Handle is pure request → response, so
// sim calls it directly and the fake engine wraps it in an http.Handler.
package metadata

import (
	"bytes"
	"net/http"
	"strings"
)

// Server is the key/value store behind /metadata.
type Server struct {
	// SameValueUnchanged: a PUT of an identical rpc_meta value answers 200
	// "metadata unchanged" (embedded server from v0.3.12, the wheel's
	// Python server from 0.3.14); otherwise an existing rpc_meta key is 400.
	SameValueUnchanged bool
	// AnyPut: no rpc_meta check at all, every PUT replaces the value (the
	// Python server before v0.3.6).
	AnyPut bool
	// NoHealth: no GET /health route (the Python server at every release).
	NoHealth bool
	// NoRoute is the body of the 404 for a path other than /metadata (a
	// URL without its path, or with a trailing slash): the web framework's
	// own text (real 0.3.13.post1: coro_http "404 Not Found", aiohttp
	// "404: Not Found").
	NoRoute string
	// missingKey is the answer to a request without ?key=.
	missingKeyStatus int
	missingKeyText   string
	store            map[string][]byte
}

// New returns an empty embedded (C++) server.
func New(sameValueUnchanged bool) *Server {
	return &Server{SameValueUnchanged: sameValueUnchanged, NoRoute: "404 Not Found", missingKeyStatus: http.StatusBadRequest, missingKeyText: "Missing key parameter", store: map[string][]byte{}}
}

// PythonRules are what the wheel's mooncake_http_metadata_server answers
// at a release (real runs of each installed wheel, 2026-12-01,
// docs/REAL-FINDINGS.md §29).
type PythonRules struct {
	// DuplicateCheck: an existing rpc_meta key is refused (v0.3.6+).
	DuplicateCheck bool
	// SameValueOK: an identical value is 200 "metadata unchanged" (0.3.14).
	SameValueOK bool
	// KeyRequired: no ?key= is 400 "metadata key is required" (v0.3.12+);
	// before, 404 "metadata not found".
	KeyRequired bool
}

// NewPython returns an empty wheel's Python server.
func NewPython(r PythonRules) *Server {
	s := &Server{SameValueUnchanged: r.SameValueOK, AnyPut: !r.DuplicateCheck, NoHealth: true, NoRoute: "404: Not Found", missingKeyStatus: http.StatusNotFound, missingKeyText: "metadata not found", store: map[string][]byte{}}
	if r.KeyRequired {
		s.missingKeyStatus, s.missingKeyText = http.StatusBadRequest, "metadata key is required"
	}
	return s
}

// Handle serves one request. key is the ?key= query value ("" = missing).
// Texts are http_metadata_server.cpp @ v0.3.9/v0.3.12 and the wheel's
// http_metadata_server.py.
func (s *Server) Handle(method, key string, body []byte) (int, []byte) {
	if key == "" {
		return s.missingKeyStatus, []byte(s.missingKeyText)
	}
	switch method {
	case http.MethodGet:
		v, ok := s.store[key]
		if !ok {
			return http.StatusNotFound, []byte("metadata not found")
		}
		return http.StatusOK, append([]byte(nil), v...)
	case http.MethodPut:
		if old, ok := s.store[key]; ok && !s.AnyPut && strings.Contains(key, "rpc_meta") {
			if s.SameValueUnchanged && bytes.Equal(old, body) {
				return http.StatusOK, []byte("metadata unchanged")
			}
			return http.StatusBadRequest, []byte("Duplicate rpc_meta key not allowed")
		}
		s.store[key] = append([]byte(nil), body...)
		return http.StatusOK, []byte("metadata updated")
	case http.MethodDelete:
		if _, ok := s.store[key]; !ok {
			return http.StatusNotFound, []byte("metadata not found")
		}
		delete(s.store, key)
		return http.StatusOK, []byte("metadata deleted")
	}
	return http.StatusMethodNotAllowed, []byte("Method not allowed")
}

// Fresh is an empty server with the same rules (a restart).
func (s *Server) Fresh() *Server {
	n := *s
	n.store = map[string][]byte{}
	return &n
}

// Reset drops every key (the server restarted).
func (s *Server) Reset() { s.store = map[string][]byte{} }

// Len is the number of keys.
func (s *Server) Len() int { return len(s.store) }
