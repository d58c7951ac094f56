// Package toxiproxy injects link faults (every kind whose LinkTarget is
// set) with an in-process Toxiproxy v2 server: one proxy per link
// (node→master, node→metadata, node→client, node→node). Parties dial the
// proxy's listen address instead of the server's, so a fault is the toxic
// its link mode names (faults.LinkMode.Toxic), or the proxy stopped
// (a mode that StopsProxy: refuse). A mode with neither cannot be
// injected here: Check says why (the engine's skip).
//
// Shared by the fake engine and the real engine.
package toxiproxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	tp "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// Injector owns one in-process Toxiproxy server and its proxies.
type Injector struct {
	logger *slog.Logger

	mu     sync.Mutex
	srv    server
	links  map[string]*link
	seq    int // toxic name counter, so two faults on one link never collide
	closed bool
}

// link is one proxy and the faults on it. Healing one fault removes only
// its own toxics, so the others stay as they are (a limit_data toxic keeps
// its count); the proxy runs again once no refuse fault and no Hold remain.
type link struct {
	proxy   proxy
	stopped bool // proxy stopped (a refuse fault or a Hold)
	held    bool // the server behind is down (Hold): refuse until Release
	active  []*applied
}

// applied is one fault on a link: its toxics, or none for refuse.
type applied struct {
	f      faults.Fault
	toxics []string
	refuse bool
}

// New starts an injector with no proxies. The server's HTTP API is not
// started: proxies are driven in-process, so nothing listens until Link.
func New(ctx context.Context, logger *slog.Logger) (*Injector, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("toxiproxy: new: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// Toxiproxy logs with zerolog; its proxy events are noise for scenario
	// traces, so it stays silent and we log our own actions via slog.
	srv := tp.NewServer(tp.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	return &Injector{logger: logger, srv: &local{srv: srv}, links: map[string]*link{}}, nil
}

// Link creates the proxy named name in front of upstream (host:port) and
// returns the loopback address parties must dial instead.
func (i *Injector) Link(name, upstream string) (string, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return "", fmt.Errorf("toxiproxy: link %s: injector closed", name)
	}
	if _, ok := i.links[name]; ok {
		return "", fmt.Errorf("toxiproxy: link %s: already exists", name)
	}
	p, err := i.srv.create(name, upstream)
	if err != nil {
		return "", fmt.Errorf("toxiproxy: link %s → %s: %w", name, upstream, err)
	}
	i.links[name] = &link{proxy: p}
	i.logger.Debug("toxiproxy link", "link", name, "listen", p.listen(), "upstream", upstream)
	return p.listen(), nil
}

// Addr returns the listen address of a link.
func (i *Injector) Addr(name string) (string, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	l, ok := i.links[name]
	if !ok {
		return "", fmt.Errorf("toxiproxy: no link %q (have %s)", name, strings.Join(i.namesLocked(), ", "))
	}
	return l.proxy.listen(), nil
}

// Links lists the link names, sorted.
func (i *Injector) Links() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.namesLocked()
}

