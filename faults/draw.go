package faults

// Draw is what explore's generator offers a kind to draw a fault of itself:
// its random source, the world's parties, and what makes a fault slow on a
// wall-clock engine. A kind that implements Draw(*Draw) (Fault, bool) draws
// its own (documented-failure weights, wall-engine limits); any other kind
// gets its common fields and parameters drawn and is kept if it validates.
// A kind may also weigh itself (Weight(*Draw) int; default 1, 0 = never
// here) and say that an action at world start races the real processes'
// own start on a wall-clock engine (RacesStart() bool).
type Draw struct {
	// Pick returns one of choices, uniformly; Chance is true with
	// probability p.
	Pick   func(choices ...string) string
	Chance func(p float64) bool
	// LinkTargets are the parties a link fault may name here;
	// ProcessTargets the servers a process action may.
	LinkTargets, ProcessTargets []string
	// Metadata: a metadata service of its own (not P2PHANDSHAKE); Client: a
	// mooncake_client (it keeps its own 30 s RPC timeouts).
	Metadata, Client bool
	// Wall: a wall-clock engine runs it (its links are toxiproxy's);
	// RPCTimeoutKnob: MC_RPC_TIMEOUT_MS exists (0.3.12+), so a held
	// exchange need not cost 30 s of wall time.
	Wall, RPCTimeoutKnob bool
}

// slowHold: on a wall engine an exchange held until its RPC timeout costs
// 30 s (no MC_RPC_TIMEOUT_MS, or mooncake_client's own timeouts).
func (d *Draw) slowHold() bool { return d.Wall && (!d.RPCTimeoutKnob || d.Client) }

// DrawKinds are the registered kinds, each as often as its weight here.
func DrawKinds(d *Draw) []Kind {
	var out []Kind
	for _, k := range Kinds() {
		w := 1
		if wk, ok := k.(interface{ Weight(*Draw) int }); ok {
			w = wk.Weight(d)
		}
		for range w {
			out = append(out, k.Kind())
		}
	}
	return out
}

// DrawFault draws a fault of kind (At and For are the caller's); false: no
// valid one was drawn.
func DrawFault(kind Kind, d *Draw) (Fault, bool) {
	k, ok := kinds[kind]
	if !ok {
		return Fault{}, false
	}
	if dk, ok := k.(interface{ Draw(*Draw) (Fault, bool) }); ok {
		return dk.Draw(d)
	}
	for range 3 {
		f := Fault{Kind: kind}
		for _, fl := range k.Fields() {
			switch fl.Name {
			case "target":
				f.Target = d.Pick(d.LinkTargets...)
			case "mode":
				f.Mode = d.Pick(append(LinkModes(), DownModes...)...)
			case "action":
				f.Action = d.Pick(drawnActions...)
			}
		}
		f.Params = DrawParams(k.Params(f), d)
		if f.Validate() == nil {
			return f, true
		}
	}
	return Fault{}, false
}

// DrawParams draws each field of params' type from its gen tag ("" and
// 0 leave it unset); nil for nil.
func DrawParams(zero any, d *Draw) any {
	if zero == nil {
		return nil
	}
	set := NewParams(zero)
	for _, p := range ParamFields(zero) {
		if len(p.Gen) == 0 {
			continue
		}
		if v := d.Pick(p.Gen...); v != "" && v != "0" {
			if err := set.Set(p.Name, v); err != nil {
				panic("faults: gen tag of " + p.Name + ": " + err.Error())
			}
		}
	}
	return set.Value()
}

// RacesStart reports whether f, at world start on a wall-clock engine,
// races the real processes' own start.
func RacesStart(f Fault) bool {
	k, ok := kinds[f.Kind].(interface{ RacesStart() bool })
	return ok && k.RacesStart()
}

// Weight: the documented failures come twice as often; a link the topology
// lacks never.
func (k downKind) Weight(d *Draw) int {
	switch {
	case k.process && !d.Client, k.link == "metadata" && !d.Metadata:
		return 0
	case k.process:
		return 1
	}
	return 2
}

// Draw: refuse twice as often as blackhole; on a wall engine a blackhole
// that would cost 30 s per attempt becomes refuse.
func (k downKind) Draw(d *Draw) (Fault, bool) {
	f := Fault{Kind: k.kind, Mode: d.Pick(ModeRefuse, ModeRefuse, ModeBlackhole)}
	if d.Wall && d.Client {
		f.Mode = ModeRefuse // mooncake_client keeps its 30 s timeouts: minutes per run on real
	}
	if d.Wall && f.Mode == ModeBlackhole && !d.RPCTimeoutKnob {
		f.Mode = ModeRefuse // no MC_RPC_TIMEOUT_MS before 0.3.12: 30 s per attempt
	}
	return f, true
}

// Draw: a target, a mode the engines' links can inject (on a wall engine, a
// mode that holds exchanges becomes reset_peer where that costs 30 s each),
// its parameters, and one time in five a single stream.
func (linkKind) Draw(d *Draw) (Fault, bool) {
	f := Fault{Kind: Link, Target: d.Pick(d.LinkTargets...)}
	var ms []string
	for _, m := range LinkModes() {
		c := Fault{Kind: Link, Target: f.Target, Mode: m}
		if t, ok := modes[m].(interface{ CheckTarget(string) error }); ok && t.CheckTarget(f.Target) != nil {
			continue // a mode that does not act on this target (unreachable: nodes only)
		}
		if !d.Wall || Available(c, Capabilities{Toxiproxy: true}) == nil {
			ms = append(ms, m)
		}
	}
	f.Mode = d.Pick(ms...)
	if d.slowHold() && (f.Mode == ModeBlackhole || f.Mode == ModeLatency) {
		f.Mode = ModeResetPeer
	}
	f.Params = DrawParams(modes[f.Mode].Params(), d)
	if d.Chance(0.2) && !modes[f.Mode].StopsProxy() { // a stopped proxy refuses both ways
		f.Stream = d.Pick("upstream", "downstream")
	}
	return f, true
}

// Draw: restart and stop more often than the other actions; on a wall
// engine a pause that costs 30 s per held call becomes stop.
func (processKind) Draw(d *Draw) (Fault, bool) {
	f := Fault{Kind: Process, Target: d.Pick(d.ProcessTargets...)}
	f.Action = d.Pick(append([]string{"restart", "stop"}, drawnActions...)...)
	if f.Action == "pause" && d.slowHold() {
		f.Action = "stop"
	}
	return f, true
}

// RacesStart: a process action at world start races the real processes'
// own start (mooncake_client remounting after a master restart before or
// after SGLang's warmup).
func (processKind) RacesStart() bool { return true }

// Holds: a paused process holds the calls made to it until it resumes.
func (processKind) Holds(f Fault) bool { return f.Action == "pause" }

// Holds: a paused container holds the calls made to it until it resumes.
func (containerKind) Holds(f Fault) bool { return f.Action == "pause" }
