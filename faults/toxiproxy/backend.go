package toxiproxy

import (
	"context"
	"fmt"
	"net"
	"strconv"

	tp "github.com/Shopify/toxiproxy/v2"

	"github.com/mooncake-faultlab/faultlab/netport"
)

// server is where an Injector's proxies run: in this process (New) or in
// toxiproxy's own server, driven over its HTTP API (NewRemote).
type server interface {
	create(name, upstream string) (proxy, error)
	clear() error
}

// proxy is one proxy of a server.
type proxy interface {
	listen() string // the address parties dial
	stop() error    // listener closed: connections refused
	start() error   // listening again on the same address
	addToxic(t toxicSpec) error
	removeToxic(ctx context.Context, name string) error
	resetToxics(ctx context.Context) error
	setUpstream(upstream string) error // the same listener, a new upstream
}

// local is the in-process server: proxies listen on loopback, on ports
// taken from netport rather than :0, so that while a proxy is stopped
// (refuse) no parallel world can bind its port and answer for us.
type local struct {
	srv   *tp.ApiServer
	ports []int // owned until clear
}

func (l *local) create(name, upstream string) (proxy, error) {
	ports, err := netport.Take(1)
	if err != nil {
		return nil, err
	}
	l.ports = append(l.ports, ports[0])
	p := tp.NewProxy(l.srv, name, net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])), upstream)
	if err := l.srv.Collection.Add(p, true); err != nil {
		return nil, err
	}
	return localProxy{p}, nil
}

func (l *local) clear() error {
	err := l.srv.Collection.Clear()
	netport.Release(l.ports...)
	l.ports = nil
	return err
}

type localProxy struct{ p *tp.Proxy }

func (p localProxy) listen() string { return p.p.Listen }
func (p localProxy) stop() error    { p.p.Stop(); return nil }
func (p localProxy) start() error   { return p.p.Start() }

func (p localProxy) setUpstream(upstream string) error {
	p.p.Lock()
	in := &tp.Proxy{Listen: p.p.Listen, Upstream: upstream, Enabled: p.p.Enabled}
	p.p.Unlock()
	return p.p.Update(in)
}

func (p localProxy) addToxic(t toxicSpec) error {
	body, err := jsonBody(t)
	if err != nil {
		return err
	}
	if _, err := p.p.Toxics.AddToxicJson(body); err != nil {
		return fmt.Errorf("add toxic %s: %w", t.Name, err)
	}
	return nil
}

func (p localProxy) removeToxic(ctx context.Context, name string) error {
	return p.p.Toxics.RemoveToxic(ctx, name)
}

func (p localProxy) resetToxics(ctx context.Context) error {
	p.p.Toxics.ResetToxics(ctx)
	return nil
}