func (i *Injector) namesLocked() []string {
	names := make([]string, 0, len(i.links))
	for n := range i.links {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// toxicSpec is one toxic as Toxiproxy's JSON API takes it.
type toxicSpec struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Stream     string         `json:"stream"`
	Toxicity   float32        `json:"toxicity"`
	Attributes map[string]any `json:"attributes"`
}

// Toxics returns the toxic (type, attributes) a fault maps to: its link
// mode's (faults.LinkMode.Toxic). Refuse has none (the proxy is stopped
// instead), nor has a mode toxiproxy cannot inject.
func Toxics(f faults.Fault) (typ string, attrs map[string]any, err error) {
	typ, attrs, ok, stop, err := faults.Toxic(f)
	if err != nil {
		return "", nil, fmt.Errorf("toxiproxy: %w", err)
	}
	if stop {
		return "", nil, fmt.Errorf("toxiproxy: mode %q has no toxic: the proxy is stopped", f.Mode)
	}
	if !ok {
		return "", nil, fmt.Errorf("toxiproxy: %w", faults.Available(f, capabilities()))
	}
	return typ, attrs, nil
}

// capabilities are what links through toxiproxy can do.
func capabilities() faults.Capabilities { return faults.Capabilities{Toxiproxy: true} }

// Check says why link fault f cannot be injected through toxiproxy (nil =
// it can): an engine reports it as a skip.
func Check(f faults.Fault) error { return faults.Available(f, capabilities()) }

// streams expands a fault's Stream ("" or both → both directions).
func streams(s string) ([]string, error) {
	switch s {
	case "", "both":
		return []string{"upstream", "downstream"}, nil
	case "upstream", "downstream":
		return []string{s}, nil
	}
	return nil, fmt.Errorf("stream %q: must be one of %s", s, strings.Join(faults.Streams, ", "))
}

// Apply injects f on the named link (see Inject) and keeps it until the
// link is healed.
func (i *Injector) Apply(ctx context.Context, linkName string, f faults.Fault) error {
	_, err := i.Inject(ctx, linkName, f)
	return err
}

// Inject injects link fault f on the named link and returns how to undo
// exactly it: its toxics removed, or — for refuse — the proxy started
// again unless another refuse fault or a Hold keeps it stopped. The link
// is the caller's choice (the engine maps the fault's target to links).
// Toxicity is always 1.0 and jitter is whatever the fault says (0 unless
// given), so only the schedule decides.
func (i *Injector) Inject(ctx context.Context, linkName string, f faults.Fault) (heal func(context.Context) error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("toxiproxy: apply %s on %s: %w", f, linkName, err)
	}
	if !f.IsLink() {
		return nil, fmt.Errorf("toxiproxy: apply on %s: fault kind %s is not a link fault", linkName, f.Kind)
	}
	typ, attrs, toxic, stop, err := faults.Toxic(f)
	if err != nil {
		return nil, fmt.Errorf("toxiproxy: apply on %s: %w", linkName, err)
	}
	if !toxic && !stop {
		return nil, fmt.Errorf("toxiproxy: apply %s on %s: %w", f, linkName, Check(f))
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return nil, fmt.Errorf("toxiproxy: apply %s on %s: injector closed", f, linkName)
	}
	l, ok := i.links[linkName]
	if !ok {
		return nil, fmt.Errorf("toxiproxy: apply %s: no link %q (have %s)", f, linkName, strings.Join(i.namesLocked(), ", "))
	}
	a := &applied{f: f, refuse: !toxic}
	if !toxic {
		// A stopped listener refuses in both directions; one-way refusal
		// does not exist on TCP.
		if f.Stream != "" && f.Stream != "both" {
			return nil, fmt.Errorf("toxiproxy: apply %s on %s: refuse cannot be one-way (stream %s)", f, linkName, f.Stream)
		}
		if !l.stopped {
			if err := l.proxy.stop(); err != nil {
				return nil, fmt.Errorf("toxiproxy: apply %s on %s: %w", f, linkName, err)
			}
			l.stopped = true
		}
		i.logger.Debug("toxiproxy refuse", "link", linkName)
	} else {
		dirs, err := streams(f.Stream)
		if err != nil {
			return nil, fmt.Errorf("toxiproxy: apply %s on %s: %w", f, linkName, err)
		}
		for _, dir := range dirs {
			i.seq++
			name := fmt.Sprintf("%s_%s_%d", typ, dir, i.seq)
			if err := l.proxy.addToxic(toxicSpec{Name: name, Type: typ, Stream: dir, Toxicity: 1.0, Attributes: attrs}); err != nil {
				return nil, fmt.Errorf("toxiproxy: apply %s on %s: add toxic %s: %w", f, linkName, name, err)
			}
			a.toxics = append(a.toxics, name)
			i.logger.Debug("toxiproxy toxic", "link", linkName, "toxic", name, "attributes", attrs)
		}
	}
	l.active = append(l.active, a)
	return func(ctx context.Context) error { return i.remove(ctx, linkName, a) }, nil
}

// remove undoes one applied fault; a fault already healed (Heal, HealAll)
// is nothing to do.
func (i *Injector) remove(ctx context.Context, name string, a *applied) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	l, ok := i.links[name]
	if !ok || i.closed {
		return nil
	}
	idx := slices.Index(l.active, a)
	if idx < 0 {
		return nil
	}
	l.active = slices.Delete(l.active, idx, idx+1)
	var errs []error
	for _, t := range a.toxics {
		if err := l.proxy.removeToxic(ctx, t); err != nil {
			errs = append(errs, fmt.Errorf("toxiproxy: heal %s on %s: remove toxic %s: %w", a.f, name, t, err))
		}
	}
	errs = append(errs, i.restartLocked(name, l))
	return errors.Join(errs...)
}

