package realengine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
)

// answerAction: a wrong-answer fault on the HTTP metadata server. An HTTP
// proxy of the harness is started for the fault and the metadata link's
// upstream pointed at it; it answers the requests the fault covers with
// its status and body and forwards the others to the server, and healing points the
// link back and stops it. Only for the fault's time: a proxy always in the
// path would answer 502 where a stopped server refuses.
func (w *World) answerAction(p faults.AnswerPrimitive) (inject, error) {
	f := p.Fault
	if w.ctr != nil {
		return nil, engine.Unsupportedf("real engine: %s: the answer proxy runs on the host, not in a container world", f)
	}
	up, err := w.metadataUpstream(f)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (func(context.Context) error, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("real engine: %s: answer proxy: %w", f, err)
		}
		target := &url.URL{Scheme: "http", Host: up}
		fwd := httputil.NewSingleHostReverseProxy(target)
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if p.Matches(r.Method, r.URL.Query().Get("key")) {
				rw.Header().Set("Content-Type", "application/json")
				rw.WriteHeader(p.Status)
				_, _ = rw.Write([]byte(p.Body))
				return
			}
			fwd.ServeHTTP(rw, r)
		})}
		go func() { _ = srv.Serve(ln) }()
		if err := w.inj.SetUpstream(ctx, "metadata", ln.Addr().String()); err != nil {
			return nil, errors.Join(fmt.Errorf("real engine: %s: %w", f, err), srv.Close())
		}
		w.log.Debug("real engine: answer proxy", "listen", ln.Addr().String(), "upstream", up)
		var once sync.Once
		heal := func(ctx context.Context) error {
			var err error
			once.Do(func() { err = errors.Join(w.inj.SetUpstream(ctx, "metadata", up), srv.Close()) })
			return err
		}
		w.mu.Lock()
		w.answerHeal = heal
		w.mu.Unlock()
		return func(ctx context.Context) error {
			w.mu.Lock()
			w.answerHeal = nil
			w.mu.Unlock()
			return heal(ctx)
		}, nil
	}, nil
}

// metadataUpstream is the address the metadata link forwards to: the
// wheel's server, or the master's embedded one.
func (w *World) metadataUpstream(f faults.Fault) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch w.spec.Metadata {
	case "http":
		if s, ok := w.servers["metadata"]; ok {
			return net.JoinHostPort(w.dialHost("metadata"), strconv.Itoa(s.ports["http"])), nil
		}
	case "master":
		if s, ok := w.servers["master"]; ok {
			return net.JoinHostPort(w.dialHost("master"), strconv.Itoa(s.ports["metadata"])), nil
		}
	}
	return "", engine.Unsupportedf("real engine: %s: the topology has no HTTP metadata server (metadata %q)", f, w.spec.Metadata)
}
