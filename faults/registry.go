package faults

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Field is one YAML field a kind or mode reads, for docs and
// `faultlab list --faults`.
type Field struct {
	Name string
	Doc  string
}

// KindDef is one fault kind: its fields, its parameters, its validation
// and, for kinds that act on a link, which link.
type KindDef interface {
	Kind() Kind
	Doc() string
	// Fields are the common fields it reads (target, mode, action, stream).
	Fields() []Field
	// Params is the zero value of f's parameter struct (a link kind's is
	// its mode's); nil = none.
	Params(f Fault) any
	// Validate checks a fault of this kind (At/For are checked already).
	Validate(f Fault) error
	// LinkTarget is the far party of the faulted link; "" = no link.
	LinkTarget(f Fault) string
	// Lower is the primitive engines inject for f (primitive.go).
	Lower(f Fault) Primitive
	// Available says why f cannot be injected with an engine's
	// capabilities (nil = it can); the run is a skip with the reason.
	// Embed kindBase for "everywhere".
	Available(f Fault, c Capabilities) error
}

// kindBase gives a KindDef its default: available everywhere.
type kindBase struct{}

func (kindBase) Available(Fault, Capabilities) error { return nil }

// LinkMode is what one link mode does, everywhere it can happen:
//   - Params: its parameter struct (tags: params.go);
//   - Simulate: its effect on one exchange of a simulated link (sim), with
//     its own state on that connection (NewState);
//   - Toxic: the toxiproxy toxic that injects it (fake, real); ok=false
//     means it has none: the run is a skip (Available says why), unless
//     StopsProxy — the proxy itself is stopped (refuse) and healing
//     restarts it;
//   - healing removes the toxic (or restarts the proxy) — nothing else
//     to undo.
//
// Embed modeBase for the defaults (no params, no state, no proxy stop,
// available everywhere).
type LinkMode interface {
	Name() string
	Doc() string
	// Params is the zero value of its parameter struct; nil = none.
	Params() any
	// Validate checks the mode's own parameters (paramsOf[P](f)).
	Validate(f Fault) error
	// NewState is its fresh state on one connection (nil = stateless);
	// Simulate finds it in x.State. toxiproxy keeps a toxic's state per
	// connection and direction: the state holds both directions.
	NewState() any
	Simulate(f Fault, x *Exchange) Effect
	Toxic(f Fault) (typ string, attrs map[string]any, ok bool)
	// StopsProxy: the mode is injected by stopping the proxy (connections
	// refused), not by a toxic.
	StopsProxy() bool
	// Available says why the mode cannot be injected with the engine's
	// capabilities (nil = it can).
	Available(c Capabilities) error
}

// Capabilities are what an engine's world can inject.
type Capabilities struct {
	// Toxiproxy: links are toxiproxy proxies (fake, real), so a mode needs
	// a toxic or StopsProxy; sim's links simulate every mode.
	Toxiproxy bool
	// Containers: the world's parties run in containers (or their model),
	// so container actions can be injected.
	Containers bool
}

// modeBase gives a LinkMode its defaults.
type modeBase struct{}

func (modeBase) Params() any                  { return nil }
func (modeBase) NewState() any                { return nil }
func (modeBase) StopsProxy() bool             { return false }
func (modeBase) Available(Capabilities) error { return nil }

// Verdict is what an exchange on a simulated link meets.
type Verdict int

const (
	// Pass: delivered after Delay.
	Pass Verdict = iota
	// Refuse: connect refused at once (ECONNREFUSED).
	Refuse
	// Blackhole: nothing ever answers; the caller waits its timeout.
	Blackhole
	// ResetPeer: the connection is reset (ECONNRESET) after Delay.
	ResetPeer
	// Closed: the proxy closed the connection mid-exchange (limit_data):
	// the reader sees end of file after Delay.
	Closed
)

func (v Verdict) String() string {
	return [...]string{"pass", "refuse", "blackhole", "reset_peer", "closed"}[v]
}

// Rank orders verdicts when several toxics meet one exchange: refuse beats
// blackhole beats reset beats close beats pass.
func (v Verdict) Rank() int { return [...]int{0, 4, 3, 2, 1}[v] }

