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

// KindDef is one fault kind: its fields, its validation and, for kinds
// that act on a link, which link.
type KindDef interface {
	Kind() Kind
	Doc() string
	Fields() []Field
	// Validate checks a fault of this kind (At/For are checked already).
	Validate(f Fault) error
	// LinkTarget is the far party of the faulted link; "" = no link.
	LinkTarget(f Fault) string
}

// LinkMode is what one link mode does, everywhere it can happen:
//   - Simulate: its effect on one exchange of a simulated link (sim);
//   - Toxic: the toxiproxy toxic that injects it (fake, real); ok=false
//     means the proxy itself is stopped (refuse), so healing restarts it;
//   - healing removes the toxic (or restarts the proxy) — nothing else
//     to undo.
type LinkMode interface {
	Name() string
	Doc() string
	Fields() []Field
	// Validate checks the mode's own fields.
	Validate(f Fault) error
	Simulate(f Fault, x *Exchange) Effect
	Toxic(f Fault) (typ string, attrs map[string]any, ok bool)
}

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
	// Now is when the request is written, in the clock of Conn.Busy.
	Now time.Duration
	// Conn is this toxic's state on the exchange's connection; never nil
	// (a fresh connection has the zero state).
	Conn *ConnState
}

// ConnState is one toxic's state on one connection: toxiproxy runs a
// toxic's pipe per connection and direction (index 0 upstream, node to
// server; 1 downstream), each with its own state.
type ConnState struct {
	// Busy is until when each pipe is busy (slicer).
	Busy [2]time.Duration
	// Sent counts the bytes each pipe has let through (limit_data).
	Sent [2]int64
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
	kinds[k.Kind()] = k
}

// RegisterMode adds a link mode; called from init.
func RegisterMode(m LinkMode) {
	if _, dup := modes[m.Name()]; dup {
		panic(fmt.Sprintf("faults: link mode %q registered twice", m.Name()))
	}
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

// Simulate is f's effect on one exchange on a fresh connection.
func Simulate(f Fault, rng *rand.Rand, reqBytes, respBytes int64) Effect {
	return SimulateAt(f, rng, 0, nil, reqBytes, respBytes)
}

// SimulateAt is f's effect on one exchange on a connection whose state in
// this toxic is conn (nil = a fresh connection), the request written at
// now. conn is updated.
func SimulateAt(f Fault, rng *rand.Rand, now time.Duration, conn *ConnState, reqBytes, respBytes int64) Effect {
	m, ok := modes[f.Mode]
	if !ok {
		return Effect{}
	}
	if conn == nil {
		conn = &ConnState{}
	}
	x := &Exchange{Up: f.Stream != "downstream", Down: f.Stream != "upstream", ReqBytes: reqBytes, RespBytes: respBytes, Rand: rng, Now: now, Conn: conn}
	return m.Simulate(f, x)
}

// Toxic is the toxiproxy toxic of a link fault; ok=false: stop the proxy.
func Toxic(f Fault) (typ string, attrs map[string]any, ok bool, err error) {
	m, found := modes[f.Mode]
	if !found {
		return "", nil, false, fmt.Errorf("link mode %q is not registered (valid: %s)", f.Mode, strings.Join(LinkModes(), ", "))
	}
	typ, attrs, ok = m.Toxic(f)
	return typ, attrs, ok, nil
}
