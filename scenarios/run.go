package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sglang"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// Options tune a run.
type Options struct {
	// Seed is the root seed of the run (sim's RNG streams).
	Seed uint64
	// Version, when set, runs only that Mooncake version (if the scenario
	// applies to it; else the result is a skip).
	Version string
	// TimeoutScale scales Mooncake time on engines that honour it
	// (engine.WorldSpec.TimeoutScale, engine.TimeoutScaler); their clocks
	// report Mooncake time, so the oracles see unscaled durations.
	TimeoutScale float64
	// Bound is the wall-clock limit of a run whose scenario names no
	// within (default 2m).
	Bound time.Duration
	// Slow runs slow-wall scenarios on every engine (see SlowSkip).
	Slow   bool
	Logger *slog.Logger
	// SGLang plays SGLang's side: nil is the Go model (sglang.Model).
	SGLang sglang.Side
	// Invariants judges a finished run whose expect says invariants: true
	// (explore's properties); it returns the broken invariant and why, or
	// "" when all hold.
	Invariants func(ctx context.Context, sc *Scenario, eng engine.Engine, res *Result) (invariant, reason string)
}

func (o Options) sglangSide() sglang.Side {
	if o.SGLang == nil {
		return sglang.Model{}
	}
	return o.SGLang
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// Run runs the scenario at each of its versions on eng.
func Run(ctx context.Context, sc *Scenario, eng engine.Engine, opts Options) []Result {
	vs, ok := sc.Versions(opts.Version)
	if !ok {
		return []Result{notApplicable(sc, eng, opts)}
	}
	rels := sc.SGLangReleases()
	if rt, ok := opts.sglangSide().(sglang.Retargetable); !ok || rt.Pinned() {
		rels = []string{""}
	}
	out := make([]Result, 0, len(vs)*len(rels))
	for _, v := range vs {
		for _, rel := range rels {
			out = append(out, runAtRelease(ctx, sc, eng, v, rel, opts))
		}
	}
	return out
}

// runAtRelease is RunVersion with the SGLang side playing release ("" =
// the side's own; a pinned side keeps its own): the release a scenario's
// sglang.versions names. A side that cannot play it (real SGLang not
// installed at it) makes the run a skip that says why.
func runAtRelease(ctx context.Context, sc *Scenario, eng engine.Engine, version, release string, opts Options) Result {
	if release != "" {
		if rt, ok := opts.sglangSide().(sglang.Retargetable); ok && !rt.Pinned() {
			side, err := rt.AtRelease(release)
			if err != nil {
				return Result{Scenario: sc.Name, Engine: eng.Name(), MooncakeVersion: version, Seed: opts.Seed, Source: sc.Source,
					SGLang: rt.Name(), SGLangVersion: release, Verdict: Skip, Reason: fmt.Sprintf("SGLang %s (sglang.versions): %v", release, err)}
			}
			opts.SGLang = side
		}
	}
	return RunVersion(ctx, sc, eng, version, opts)
}

// notApplicable is the skip of a scenario that has no entry matching the
// requested Mooncake version.
func notApplicable(sc *Scenario, eng engine.Engine, opts Options) Result {
	return Result{Scenario: sc.Name, Engine: eng.Name(), MooncakeVersion: opts.Version, Seed: opts.Seed, Source: sc.Source,
		Verdict: Skip, Reason: fmt.Sprintf("scenario does not apply to Mooncake %s (versions: %s)", opts.Version, strings.Join(sc.Mooncake.Versions, ", "))}
}

// RunVersion runs the scenario at one Mooncake version: once, or twice
// when the first run failed on a neighbour's port (interference); the
// second run's result stands, its Reason naming the first.
func RunVersion(ctx context.Context, sc *Scenario, eng engine.Engine, version string, opts Options) Result {
	res := runVersion(ctx, sc, eng, version, opts)
	why := interference(sc, eng, res)
	if why == "" || ctx.Err() != nil {
		return res
	}
	slog.Warn("run again: interference", "scenario", sc.Name, "version", version, "engine", eng.Name(), "why", why)
	again := runVersion(ctx, sc, eng, version, opts)
	again.Reason = strings.TrimSpace(again.Reason + " (run twice: the first run failed because " + why + ")")
	return again
}

// runVersion runs the scenario once at one Mooncake version.
func runVersion(ctx context.Context, sc *Scenario, eng engine.Engine, version string, opts Options) (res Result) {
	start := time.Now()
	side := opts.sglangSide()
	res = Result{Scenario: sc.Name, Engine: eng.Name(), MooncakeVersion: version, Seed: opts.Seed, Source: sc.Source, Observed: Observed{},
		SGLang: side.Name(), SGLangVersion: side.SGLangVersion()}
	defer func() {
		if p := recover(); p != nil {
			res.Verdict, res.Reason = Error, fmt.Sprintf("harness panic: %v", p)
		}
		res.WallMS = float64(time.Since(start).Microseconds()) / 1000
	}()
	if !sc.RunsOn(eng.Name()) {
		res.Verdict, res.Reason = Skip, fmt.Sprintf("scenario runs on %s, not %s", strings.Join(sc.Engines, ", "), eng.Name())
		return res
	}
	if !sc.AppliesToSGLang(side.SGLangVersion()) {
		res.Verdict, res.Reason = Skip, fmt.Sprintf("scenario applies to SGLang %s, not %s", strings.Join(sc.SGLang.Versions, ", "), side.SGLangVersion())
		if len(sc.SGLang.Versions) == 0 {
			// A release the model follows only where named (sglang.NamedVersions).
			res.Reason = fmt.Sprintf("scenario applies to SGLang releases other than %s (the model plays it only where sglang.versions names it)", side.SGLangVersion())
		}
		return res
	}
	if sc.HasLabel(ContainerLabel) && !InContainers(eng) {
		m, ok := eng.(ContainerModel)
		if !ok {
			res.Verdict, res.Reason = Skip, fmt.Sprintf("scenario labelled %s needs a container world (faultlab run --containers)", ContainerLabel)
			return res
		}
		eng = m.ContainerWorld()
	}
	if err := eng.Available(ctx, version); err != nil {
		res.Verdict, res.Reason = Skip, err.Error()
		return res
	}
	if Wall(eng) && !InContainers(eng) {
		release, err := claimFixedPorts(ctx, sc)
		if err != nil {
			res.Verdict, res.Reason = Error, err.Error()
			return res
		}
		defer release()
	}
	r := &run{sc: sc, eng: eng, version: version, opts: opts, log: opts.logger().With("scenario", sc.Name, "engine", eng.Name(), "version", version)}
	r.execute(ctx, &res)
	if opts.Invariants != nil && sc.Expect.Invariants && res.Verdict == Pass {
		if inv, why := opts.Invariants(ctx, sc, eng, &res); inv != "" {
			res.Verdict, res.Reason = Fail, "invariant "+inv+": "+why
		}
	}
	return res
}

type run struct {
	sc      *Scenario
	eng     engine.Engine
	version string
	opts    Options
	log     *slog.Logger
	tr      *trace.Trace
	world   engine.World
	stores  map[string]*app
	// integrations are the put and call steps' processes, one a node
	// (integration.go), and integrationCalls their calls in this phase.
	integrations     map[string]integration
	integrationCalls []Call
	// tes are the te steps' TransferEngines, one a node (te.go).
	tes map[string]*teNode
	// started lists every app of the current phase in start order (failed
	// starts included: their calls are observations).
	started []*app
	procs   int
	// pools override nodes' host pools (the remedy's hostpools).
	pools map[string]HostPool
	// nodeEnvs are merged over nodes' env (the remedy's node_env).
	nodeEnvs map[string]Env
	// Call anchors (anchor.go): the main phase's context while it runs
	// (nil otherwise), the calls whose faults are armed, arming errors.
	mainCtx   context.Context
	anchorMu  sync.Mutex
	callsSeen map[string]bool
	anchorErr error
	// serversFrom is where in the trace the servers last (re)started
	// before the next phase (launch, a remedy's master or metadata
	// server): what they printed at start (the master's warnings about its
	// flags and environment, the metadata server's refusal) comes before
	// the phase's first step and is that phase's observation; -1 once read.
	serversFrom int
}

// band is how this engine's clock bends duration expectations.
func (r *run) band() Band { return Band{Wall: Wall(r.eng), Scale: r.wallScale()} }

// wallScale is how much wall time one unit of Mooncake time takes on this
// engine: the timeout scale on engines that honour it, else 1 (real runs
// Mooncake's own timeouts; sim's virtual time costs next to none).
func (r *run) wallScale() float64 {
	if ts, ok := r.eng.(engine.TimeoutScaler); ok && ts.HonoursTimeoutScale() && r.opts.TimeoutScale > 0 && r.opts.TimeoutScale <= 1 {
		return r.opts.TimeoutScale
	}
	return 1
}

// bound is the wall-clock deadline of the whole run: the scenario's
// within (Mooncake time) in wall time plus room for world start and
// teardown, or Options.Bound.
func (r *run) bound() time.Duration {
	var w time.Duration
	for _, e := range []Expect{r.mainExpect(), r.remedyExpect()} {
		if e.Within != nil {
			w += r.band().Max(e.Within.D())
		}
	}
	if w > 0 {
		b := time.Duration(float64(w)*r.wallScale()) + 10*time.Second + r.startAllowance()
		if la, ok := r.eng.(engine.LaunchAllower); ok {
			b += la.LaunchAllowance()
		}
		return b
	}
	if r.opts.Bound > 0 {
		return r.opts.Bound
	}
	return 2 * time.Minute
}

// startAllowance is the side's extra wall time per init step (real
// SGLang's import), for every init step of both phases.
func (r *run) startAllowance() time.Duration {
	a, ok := r.opts.sglangSide().(sglang.StartAllowance)
	if !ok {
		return 0
	}
	n := 0
	steps := r.sc.Steps
	if r.sc.Remedy != nil && r.sc.Remedy.Steps != nil {
		steps = append(append([]Step(nil), steps...), r.sc.Remedy.Steps...)
	} else if r.sc.Remedy != nil {
		steps = append(append([]Step(nil), steps...), steps...)
	}
	for _, s := range steps {
		if s.Action == StepInit {
			n++
		}
	}
	return time.Duration(n) * a.StartAllowance()
}

func (r *run) mainExpect() Expect {
	return ExpectForSGLang(r.sc.Expect, r.sc.ByVersion, r.version, r.sc.BySGLang, r.opts.sglangSide().SGLangVersion())
}

func (r *run) remedyExpect() Expect {
	if r.sc.Remedy == nil {
		return Expect{}
	}
	return ExpectForSGLang(r.sc.Remedy.Expect, r.sc.Remedy.ByVersion, r.version, r.sc.Remedy.BySGLang, r.opts.sglangSide().SGLangVersion())
}

func (r *run) execute(parent context.Context, res *Result) {
	bound := r.bound()
	ctx, cancel := context.WithTimeout(parent, bound)
	defer cancel()
	r.tr = trace.New(nil)
	res.Trace = r.tr
	r.serversFrom = 0
	spec := r.worldSpec()
	w, err := r.eng.Launch(ctx, spec)
	if err != nil {
		r.setupErr(res, "launch", err)
		return
	}
	r.world = w
	r.stores = map[string]*app{}
	r.integrations = map[string]integration{}
	r.tes = map[string]*teNode{}
	for _, role := range Roles {
		if a, err := w.Addr(role); err == nil && a != "" {
			if res.Addrs == nil {
				res.Addrs = map[string]string{}
			}
			res.Addrs[role] = a
		}
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(parent), 30*time.Second)
		defer ccancel()
		for _, n := range sortedKeys(r.stores) {
			_ = r.stores[n].Close(cctx)
		}
		r.closeTEs(cctx)
		r.closeIntegrations(cctx)
		res.VirtualMS = ms(w.Clock().Now())
		if err := w.Close(cctx); err != nil && res.Verdict == Pass {
			res.Verdict, res.Reason = Error, fmt.Sprintf("close world: %v", err)
		}
		res.TraceHash = r.tr.Hash()
	}()
	if p, ok := r.opts.sglangSide().(sglang.Preparer); ok {
		var nodes []string
		for _, n := range r.sc.Topology.Nodes {
			nodes = append(nodes, n.Name)
		}
		if err := p.Prepare(ctx, w, nodes); err != nil {
			r.setupErr(res, "prepare the SGLang side", err)
			return
		}
	}
	fs := r.startFaults()
	if len(fs) > 0 {
		if err := w.Arm(ctx, fs); err != nil {
			r.setupErr(res, "arm faults", err)
			return
		}
	}

	// Main phase.
	exp, err := r.expandExpect(r.mainExpect())
	if err != nil {
		res.Verdict, res.Reason = Error, err.Error()
		return
	}
	obs, wants, err := r.phase(ctx, "main", r.sc.Steps, r.sc.Config.Env, r.sc.Config.File, r.extraConfig(nil), exp.Logs)
	res.Observed = obs
	if done := r.phaseErr(ctx, res, bound, err); done {
		return
	}
	if reason := Check(exp, obs, wants, r.band()); reason != "" {
		res.Verdict, res.Reason = Fail, reason
		return
	}
	res.Verdict = Pass
	rem := r.sc.Remedy
	if rem == nil {
		return
	}

	// Remedy phase: same world, fresh SGLang process with the fixed config.
	if *rem.ClearFaults {
		if err := w.ClearFaults(ctx); err != nil {
			r.setupErr(res, "clear faults", err)
			return
		}
	}
	for _, n := range sortedKeys(r.stores) {
		_ = r.stores[n].Close(ctx)
	}
	r.stores = map[string]*app{}
	r.closeTEs(ctx)
	r.closeIntegrations(ctx)
	if v := rem.MasterVersion; v != "" || len(rem.MasterFlags) > 0 || len(rem.MasterEnv) > 0 {
		if v == "run" {
			v = r.version
		}
		mr, ok := w.(engine.MasterReplacer)
		if !ok {
			r.setupErr(res, "remedy master_version / master_flags / master_env", engine.Unsupportedf("this engine cannot replace mooncake_master"))
			return
		}
		r.serversFrom = r.tr.Len()
		if err := mr.ReplaceMaster(ctx, v, rem.MasterFlags, rem.MasterEnv); err != nil {
			r.setupErr(res, "remedy master_version / master_flags / master_env", err)
			return
		}
	}
	if len(rem.MetadataEnv) > 0 {
		mr, ok := w.(engine.MetadataRestarter)
		if !ok {
			r.setupErr(res, "remedy metadata_env", engine.Unsupportedf("this engine cannot restart the HTTP metadata server"))
			return
		}
		if r.serversFrom < 0 {
			r.serversFrom = r.tr.Len()
		}
		if err := mr.RestartMetadata(ctx, rem.MetadataEnv); err != nil {
			r.setupErr(res, "remedy metadata_env", err)
			return
		}
	}
	if rem.MissingLibs != nil {
		lf, ok := w.(engine.LibraryFixer)
		if !ok {
			r.setupErr(res, "remedy missing_libs", engine.Unsupportedf("this engine cannot change the hosts' native libraries"))
			return
		}
		if err := lf.SetMissingLibs(ctx, rem.MissingLibs); err != nil {
			r.setupErr(res, "remedy missing_libs", err)
			return
		}
	}
	if len(rem.GPUs) > 0 {
		gc, ok := w.(engine.GPUChanger)
		if !ok {
			r.setupErr(res, "remedy gpus", engine.Unsupportedf("this engine cannot change a node's GPU setup"))
			return
		}
		for _, n := range sortedKeys(rem.GPUs) {
			if err := gc.SetGPU(ctx, n, rem.GPUs[n].spec()); err != nil {
				r.setupErr(res, "remedy gpus", err)
				return
			}
		}
	}
	if len(rem.NPUs) > 0 {
		nc, ok := w.(engine.NPUChanger)
		if !ok {
			r.setupErr(res, "remedy npus", engine.Unsupportedf("this engine cannot change a node's NPU setup"))
			return
		}
		for _, n := range sortedKeys(rem.NPUs) {
			if err := nc.SetNPU(ctx, n, rem.NPUs[n].spec()); err != nil {
				r.setupErr(res, "remedy npus", err)
				return
			}
		}
	}
	env := Env{}
	maps.Copy(env, r.sc.Config.Env)
	for k, v := range rem.Env {
		if v == nil {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	file := r.sc.Config.File
	if rem.File != nil {
		file = rem.File
	}
	steps := r.sc.Steps
	if rem.Steps != nil {
		steps = rem.Steps
	}
	r.pools = rem.HostPools
	r.nodeEnvs = rem.NodeEnv
	rexp, err := r.expandExpect(r.remedyExpect())
	if err != nil {
		res.Verdict, res.Reason = Error, err.Error()
		return
	}
	robs, rwants, err := r.phase(ctx, "remedy", steps, env, file, r.extraConfig(rem.ExtraConfig), rexp.Logs)
	res.Remedy = &robs
	if done := r.phaseErr(ctx, res, bound, err); done {
		res.Reason = "remedy: " + res.Reason
		return
	}
	if reason := Check(rexp, robs, rwants, r.band()); reason != "" {
		res.Verdict, res.Reason = Fail, "remedy: "+reason
	}
}

// setupErr turns a launch/arm error into skip (Unsupported) or error.
func (r *run) setupErr(res *Result, what string, err error) {
	if u, ok := engine.AsUnsupported(err); ok {
		res.Verdict, res.Reason = Skip, u.Reason
		return
	}
	res.Verdict, res.Reason = Error, fmt.Sprintf("%s: %v", what, err)
}

// phaseErr classifies a harness-level phase error: a timeout is the
// scenario's failure (a hang), anything else the harness's.
func (r *run) phaseErr(ctx context.Context, res *Result, bound time.Duration, err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		res.Verdict, res.Reason = Error, "interrupted"
		return true
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		res.Verdict, res.Reason = Fail, fmt.Sprintf("timed out after %s", bound)
		return true
	}
	if u, ok := engine.AsUnsupported(err); ok {
		res.Verdict, res.Reason = Skip, u.Reason
		return true
	}
	res.Verdict, res.Reason = Error, err.Error()
	return true
}

// sglangSource is the trace source of SGLang's own lines (model and real).
const sglangSource = "sglang"

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (r *run) worldSpec() engine.WorldSpec {
	t := r.sc.Topology
	spec := engine.WorldSpec{
		Scenario: r.sc.Name, Seed: r.opts.Seed, Version: r.version, Trace: r.tr, Logger: r.log,
		Metadata: t.Metadata, MetadataEnv: maps.Clone(t.MetadataEnv), MetadataHost: t.MetadataHost, TimeoutScale: r.opts.TimeoutScale, MissingLibs: slices.Clone(t.MissingLibs), Libstdcxx: t.Libstdcxx,
	}
	if t.Master == nil || t.Master.Present == nil || *t.Master.Present {
		spec.Master = &engine.MasterSpec{Flags: map[string]string{}}
		if t.Master != nil {
			maps.Copy(spec.Master.Flags, t.Master.Flags)
			spec.Master.HA = t.Master.HA
			spec.Master.Version = t.Master.MooncakeVersion
			spec.Master.Env = maps.Clone(t.Master.Env)
			spec.Master.RDMA = t.Master.NIC.devices()
			spec.Master.MetadataPort = t.Master.HTTPMetadataPort
			spec.Master.MetricsPort = t.Master.MetricsPort
		}
	}
	spec.HeldPorts = heldAtStart(r.sc.Faults)
	if c := t.Client; c != nil && (c.Present == nil || *c.Present) {
		proto := c.Protocol
		if proto == "" {
			proto = "tcp"
		}
		size := int64(c.GlobalSegmentSize)
		if size == 0 {
			size = 4 << 30 // mooncake_client --global_segment_size default "4 GB"
		}
		spec.Client = &engine.ClientSpec{GlobalSegmentSize: size, Protocol: proto, DeviceNames: c.DeviceNames, RDMA: c.NIC.devices(),
			OwnPod: c.Sidecar != nil && !*c.Sidecar, ShmBytes: int64(c.Shm), VmemHeadroomBytes: int64(c.VmemHeadroom), Flags: maps.Clone(c.Flags), Env: maps.Clone(c.Env)}
	}
	for _, n := range t.Nodes {
		ns := engine.NodeSpec{Name: n.Name, MemlockBytes: int64(n.Memlock), HugepagesBytes: int64(n.Hugepages), RAMBytes: int64(n.RAM), CapIPCLock: n.CapIPCLock, NonRoot: n.NonRoot, ShmBytes: int64(n.Shm)}
		ns.RDMA = n.NIC.devices()
		ns.EphemeralPorts, _ = engine.PortRangeSize(n.IPLocalPortRange) // the loader checked it
		ns.Build = slices.Clone(n.Build)
		if n.GPU != nil {
			g := n.GPU.spec()
			ns.GPU = &g
		}
		if n.NPU != nil {
			npu := n.NPU.spec()
			ns.NPU = &npu
		}
		spec.Nodes = append(spec.Nodes, ns)
	}
	return spec
}

// heldAtStart are the ports the port-held faults at 0s of the world's
// start (no anchor) hold: another process listening on them before any
// server starts (engine.WorldSpec.HeldPorts).
func heldAtStart(fs []FaultSpec) []int {
	var out []int
	for _, f := range fs {
		if a, _ := f.anchor(); a != (anchor{}) || f.At.D() != 0 || faults.Kind(f.Kind) != faults.PortHeld {
			continue
		}
		if p, ok := f.Params.(faults.PortHeldParams); ok && !slices.Contains(out, int(p.Port)) {
			out = append(out, int(p.Port))
		}
	}
	return out
}

func (g GPU) spec() engine.GPUSpec {
	return engine.GPUSpec{Count: max(g.Count, 1), Peermem: g.Peermem, DmaBuf: g.DmaBuf, Fabric: g.Fabric}
}

func (n NIC) devices() []engine.RDMADevice {
	var out []engine.RDMADevice
	for _, d := range n.RDMA {
		out = append(out, engine.RDMADevice{Name: d.Name, MaxMRSize: int64(d.MaxMRSize), MaxMR: d.MaxMR, Broken: d.Broken,
			MaxRegBytes: int64(d.MaxRegBytes), LeakedMRs: d.LeakedMRs, NoAutoGID: d.NoAutoGID, GIDIndex: d.GIDIndex,
			GIDTableLen: d.GIDTableLen, GIDs: d.GIDs, Subnet: d.Subnet, PortState: ibvPortStates[d.PortState], NoRC: d.Driver == "efa"})
	}
	return out
}

// nodeEnv is env with the node's own env merged over it, and over that
// the remedy's node_env for it (null unsets).
func (r *run) nodeEnv(node string, env Env) Env {
	out := Env{}
	maps.Copy(out, env)
	for _, n := range r.sc.Topology.Nodes {
		if n.Name == node {
			maps.Copy(out, n.Env)
		}
	}
	for k, v := range r.nodeEnvs[node] {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

func (r *run) extraConfig(over map[string]any) map[string]any {
	base := r.sc.Config.ExtraConfig
	if base == nil {
		base = r.sc.Storage.ExtraConfig
	}
	if base == nil && over == nil {
		return nil
	}
	out := map[string]any{}
	maps.Copy(out, base)
	for k, v := range over {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// expand replaces {{role}} with World.Addr(role).
func (r *run) expand(s string) (string, error) {
	if !strings.Contains(s, "{{") { // every placeholder starts so: no regexp pass
		return s, nil
	}
	var firstErr error
	out := placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		role := placeholderRE.FindStringSubmatch(m)[1]
		if role == MethodPlaceholder {
			return CallMethod(r.sc.Steps)
		}
		a, err := r.world.Addr(role)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("placeholder {{%s}}: %w", role, err)
		}
		return a
	})
	return out, firstErr
}

func (r *run) expandAny(x any) (any, error) {
	switch t := x.(type) {
	case string:
		return r.expand(t)
	case map[string]any:
		m := make(map[string]any, len(t))
		for _, k := range sortedKeys(t) {
			v, err := r.expandAny(t[k])
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case []any:
		l := make([]any, len(t))
		for i, v := range t {
			e, err := r.expandAny(v)
			if err != nil {
				return nil, err
			}
			l[i] = e
		}
		return l, nil
	}
	return x, nil
}

// expandExpect resolves placeholders in expected messages and logs (an
// expected TypeError repeats the master address, for one).
func (r *run) expandExpect(e Expect) (Expect, error) {
	var err error
	if e.Dies != nil && InContainers(r.eng) {
		d := *e.Dies
		d.Signal = engine.InContainerSignal(d.Signal)
		e.Dies = &d
	}
	if e.Raises != nil && e.Raises.Message != nil {
		m, xerr := r.expand(*e.Raises.Message)
		err = errors.Join(err, xerr)
		rc := *e.Raises
		rc.Message = &m
		e.Raises = &rc
	}
	for _, l := range []*[]string{&e.Logs, &e.NoLogs} {
		if *l == nil {
			continue
		}
		out := make([]string, len(*l))
		for i, s := range *l {
			var xerr error
			out[i], xerr = r.expand(s)
			err = errors.Join(err, xerr)
		}
		*l = out
	}
	return e, err
}

// launchFor builds the sglang.Launch of an init step.
func (r *run) launchFor(node string, env Env, file any, extra map[string]any) (sglang.Launch, error) {
	r.procs++
	l := sglang.Launch{
		World: r.world, Node: node, Env: map[string]string{}, Files: map[string]string{}, Trace: r.tr,
		// Each process gets its own stream of the run's seed.
		Seed: r.opts.Seed*1000003 + uint64(r.procs), MooncakeVersion: r.version, SGLangVersion: r.opts.sglangSide().SGLangVersion(),
	}
	if ctx := r.mainCtx; ctx != nil && r.hasCallAnchors() {
		l.OnReturn = func(method string) { r.onReturn(ctx, method) }
	}
	env = r.nodeEnv(node, env)
	for _, k := range sortedKeys(env) {
		if env[k] == nil {
			continue
		}
		v, err := r.expand(*env[k])
		if err != nil {
			return l, err
		}
		l.Env[k] = v
	}
	if file != nil {
		path := r.sc.Config.FilePath
		if p, ok := l.Env["SGLANG_HICACHE_MOONCAKE_CONFIG_PATH"]; ok {
			path = p
		} else {
			l.Env["SGLANG_HICACHE_MOONCAKE_CONFIG_PATH"] = path
		}
		x, err := r.expandAny(file)
		if err != nil {
			return l, err
		}
		switch t := x.(type) {
		case string:
			l.Files[path] = t
		default:
			b, err := json.MarshalIndent(t, "", "  ")
			if err != nil {
				return l, fmt.Errorf("config file: %w", err)
			}
			l.Files[path] = string(b)
		}
	}
	st := r.sc.Storage
	l.StorageConfig = sglang.StorageConfig{
		TPRank: st.TPRank, TPSize: st.TPSize, PPRank: st.PPRank, PPSize: st.PPSize,
		IsMLAModel: *st.IsMLA, ModelName: st.ModelName, EnableStorageMetrics: st.EnableStorageMetrics,
	}
	if extra != nil {
		x, err := r.expandAny(extra)
		if err != nil {
			return l, err
		}
		l.StorageConfig.ExtraConfig = x.(map[string]any)
	}
	for _, n := range r.sc.Topology.Nodes {
		if n.Name == node {
			l.HostPool = poolSpec(n.HostPool)
			if n.GPU != nil {
				l.DeviceKVPool = int64(n.GPU.KVPool)
			}
		}
	}
	if hp, ok := r.pools[node]; ok {
		l.HostPool = poolSpec(hp)
	}
	l.Backend = st.Backend
	return l, nil
}

func poolSpec(h HostPool) sglang.HostPoolSpec {
	p := sglang.HostPoolSpec{Layout: h.Layout, AllocatorType: h.Allocator, Builder: h.Builder, Size: int64(h.Size), PageSize: h.PageSize, PageBytes: int64(h.PageBytes), SharesMain: h.SharesMain}
	if h.Draft != nil {
		d := poolSpec(*h.Draft)
		p.Draft = &d
	}
	return p
}

// phase runs steps and observes them. A Python exception ends the phase
// (as it would kill the scheduler) and is an observation, not an error.
// wantLogs are the phase's expected log lines: on a wall-clock engine the
// phase lets in-flight output land before it reads the logs (settleLogs).
func (r *run) phase(ctx context.Context, name string, steps []Step, env Env, file any, extra map[string]any, wantLogs []string) (Observed, []stepWant, error) {
	clock := r.world.Clock()
	r.tr.Record("harness", "phase", "", name)
	from := r.tr.Len()
	if name == "main" && len(r.sc.Topology.MissingLibs) > 0 {
		// A server the loader could not start died at launch: its
		// line (ld.so's) is the main phase's observation.
		from = 0
	}
	t0 := clock.Now()
	var obs Observed
	var wants []stepWant
	var err error
	done := make(chan struct{})
	if name == "main" {
		r.mainCtx = ctx
		defer func() { r.mainCtx = nil }()
	}
	// The steps run on their own goroutine only so that a wall engine that
	// ignores ctx cannot wedge the runner; the runner waits for it, so one
	// goroutine at a time drives the world.
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("harness panic in %s phase: %v", name, p)
			}
		}()
		for i, s := range steps {
			var got any
			got, err = r.step(ctx, s, env, file, extra)
			if err == nil && name == "main" {
				err = r.armAnchored(ctx, anchor{Step: i + 1})
			}
			if d, ok := engine.AsProcessDied(err); ok {
				// Like an exception, a death ends the phase; Python raised nothing.
				obs.Died = &Death{Signal: d.Signal, Exit: d.Exit, Reason: d.Reason, In: CallKind(d.Call)}
				obs.EndedIn = s.String()
				err = nil
				break
			}
			if pe, ok := engine.AsPyError(err); ok {
				obs.Exception = &Exception{Class: pe.Class, Message: pe.Message}
				obs.EndedIn = s.String()
				err = nil
				break
			}
			if err != nil {
				err = fmt.Errorf("step %d (%s): %w", i+1, s, err)
				break
			}
			if got != nil {
				obs.Steps = append(obs.Steps, StepResult{Step: s.String(), Result: got})
				if s.Want != nil {
					wants = append(wants, stepWant{index: i, step: s.String(), want: s.Want, got: got})
				}
			}
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			return obs, wants, fmt.Errorf("%s phase: %w", name, context.DeadlineExceeded)
		}
	}
	d := clock.Now() - t0
	if Wall(r.eng) {
		r.settleLogs(ctx, from, wantLogs)
	}
	events := r.tr.EventsFrom(from)
	if m := r.serversFrom; m >= 0 && m < from {
		events = append(serverStartLines(r.tr.EventsFrom(m)[:from-m]), events...)
	}
	r.serversFrom = -1
	for _, e := range events {
		if e.Kind == "log" {
			obs.Logs = append(obs.Logs, e.Text)
			obs.LogSources = append(obs.LogSources, e.Source)
			if e.Source == sglangSource {
				obs.SGLangLogs = append(obs.SGLangLogs, e.Level+" "+e.Text)
			}
		}
	}
	for _, a := range r.started {
		obs.Calls = append(obs.Calls, a.calls()...)
		if st, ok := a.st.(sglang.Startup); ok {
			d -= st.StartupTime() // the side's own start-up is not the scenario's time
		}
	}
	obs.Calls = append(obs.Calls, r.integrationCalls...)
	r.integrationCalls = nil
	obs.TimingsMS = timings(obs.Calls, func(c Call) float64 { return c.MS })
	obs.RacyMS = accountTimings(obs.Calls, func(c Call) float64 { return c.RacyMS })
	obs.HostMS = accountTimings(obs.Calls, func(c Call) float64 { return c.HostMS })
	r.started = nil
	obs.DurationMS = ms(d)
	if aerr := r.takeAnchorErr(); aerr != nil && err == nil {
		err = aerr // a fault anchored to a call could not be armed: the harness broke
	}
	return obs, wants, err
}

