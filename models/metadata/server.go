// Package metadata models the HTTP metadata server (the master's embedded
// one, mooncake-store/src/http_metadata_server.cpp, and the wheel's
// mooncake_http_metadata_server, mooncake-wheel/mooncake/http_metadata_server.py):
// GET/PUT/DELETE /metadata?key=K. Handle is pure request → response, so
// sim calls it directly and the fake engine wraps it in an http.Handler.
package metadata

import (
	"bytes"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TokenEnv is the shared secret's variable, read by the wheel's server and
// every engine's HTTP metadata plugin (0.3.14).
const TokenEnv = "MC_METADATA_HTTP_TOKEN"

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
	// token, when set, is required of every /metadata request as
	// "Authorization: Bearer <token>" (the Python server, 0.3.14).
	token string
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
	// Token is MC_METADATA_HTTP_TOKEN of the server's environment
	// (0.3.14; "" = open).
	Token string
}

// PythonAt is the wheel's Python server of the release with profile p,
// started with env (its own environment: the token).
func PythonAt(p mooncake.Profile, env map[string]string) *Server {
	r := PythonRules{DuplicateCheck: p.PyMetadataDuplicateCheck, SameValueOK: p.PyMetadataSameValueOK, KeyRequired: p.PyMetadataKeyRequired}
	if p.MetadataHTTPToken {
		r.Token = env[TokenEnv]
	}
	return NewPython(r)
}

// NewPython returns an empty wheel's Python server.
func NewPython(r PythonRules) *Server {
	s := &Server{SameValueUnchanged: r.SameValueOK, AnyPut: !r.DuplicateCheck, NoHealth: true, NoRoute: "404: Not Found", token: r.Token, missingKeyStatus: http.StatusNotFound, missingKeyText: "metadata not found", store: map[string][]byte{}}
	if r.KeyRequired {
		s.missingKeyStatus, s.missingKeyText = http.StatusBadRequest, "metadata key is required"
	}
	return s
}

// Authorize answers a /metadata request whose Authorization header is
// auth before Handle does: 401 "unauthorized" unless the server has no
// token or auth is "Bearer <token>" (the scheme in any case), as
// http_metadata_server.py 0.3.14's _token_ok. ok: go on to Handle.
func (s *Server) Authorize(auth string) (status int, body []byte, ok bool) {
	if s.token == "" {
		return 0, nil, true
	}
	scheme, presented, _ := strings.Cut(auth, " ")
	if strings.EqualFold(scheme, "bearer") && presented != "" && subtle.ConstantTimeCompare([]byte(presented), []byte(s.token)) == 1 {
		return 0, nil, true
	}
	return http.StatusUnauthorized, []byte("unauthorized"), false
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