// restartLocked starts a stopped proxy when nothing keeps it stopped. The
// proxy listens on the same port again.
func (i *Injector) restartLocked(name string, l *link) error {
	if !l.stopped || l.held || i.closed || slices.ContainsFunc(l.active, func(a *applied) bool { return a.refuse }) {
		return nil
	}
	if err := l.proxy.start(); err != nil {
		return fmt.Errorf("toxiproxy: heal %s: restart proxy on %s: %w", name, l.proxy.listen(), err)
	}
	l.stopped = false
	return nil
}

// SetUpstream points a link at a new upstream (a server that came back at
// another address); its listener, state and toxics stay.
func (i *Injector) SetUpstream(_ context.Context, linkName, upstream string) error {
	return i.onLink("set upstream", linkName, func(l *link) error {
		if err := l.proxy.setUpstream(upstream); err != nil {
			return fmt.Errorf("toxiproxy: %s upstream %s: %w", linkName, upstream, err)
		}
		i.logger.Debug("toxiproxy upstream", "link", linkName, "upstream", upstream)
		return nil
	})
}

// Hold makes the link refuse because the server behind it is down (a
// stopped process), whatever faults come and go, until Release.
func (i *Injector) Hold(ctx context.Context, linkName string) error {
	return i.onLink("hold", linkName, func(l *link) error {
		l.held = true
		if !l.stopped {
			if err := l.proxy.stop(); err != nil {
				return fmt.Errorf("toxiproxy: hold %s: %w", linkName, err)
			}
			l.stopped = true
		}
		return ctx.Err()
	})
}

// Release ends a Hold: the link runs again unless a refuse fault is on it;
// the faults still on it stay.
func (i *Injector) Release(_ context.Context, linkName string) error {
	return i.onLink("release", linkName, func(l *link) error {
		l.held = false
		return i.restartLocked(linkName, l)
	})
}

// Heal removes every fault from a link and restarts its proxy unless a
// Hold keeps it stopped.
func (i *Injector) Heal(ctx context.Context, linkName string) error {
	return i.onLink("heal", linkName, func(l *link) error { return i.healLocked(ctx, linkName, l) })
}

// onLink runs fn on the named link under the lock.
func (i *Injector) onLink(op, name string, fn func(*link) error) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	l, ok := i.links[name]
	if !ok {
		return fmt.Errorf("toxiproxy: %s: no link %q (have %s)", op, name, strings.Join(i.namesLocked(), ", "))
	}
	return fn(l)
}

func (i *Injector) healLocked(ctx context.Context, name string, l *link) error {
	err := l.proxy.resetToxics(ctx)
	l.active = nil
	return errors.Join(err, i.restartLocked(name, l))
}

// HealAll heals every link (Holds stay).
func (i *Injector) HealAll(ctx context.Context) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	var errs []error
	for _, name := range i.namesLocked() {
		errs = append(errs, i.healLocked(ctx, name, i.links[name]))
	}
	return errors.Join(errs...)
}

// UpstreamLeak is the top function of the one goroutine toxiproxy v2.12.0
// can leave behind: a chunk in flight when a proxy stops is sent by the
// noop stub to a link writer that has already exited (ToxicLink.write
// returns when the destination closes; NoopToxic.Pipe's send does not
// watch Interrupt). Leak checks ignore exactly this function.
const UpstreamLeak = "github.com/Shopify/toxiproxy/v2/toxics.(*NoopToxic).Pipe"

// Close stops every proxy: listeners closed, connections dropped. Safe to
// call twice.
func (i *Injector) Close() error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return nil
	}
	i.closed = true
	for _, name := range i.namesLocked() {
		l := i.links[name]
		// Removing toxics first lets blocked toxic goroutines (timeout 0
		// never returns on its own) see their interrupt and exit.
		_ = l.proxy.resetToxics(context.Background())
	}
	if err := i.srv.clear(); err != nil {
		return fmt.Errorf("toxiproxy: close: %w", err)
	}
	i.links = map[string]*link{}
	return nil
}