func (r *run) step(ctx context.Context, s Step, env Env, file any, extra map[string]any) (any, error) {
	if s.Action == StepSleep {
		return nil, r.world.Clock().Sleep(ctx, s.Sleep.D())
	}
	if s.Action == StepCall {
		in, err := r.integrationOn(ctx, s.Node, env, file, extra)
		if err != nil {
			return nil, err
		}
		return nil, in.store.Lookup(ctx, s.Method)
	}
	if s.Action == StepPut || s.Action == StepFetch {
		return r.integrationPut(ctx, s, env, file, extra)
	}
	if s.Action == StepTE {
		return r.teStep(ctx, s, env, file, extra)
	}
	if s.Action == StepBench {
		return r.benchStep(ctx, s, env, file, extra)
	}
	if s.Action == StepInit {
		if old, ok := r.stores[s.Node]; ok {
			_ = old.Close(ctx)
			delete(r.stores, s.Node)
		}
		l, err := r.launchFor(s.Node, env, file, extra)
		if err != nil {
			return nil, err
		}
		a, err := startApp(ctx, r.opts.sglangSide(), l)
		if a != nil {
			r.started = append(r.started, a)
		}
		if err != nil {
			return nil, err
		}
		r.stores[s.Node] = a
		return nil, nil
	}
	st, ok := r.stores[s.Node]
	if !ok {
		return nil, fmt.Errorf("%s on node %s before init", s.Action, s.Node)
	}
	switch s.Action {
	case StepSet:
		return st.BatchSet(ctx, s.Pages)
	case StepGet:
		return st.BatchGet(ctx, s.Pages)
	case StepExists:
		n, err := st.BatchExists(ctx, s.Pages)
		return int64(n), err
	case StepHealthCheck:
		n, err := st.HealthCheck(ctx)
		return int64(n), err
	}
	return nil, fmt.Errorf("unknown step action %q", s.Action)
}

// boolsToAny makes []bool comparable with a YAML want list.
func boolsToAny(b []bool) []any {
	out := make([]any, len(b))
	for i, x := range b {
		out[i] = x
	}
	return out
}
