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
	// "metadata unchanged" (embedded server from v0.3.12); before, and in
	// the Python server at every tag, any existing rpc_meta key is 400.
	SameValueUnchanged bool
	store              map[string][]byte
}

// New returns an empty server.
func New(sameValueUnchanged bool) *Server {
	return &Server{SameValueUnchanged: sameValueUnchanged, store: map[string][]byte{}}
}

// Handle serves one request. key is the ?key= query value ("" = missing).
// Texts are http_metadata_server.cpp @ v0.3.9/v0.3.12.
func (s *Server) Handle(method, key string, body []byte) (int, []byte) {
	if key == "" {
		return http.StatusBadRequest, []byte("Missing key parameter")
	}
	switch method {
	case http.MethodGet:
		v, ok := s.store[key]
		if !ok {
			return http.StatusNotFound, []byte("metadata not found")
		}
		return http.StatusOK, append([]byte(nil), v...)
	case http.MethodPut:
		if old, ok := s.store[key]; ok && strings.Contains(key, "rpc_meta") {
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

// Reset drops every key (the server restarted).
func (s *Server) Reset() { s.store = map[string][]byte{} }

// Len is the number of keys.
func (s *Server) Len() int { return len(s.store) }
