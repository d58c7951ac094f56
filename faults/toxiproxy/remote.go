package toxiproxy

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// NewRemote drives toxiproxy's own server (e.g. the "toxiproxy" container of
// a container world) over its HTTP API at api (host:port). Proxies listen on
// 0.0.0.0:<port> inside it, ports counted up from firstPort, and parties dial
// advertise:<port> (the server's name on their network). The Injector's
// behaviour — faults, Hold, heals — is the same as New's.
func NewRemote(ctx context.Context, api, advertise string, firstPort int, logger *slog.Logger) (*Injector, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := toxiclient.NewClient(api)
	if _, err := c.Proxies(); err != nil {
		return nil, fmt.Errorf("toxiproxy: API %s: %w", api, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Injector{logger: logger, srv: &remote{c: c, advertise: advertise, next: firstPort}, links: map[string]*link{}}, nil
}

type remote struct {
	c         *toxiclient.Client
	advertise string
	mu        sync.Mutex
	next      int
	names     []string
}

func (r *remote) create(name, upstream string) (proxy, error) {
	r.mu.Lock()
	port := r.next
	r.next++
	r.mu.Unlock()
	p, err := r.c.CreateProxy(name, "0.0.0.0:"+strconv.Itoa(port), upstream)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.names = append(r.names, name)
	r.mu.Unlock()
	return &remoteProxy{p: p, addr: net.JoinHostPort(r.advertise, strconv.Itoa(port))}, nil
}

func (r *remote) clear() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.names {
		p, err := r.c.Proxy(n)
		if err != nil {
			return err
		}
		if err := p.Delete(); err != nil {
			return err
		}
	}
	r.names = nil
	return nil
}

type remoteProxy struct {
	p    *toxiclient.Proxy
	addr string
}

func (p *remoteProxy) listen() string { return p.addr }
func (p *remoteProxy) stop() error    { return p.p.Disable() }
func (p *remoteProxy) start() error   { return p.p.Enable() }

func (p *remoteProxy) setUpstream(upstream string) error {
	p.p.Upstream = upstream
	return p.p.Save()
}

func (p *remoteProxy) addToxic(t toxicSpec) error {
	if _, err := p.p.AddToxic(t.Name, t.Type, t.Stream, t.Toxicity, toxiclient.Attributes(t.Attributes)); err != nil {
		return fmt.Errorf("add toxic %s: %w", t.Name, err)
	}
	return nil
}

func (p *remoteProxy) removeToxic(_ context.Context, name string) error { return p.p.RemoveToxic(name) }

func (p *remoteProxy) resetToxics(_ context.Context) error {
	ts, err := p.p.Toxics()
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := p.p.RemoveToxic(t.Name); err != nil {
			return err
		}
	}
	return nil
}