// Exchange is one request and reply crossing a simulated link with one
// fault on it.
type Exchange struct {
	// Up, Down: the fault acts on node→server, server→node.
	Up, Down            bool
	ReqBytes, RespBytes int64
	// Rand draws jitter (the world's netsim stream).
	Rand *rand.Rand
	// Now is when the request is written, in the clock of the mode's state.
	Now time.Duration
	// State is the mode's state on the exchange's connection (its
	// NewState: fresh on a fresh connection; nil for a stateless mode).
	State any
}

// Bytes is what crosses the link in the fault's directions.
func (x *Exchange) Bytes() int64 {
	var b int64
	if x.Up {
		b += x.ReqBytes
	}
	if x.Down {
		b += x.RespBytes
	}
	return b
}

// Effect is what one toxic does to one exchange.
type Effect struct {
	Verdict Verdict
	Delay   time.Duration
}

var (
	kinds = map[Kind]KindDef{}
	modes = map[string]LinkMode{}
)

// RegisterKind adds a fault kind; called from init. A duplicate name is a
// programming error.
func RegisterKind(k KindDef) {
	if _, dup := kinds[k.Kind()]; dup {
		panic(fmt.Sprintf("faults: kind %q registered twice", k.Kind()))
	}
	ParamFields(k.Params(Fault{Kind: k.Kind()})) // a bad tag fails at start, not mid-run
	kinds[k.Kind()] = k
}

// RegisterMode adds a link mode; called from init.
func RegisterMode(m LinkMode) {
	if _, dup := modes[m.Name()]; dup {
		panic(fmt.Sprintf("faults: link mode %q registered twice", m.Name()))
	}
	ParamFields(m.Params()) // a bad tag fails at start, not mid-run
	modes[m.Name()] = m
}

// KindOf returns a registered kind.
func KindOf(k Kind) (KindDef, bool) { d, ok := kinds[k]; return d, ok }

// ModeOf returns a registered link mode.
func ModeOf(name string) (LinkMode, bool) { m, ok := modes[name]; return m, ok }

// KindNames lists the registered kinds, sorted.
func KindNames() []string {
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, string(k))
	}
	slices.Sort(out)
	return out
}

// Kinds lists the registered kinds, sorted by name.
func Kinds() []KindDef {
	out := make([]KindDef, 0, len(kinds))
	for _, n := range KindNames() {
		out = append(out, kinds[Kind(n)])
	}
	return out
}

// moded is a KindDef whose faults take a mode from its own list; the
// JSON Schema's mode enum is every kind's (KindModes).
type moded interface{ Modes() []string }

// KindModes lists every mode a registered kind takes (link modes, the
// answer kind's requests, the RDMA kinds' statuses and races), each once,
// in kind order.
func KindModes() []string {
	var out []string
	for _, k := range Kinds() {
		if m, ok := k.(moded); ok {
			for _, mode := range m.Modes() {
				if !slices.Contains(out, mode) {
					out = append(out, mode)
				}
			}
		}
	}
	return out
}

