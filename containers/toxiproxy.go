package containers

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
)

// Toxiproxy is toxiproxy's own server in the world's container "toxiproxy",
// driven through its HTTP API (the harness dials the container's address on
// the world network; nothing is published). It has the methods of
// faults/toxiproxy.Injector, so an engine uses either without knowing.
type Toxiproxy struct {
	p   *Party
	api *toxiclient.Client

	mu     sync.Mutex
	links  map[string]*remoteLink
	next   int
	seq    int
	closed bool
}

type remoteLink struct {
	proxy   *toxiclient.Proxy
	listen  string // toxiproxy:<port>, what parties dial
	toxics  []string
	refused bool
}

// ToxiproxyAPIPort is the API port inside the container.
const ToxiproxyAPIPort = 8474

// StartToxiproxy starts the world's toxiproxy from image and waits for its API.
func (w *World) StartToxiproxy(ctx context.Context, image string) (*Toxiproxy, error) {
	p, err := w.Start(ctx, PartySpec{Name: "toxiproxy", Image: image})
	if err != nil {
		return nil, err
	}
	go drain(p.Stdout())
	go drain(p.Stderr())
	ip, err := p.IP(ctx)
	if err != nil {
		return nil, err
	}
	api := net.JoinHostPort(ip, strconv.Itoa(ToxiproxyAPIPort))
	t := &Toxiproxy{p: p, api: toxiclient.NewClient(api), links: map[string]*remoteLink{}, next: 20000}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := t.api.Proxies(); err == nil {
			return t, nil
		} else if time.Now().After(deadline) {
			return nil, fmt.Errorf("containers: toxiproxy API %s not up: %w", api, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func drain(r interface{ Read([]byte) (int, error) }) {
	b := make([]byte, 4096)
	for {
		if _, err := r.Read(b); err != nil {
			return
		}
	}
}

// Party is toxiproxy's container.
func (t *Toxiproxy) Party() *Party { return t.p }

// Link creates the proxy name in front of upstream (host:port on the world
// network) and returns "toxiproxy:<port>", the address parties dial.
func (t *Toxiproxy) Link(name, upstream string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return "", fmt.Errorf("toxiproxy: link %s: closed", name)
	}
	if _, ok := t.links[name]; ok {
		return "", fmt.Errorf("toxiproxy: link %s: already exists", name)
	}
	port := t.next
	t.next++
	px, err := t.api.CreateProxy(name, "0.0.0.0:"+strconv.Itoa(port), upstream)
	if err != nil {
		return "", fmt.Errorf("toxiproxy: link %s → %s: %w", name, upstream, err)
	}
	l := &remoteLink{proxy: px, listen: net.JoinHostPort(t.p.Host(), strconv.Itoa(port))}
	t.links[name] = l
	return l.listen, nil
}

// Addr is a link's address on the world network.
func (t *Toxiproxy) Addr(name string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.links[name]
	if !ok {
		return "", fmt.Errorf("toxiproxy: no link %q (have %v)", name, t.namesLocked())
	}
	return l.listen, nil
}

func (t *Toxiproxy) namesLocked() []string {
	names := make([]string, 0, len(t.links))
	for n := range t.links {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Apply injects f on the link: refuse disables the proxy, every other mode
// is the toxic faults/toxiproxy.Toxics maps it to, on each stream.
func (t *Toxiproxy) Apply(ctx context.Context, name string, f faults.Fault) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("toxiproxy: apply %s on %s: %w", f, name, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.links[name]
	if !ok {
		return fmt.Errorf("toxiproxy: apply %s: no link %q (have %v)", f, name, t.namesLocked())
	}
	if f.Mode == faults.ModeRefuse {
		if f.Stream != "" && f.Stream != "both" {
			return fmt.Errorf("toxiproxy: apply %s on %s: refuse cannot be one-way (stream %s)", f, name, f.Stream)
		}
		if err := l.proxy.Disable(); err != nil {
			return fmt.Errorf("toxiproxy: refuse %s: %w", name, err)
		}
		l.refused = true
		return nil
	}
	typ, attrs, err := toxiproxy.Toxics(f)
	if err != nil {
		return fmt.Errorf("toxiproxy: apply on %s: %w", name, err)
	}
	dirs := []string{"upstream", "downstream"}
	switch f.Stream {
	case "", "both":
	case "upstream", "downstream":
		dirs = []string{f.Stream}
	default:
		return fmt.Errorf("toxiproxy: apply %s on %s: stream %q: must be one of %v", f, name, f.Stream, faults.Streams)
	}
	for _, dir := range dirs {
		t.seq++
		tn := fmt.Sprintf("%s_%s_%d", typ, dir, t.seq)
		if _, err := l.proxy.AddToxic(tn, typ, dir, 1.0, toxiclient.Attributes(attrs)); err != nil {
			return fmt.Errorf("toxiproxy: apply %s on %s: add toxic %s: %w", f, name, tn, err)
		}
		l.toxics = append(l.toxics, tn)
	}
	return nil
}

// Heal removes the link's toxics and enables it again.
func (t *Toxiproxy) Heal(ctx context.Context, name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.links[name]
	if !ok {
		return fmt.Errorf("toxiproxy: heal: no link %q (have %v)", name, t.namesLocked())
	}
	return t.healLocked(name, l)
}

func (t *Toxiproxy) healLocked(name string, l *remoteLink) error {
	for _, tn := range l.toxics {
		if err := l.proxy.RemoveToxic(tn); err != nil {
			return fmt.Errorf("toxiproxy: heal %s: remove %s: %w", name, tn, err)
		}
	}
	l.toxics = nil
	if l.refused {
		if err := l.proxy.Enable(); err != nil {
			return fmt.Errorf("toxiproxy: heal %s: enable: %w", name, err)
		}
		l.refused = false
	}
	return nil
}

// HealAll heals every link.
func (t *Toxiproxy) HealAll(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, n := range t.namesLocked() {
		if err := t.healLocked(n, t.links[n]); err != nil {
			return err
		}
	}
	return nil
}

// Close forgets the links; the container goes with the world.
func (t *Toxiproxy) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	t.links = map[string]*remoteLink{}
	return nil
}