// LinkModes lists the registered link modes, sorted.
func LinkModes() []string {
	out := make([]string, 0, len(modes))
	for m := range modes {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// Modes lists the registered link modes, sorted by name.
func Modes() []LinkMode {
	out := make([]LinkMode, 0, len(modes))
	for _, n := range LinkModes() {
		out = append(out, modes[n])
	}
	return out
}

// Available says why fault f cannot be injected with capabilities c (nil
// = it can): its kind's check, then its link mode's. The scheduler reports
// the reason as a skip.
func Available(f Fault, c Capabilities) error {
	k, ok := kinds[f.Kind]
	if !ok {
		return fmt.Errorf("unknown fault kind %q", f.Kind)
	}
	if err := k.Available(f, c); err != nil {
		return err
	}
	if f, ok = linkFault(f); !ok {
		return nil
	}
	m, err := modeOf(f)
	if err != nil {
		return err
	}
	if err := m.Available(c); err != nil {
		return fmt.Errorf("link mode %s: %w", m.Name(), err)
	}
	if c.Toxiproxy && !m.StopsProxy() {
		if _, _, ok := m.Toxic(f); !ok {
			return fmt.Errorf("link mode %s has no toxiproxy toxic", m.Name())
		}
	}
	return nil
}

// LinkEffect is a link fault ready for a simulated link: its mode resolved
// once when armed, so the link never asks the registry again.
type LinkEffect struct {
	f Fault
	m LinkMode
}

// EffectOf resolves link fault f's mode.
func EffectOf(f Fault) (LinkEffect, error) {
	m, err := modeOf(f)
	if err != nil {
		return LinkEffect{}, err
	}
	return LinkEffect{f: f, m: m}, nil
}

// NewState is the mode's fresh state on a connection (nil = stateless).
func (e LinkEffect) NewState() any { return e.m.NewState() }

// Refuses: a connect meets a refusal (the proxy is stopped).
func (e LinkEffect) Refuses() bool { return e.m.StopsProxy() }

// DropsConnect: a connect over the link gets no SYN-ACK (the mode
// implements DropsConnect() bool: unreachable); it times out as the
// caller's kernel gives up.
func (e LinkEffect) DropsConnect() bool {
	d, ok := e.m.(interface{ DropsConnect() bool })
	return ok && d.DropsConnect()
}

// Fault is the fault it was made from.
func (e LinkEffect) Fault() Fault { return e.f }

// On is the effect on one exchange on a connection whose state in this
// mode is state (nil = a fresh connection), the request written at now;
// state is updated.
func (e LinkEffect) On(rng *rand.Rand, now time.Duration, state any, reqBytes, respBytes int64) Effect {
	if state == nil {
		state = e.m.NewState()
	}
	x := &Exchange{Up: e.f.Stream != "downstream", Down: e.f.Stream != "upstream", ReqBytes: reqBytes, RespBytes: respBytes, Rand: rng, Now: now, State: state}
	return e.m.Simulate(e.f, x)
}

// Simulate is f's effect on one exchange on a fresh connection (zero
// Effect for an unregistered mode).
func Simulate(f Fault, rng *rand.Rand, reqBytes, respBytes int64) Effect {
	e, err := EffectOf(f)
	if err != nil {
		return Effect{}
	}
	return e.On(rng, 0, nil, reqBytes, respBytes)
}

// Toxic is the toxiproxy toxic of a link fault; ok=false: it has none
// (stopProxy: stop the proxy instead; else Available explains the skip).
func Toxic(f Fault) (typ string, attrs map[string]any, ok, stopProxy bool, err error) {
	f, _ = linkFault(f)
	m, err := modeOf(f)
	if err != nil {
		return "", nil, false, false, err
	}
	typ, attrs, ok = m.Toxic(f)
	return typ, attrs, ok, !ok && m.StopsProxy(), nil
}

// MaxDelay is the most link fault f delays one exchange that it lets
// through (0 when its mode says nothing: a mode with a fixed added delay
// implements MaxDelay(Fault) time.Duration).
func MaxDelay(f Fault) time.Duration {
	f, ok := linkFault(f)
	if m, has := modes[f.Mode].(interface{ MaxDelay(Fault) time.Duration }); ok && has {
		return m.MaxDelay(f)
	}
	return 0
}

// modeOf is link fault f's registered mode, or an error naming the valid ones.
func modeOf(f Fault) (LinkMode, error) {
	m, ok := modes[f.Mode]
	if !ok {
		return nil, fmt.Errorf("link mode %q is not registered (valid: %s)", f.Mode, strings.Join(LinkModes(), ", "))
	}
	return m, nil
}

// linkFault is the link fault f lowers to (its mode set, as a kind with a
// fixed mode sets it in Lower); false when f acts on no link.
func linkFault(f Fault) (Fault, bool) {
	k, ok := kinds[f.Kind]
	if !ok || k.LinkTarget(f) == "" {
		return f, false
	}
	if p, ok := k.Lower(f).(LinkPrimitive); ok {
		return p.Fault, true
	}
	return f, false
}

// Holds reports whether f can hold an exchange that started before it
// cleared (the exchange then ends at its timeout or after the delay): a
// kind or link mode that can implements Holds(Fault) bool.
func Holds(f Fault) bool {
	if k, ok := kinds[f.Kind].(interface{ Holds(Fault) bool }); ok && k.Holds(f) {
		return true
	}
	f, ok := linkFault(f)
	if m, has := modes[f.Mode].(interface{ Holds(Fault) bool }); ok && has {
		return m.Holds(f)
	}
	return false
}
