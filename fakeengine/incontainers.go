package fakeengine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/containers/images"
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
)

// Container worlds (Options.Containers): the master and the HTTP metadata
// server each run `faultlab serve fake --control` in a container of the
// faultlab/fake image on a network made for the world, and toxiproxy's own
// server runs in its container in front of every link, as on the real
// engine. The SGLang side — the Go model of SGLang and Mooncake's client
// library, each node's transfer endpoint, and mooncake_client, which shares
// the SGLang processes' memory (a memfd) as in a pod — stays in the harness
// process, listening on the Docker host's address on the world network
// (the network's gateway), so toxiproxy's container reaches it; etcd
// (metadata: etcd) stays in the harness too. Models dial servers by their
// role name (master:50051, http://metadata:8080/metadata) and every name
// resolves to its proxy, advertised at toxiproxy's container address.
//
// A process fault on a served server stops, starts, pauses or resumes it
// inside its container over the control channel, exactly as in processes
// (no container start in a timed fault: at TimeoutScale 0.02 a 0.5 s
// container start would be 25 s of Mooncake time); a container fault acts
// on the container itself (containers.Party.Act; start and restart make a
// new container, whose start-up wall time is Mooncake time as it is for a
// real restarted container).

// Ports the served servers listen on inside their containers (Mooncake's
// defaults: mooncake_master's rpc_port, http_metadata_server_port).
const (
	servedMasterPort   = 50051
	servedMetadataPort = 8080
)

// servedReadyTimeout bounds a served server's start-up (wall time).
const servedReadyTimeout = 60 * time.Second

// LaunchAllowance implements engine.LaunchAllower: with Containers, a
// world's toxiproxy and server containers start outside Mooncake time (the
// clock starts once they are up); on a loaded 2-core machine that took up
// to 20 s, more than the scaled within of most scenarios.
func (e *Engine) LaunchAllowance() time.Duration {
	if e.opts.Containers {
		return servedReadyTimeout
	}
	return 0
}

// ctrWorld is the container side of a World.
type ctrWorld struct {
	cw      *containers.World
	image   string // faultlab/fake:latest-<hash>
	host    string // the harness's address on the world network
	parties []*servedParty
	served  map[string]*servedParty // role (master, metadata) → its container
}

// servedParty is one container running `faultlab serve fake --control`.
type servedParty struct {
	w     *World
	name  string   // master or metadata: the container's alias
	roles []string // the servers it serves (the master may embed metadata)
	cmd   []string

	mu     sync.Mutex // one action at a time
	seq    int
	p      *containers.Party
	ip     string // the container's address on the world network
	acks   chan serveEvent
	down   bool // stopped or killed by a container fault
	paused bool
	parted bool
	// going is closed when the container a stop or kill ends has ended
	// (nil: none pending); goneErr is that action's error.
	going   chan struct{}
	goneErr error
	spare   chan spareResult // a container being readied for the next start (nil: none)
}

// images builds (or finds) faultlab/fake and faultlab/toxiproxy once per
// engine: the fake image is the faultlab binary built from this tree.
func (e *Engine) images(ctx context.Context, b *images.Builder) (fake, toxi string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fakeImage == "" {
		f, err := b.Fake(ctx)
		if err != nil {
			return "", "", err
		}
		t, err := b.Toxiproxy(ctx)
		if err != nil {
			return "", "", err
		}
		e.fakeImage, e.toxiImage = f.Ref, t.Ref
	}
	return e.fakeImage, e.toxiImage, nil
}

// openContainers makes the world's network and toxiproxy, then starts the
// served servers. On error nothing is left.
func (e *Engine) openContainers(ctx context.Context, w *World) (err error) {
	cw, err := containers.NewWorld(ctx, w.logger)
	if err != nil {
		return fmt.Errorf("fake engine: %w", err)
	}
	w.ctr = &ctrWorld{cw: cw, served: map[string]*servedParty{}}
	defer func() {
		if err != nil {
			_ = cw.Close(context.WithoutCancel(ctx))
			w.ctr = nil
			err = fmt.Errorf("fake engine: containers: %w", err)
		}
	}()
	fake, toxi, err := e.images(ctx, &images.Builder{Docker: cw.Docker, Logger: w.logger})
	if err != nil {
		return err
	}
	w.ctr.image = fake
	if w.ctr.host, err = cw.Gateway(ctx); err != nil {
		return err
	}
	if w.inj, err = cw.StartToxiproxyByIP(ctx, toxi, w.logger); err != nil {
		return err
	}
	spec := w.spec
	base := []string{"serve", "fake", "--control", "--version", spec.Version,
		"--seed", strconv.FormatUint(spec.Seed, 10), "--scale", strconv.FormatFloat(float64(w.scale), 'g', -1, 64)}
	var parties []*servedParty
	if spec.Master != nil {
		if len(spec.Master.Env) > 0 || len(spec.Master.RDMA) > 0 {
			// The served master (faultlab serve) takes flags only.
			return engine.Unsupportedf("fake engine in containers: topology.master env or nic is not passed to the served master")
		}
		cmd := append(append([]string(nil), base...), "--master", fmt.Sprintf("0.0.0.0:%d", servedMasterPort))
		for _, k := range sortedKeys(spec.Master.Flags) {
			cmd = append(cmd, "--master-flag", k+"="+spec.Master.Flags[k])
		}
		sp := &servedParty{w: w, name: "master", roles: []string{"master"}}
		if spec.Metadata == "master" {
			cmd = append(cmd, "--metadata", fmt.Sprintf("0.0.0.0:%d", servedMetadataPort), "--metadata-kind", "master")
			sp.roles = append(sp.roles, "metadata")
		}
		sp.cmd = cmd
		parties = append(parties, sp)
	}
	if spec.Metadata == "http" {
		cmd := append(append([]string(nil), base...), "--metadata", fmt.Sprintf("0.0.0.0:%d", servedMetadataPort))
		parties = append(parties, &servedParty{w: w, name: "metadata", roles: []string{"metadata"}, cmd: cmd})
	}
	for _, sp := range parties {
		if err := sp.start(ctx); err != nil {
			return err
		}
		w.ctr.parties = append(w.ctr.parties, sp)
		for _, r := range sp.roles {
			w.ctr.served[r] = sp
		}
	}
	return nil
}

// bindHost is the address the harness's own listeners (transfer
// endpoints, mooncake_client, etcd) bind.
func (w *World) bindHost() string {
	if w.ctr != nil {
		return w.ctr.host
	}
	return "127.0.0.1"
}

// servedAddr is the canonical address of a served role ("" = not served).
func (w *World) servedAddr(role string) string {
	if w.ctr == nil {
		return ""
	}
	sp, ok := w.ctr.served[role]
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s:%d", sp.name, servedPort(role))
}

// instance is one container of a served party, its servers ready.
type instance struct {
	p    *containers.Party
	ip   string // its address on the world network
	acks chan serveEvent
}

// start runs a new container for the party, waits for its servers and
// makes it the party's.
func (sp *servedParty) start(ctx context.Context) error {
	sp.seq++
	in, err := sp.launch(ctx, fmt.Sprintf("%s-%d", sp.name, sp.seq))
	if err != nil {
		return err
	}
	sp.adopt(in)
	return nil
}

func (sp *servedParty) adopt(in instance) {
	sp.p, sp.ip, sp.acks = in.p, in.ip, in.acks
	sp.down, sp.paused, sp.parted = false, false, false
}

// launch runs a container of the party and waits until its servers listen.
func (sp *servedParty) launch(ctx context.Context, name string) (instance, error) {
	w := sp.w
	acks := make(chan serveEvent, 1)
	ready := make(chan struct{})
	p, err := w.ctr.cw.Start(ctx, containers.PartySpec{Name: name, Alias: sp.name,
		Image: w.ctr.image, Cmd: sp.cmd, Stdin: true})
	if err != nil {
		return instance{}, err
	}
	go sp.pump(p.Stdout(), ready, acks)
	go func() {
		sc := bufio.NewScanner(p.Stderr())
		for sc.Scan() {
			w.logger.Debug("served", "party", sp.name, "line", sc.Text())
		}
	}()
	ip, err := p.IP(ctx)
	if err != nil {
		return instance{}, err
	}
	t := time.NewTimer(servedReadyTimeout)
	defer t.Stop()
	select {
	case <-ready:
		return instance{p: p, ip: ip, acks: acks}, nil
	case <-p.Exited():
		return instance{}, fmt.Errorf("fake engine: %s container exited at start-up: %s; %s", sp.name, p.Exit(), p.Describe(ctx))
	case <-t.C:
		return instance{}, fmt.Errorf("fake engine: %s container: no ready line from `serve fake --control` on its stdout within %s; %s", sp.name, servedReadyTimeout, p.Describe(ctx))
	case <-ctx.Done():
		return instance{}, fmt.Errorf("fake engine: start %s container: %w", sp.name, ctx.Err())
	}
}

// spareResult is a spare container's launch.
type spareResult struct {
	in  instance
	err error
}

// prepareSpareLocked starts launching the container a later start or
// restart of the party will use, in the background: a container start
// takes ≈ 0.5–1 s of wall time, 25–50 s of Mooncake time at s = 0.02,
// which a restart done on the spot would put in the middle of the
// scenario. The spare's servers are fresh (state lost, as a new
// container's) and it has its own address.
func (sp *servedParty) prepareSpareLocked() {
	if sp.spare != nil {
		return
	}
	sp.seq++
	name := fmt.Sprintf("%s-%d", sp.name, sp.seq)
	ch := make(chan spareResult, 1)
	sp.spare = ch
	go func() {
		in, err := sp.launch(sp.w.ctx, name)
		ch <- spareResult{in, err}
	}()
}

// takeSpareLocked is the prepared spare (waiting for it if it is still
// starting), or a container started now.
func (sp *servedParty) takeSpareLocked(ctx context.Context) (instance, error) {
	if sp.spare == nil {
		sp.seq++
		return sp.launch(ctx, fmt.Sprintf("%s-%d", sp.name, sp.seq))
	}
	ch := sp.spare
	select {
	case r := <-ch:
		sp.spare = nil
		return r.in, r.err
	case <-ctx.Done():
		return instance{}, fmt.Errorf("fake engine: spare %s container: %w", sp.name, ctx.Err())
	}
}

// pump reads the party's event lines: readiness, the master model's log
// lines (into the world's trace, as in processes) and acknowledgements.
func (sp *servedParty) pump(r io.Reader, ready chan struct{}, acks chan serveEvent) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var ev serveEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			sp.w.logger.Warn("served: bad event line", "party", sp.name, "line", sc.Text(), "err", err)
			continue
		}
		switch {
		case ev.Ready != nil:
			close(ready)
		case ev.Log != nil:
			sp.w.trace.Log(ev.Log.Source, ev.Log.Level, ev.Log.Text)
		case ev.Ack != "":
			acks <- ev
		}
	}
}

// control runs a process action ("stop master") inside the container.
func (sp *servedParty) control(ctx context.Context, action, role string) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.down {
		if action == "stop" || action == "pause" || action == "resume" {
			return nil // its container is gone: nothing runs to act on
		}
		return fmt.Errorf("fake engine: process %s %s: its container is stopped (a container fault)", action, role)
	}
	cmd := action + " " + role
	if _, err := io.WriteString(sp.p.Stdin(), cmd+"\n"); err != nil {
		return fmt.Errorf("fake engine: %s: %w", cmd, err)
	}
	select {
	case ev := <-sp.acks:
		if ev.Err != "" {
			return fmt.Errorf("fake engine: %s: %s", cmd, ev.Err)
		}
		return nil
	case <-sp.p.Exited():
		return fmt.Errorf("fake engine: %s: the %s container exited: %s", cmd, sp.name, sp.p.Exit())
	case <-ctx.Done():
		return fmt.Errorf("fake engine: %s: %w", cmd, ctx.Err())
	}
}

// act is a container action on the party (faults.ContainerActions).
func (sp *servedParty) act(ctx context.Context, action string, bytes int64) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	start := time.Now()
	defer func() {
		sp.w.logger.Debug("container action", "party", sp.name, "action", action, "took", time.Since(start))
	}()
	if err := sp.settleLocked(ctx); err != nil {
		return err
	}
	switch action {
	case "stop", "kill":
		if sp.down {
			return nil
		}
		sp.down = true
		// Its proxies refuse, as its closed port would (and as on real),
		// from before it goes: toxiproxy dials upstream in its accept loop,
		// and a name that has left the network waits ≈ 25 s on Docker's
		// DNS, stalling the proxy and every API call on it.
		if err := sp.hold(ctx, true); err != nil {
			return err
		}
		// Nothing reaches it from now on; Docker ends the container in the
		// background, since a loaded dockerd takes seconds — at s = 0.02,
		// minutes of Mooncake time the scenario would otherwise wait.
		// Whatever acts on the party next waits for it (settleLocked).
		going, p := make(chan struct{}), sp.p
		sp.going, sp.goneErr = going, nil
		go func() {
			defer close(going)
			actx, cancel := context.WithTimeout(context.Background(), servedReadyTimeout)
			defer cancel()
			if err := p.Act(actx, action, 0); err != nil {
				sp.goneErr = err
			}
		}()
		return nil
	case "start":
		if !sp.down {
			return nil
		}
		return sp.restartLocked(ctx)
	case "restart", "replace":
		// replace: as Kubernetes replaces a pod, the old container is
		// frozen while the new one (the spare: another address) comes up.
		if !sp.down {
			sp.down = true
			end := sp.p.Kill
			if action == "replace" {
				end = sp.p.Pause
			}
			if err := errors.Join(sp.hold(ctx, true), end(ctx)); err != nil {
				return err
			}
		}
		return sp.restartLocked(ctx)
	}
	if sp.down {
		return fmt.Errorf("fake engine: container %s of %s: it is stopped", action, sp.name)
	}
	switch action {
	case "pause", "unpause":
		if sp.paused == (action == "pause") {
			return nil
		}
		sp.paused = action == "pause"
	case "partition", "reconnect":
		if sp.parted == (action == "partition") {
			return nil
		}
		sp.parted = action == "partition"
	}
	return sp.p.Act(ctx, action, bytes)
}

// settleLocked waits for a stop or kill still ending the container.
func (sp *servedParty) settleLocked(ctx context.Context) error {
	if sp.going == nil {
		return nil
	}
	select {
	case <-sp.going:
	case <-ctx.Done():
		return fmt.Errorf("fake engine: %s container still ending: %w", sp.name, ctx.Err())
	}
	sp.going = nil
	if err := sp.goneErr; err != nil {
		return fmt.Errorf("fake engine: end %s container: %w", sp.name, err)
	}
	return nil
}

// restartLocked replaces the ended container (its links held) by a new
// one (same alias, a new address; the servers' state is lost), then lets
// its links pass.
func (sp *servedParty) restartLocked(ctx context.Context) error {
	old := sp.p
	in, err := sp.takeSpareLocked(ctx)
	if err != nil {
		sp.down = true
		return err
	}
	sp.adopt(in)
	sp.prepareSpareLocked() // for the next one
	return errors.Join(old.Remove(ctx), sp.relink(ctx), sp.hold(ctx, false))
}

// servedPort is the port a served role listens on in its container.
func servedPort(role string) int {
	if role == "metadata" {
		return servedMetadataPort
	}
	return servedMasterPort
}

// upstreamOf is what a proxy dials for a canonical address: a served
// server's container address rather than its name, since every lookup of
// a name goes to Docker's DNS, inside dockerd, which a busy machine slows
// to milliseconds per connection (and one connection is made per RPC).
func (w *World) upstreamOf(canonical string) string {
	if w.ctr == nil {
		return canonical
	}
	for _, r := range sortedKeys(w.ctr.served) {
		if canonical == w.servedAddr(r) {
			return net.JoinHostPort(w.ctr.served[r].ip, strconv.Itoa(servedPort(r)))
		}
	}
	return canonical
}

// relink points every link into the party's servers at its new container.
func (sp *servedParty) relink(ctx context.Context) error {
	w := sp.w
	var errs []error
	for _, l := range w.inj.Links() {
		for _, r := range sp.roles {
			if strings.HasSuffix(l, linkName("", r)) {
				errs = append(errs, w.inj.SetUpstream(ctx, l, net.JoinHostPort(sp.ip, strconv.Itoa(servedPort(r)))))
			}
		}
	}
	return errors.Join(errs...)
}

// hold makes every link into the party's servers refuse (on) or pass again.
func (sp *servedParty) hold(ctx context.Context, on bool) error {
	w := sp.w
	var errs []error
	for _, l := range w.inj.Links() {
		for _, r := range sp.roles {
			if !strings.HasSuffix(l, linkName("", r)) {
				continue
			}
			if on {
				errs = append(errs, w.inj.Hold(ctx, l))
			} else {
				errs = append(errs, w.inj.Release(ctx, l))
			}
		}
	}
	return errors.Join(errs...)
}

// heal undoes every container action still on the party (ClearFaults).
func (sp *servedParty) heal(ctx context.Context) error {
	sp.mu.Lock()
	down, paused, parted := sp.down, sp.paused, sp.parted
	sp.mu.Unlock()
	switch {
	case down:
		return sp.act(ctx, "start", 0)
	case paused:
		if err := sp.act(ctx, "unpause", 0); err != nil {
			return err
		}
	}
	if parted {
		return sp.act(ctx, "reconnect", 0)
	}
	return nil
}

// servedControl runs a process action on a served role; ok is false when
// the role is not served in a container.
func (w *World) servedControl(ctx context.Context, role, action string) (ok bool, err error) {
	if w.ctr == nil {
		return false, nil
	}
	sp, ok := w.ctr.served[role]
	if !ok {
		return false, nil
	}
	return true, sp.control(ctx, action, role)
}

// Capabilities is the world's, for schedule.Lower: links are toxiproxy proxies;
// container actions only when the servers run in containers.
func (in injector) Capabilities() faults.Capabilities {
	return faults.Capabilities{Toxiproxy: true, Containers: in.w.ctr != nil}
}

// containerParties are a container fault's parties, or why it cannot be
// injected in this world.
func (w *World) containerParties(p faults.ContainerPrimitive) ([]*servedParty, error) {
	f := p.Fault
	if p.Action == "memory" {
		// container/master-oom-killed: whether a limit kills depends on how
		// mooncake_master grows with its objects; the fake servers are
		// small Go programs that grow otherwise.
		return nil, engine.Unsupportedf("fake engine: %s: the fake servers' memory use is not Mooncake's (an OOM kill depends on mooncake_master's growth; modelled on sim)", f)
	}
	var out []*servedParty
	for _, t := range p.Targets {
		sp, ok := w.ctr.served[t]
		if !ok {
			switch {
			case t == "master" || t == "metadata":
				return nil, engine.Unsupportedf("fake engine: %s: the topology has no %s server", f, t)
			case t == "client" || t == clientNode || w.hasNode(t):
				return nil, engine.Unsupportedf("fake engine: %s: %s runs in the harness process with the SGLang model (only the master and metadata servers run in containers on fake)", f, t)
			}
			return nil, fmt.Errorf("fake engine: %s: no party %q (master, metadata, client or a node)", f, t)
		}
		if !containsParty(out, sp) {
			out = append(out, sp)
		}
	}
	return out, nil
}

func containsParty(list []*servedParty, sp *servedParty) bool {
	for _, x := range list {
		if x == sp {
			return true
		}
	}
	return false
}

func (w *World) hasNode(name string) bool {
	for _, n := range w.spec.Nodes {
		if n.Name == name {
			return true
		}
	}
	return false
}

// containerInject injects a container fault; its heal runs the undo.
func (w *World) containerInject(ctx context.Context, p faults.ContainerPrimitive) (func(context.Context) error, error) {
	ps, err := w.containerParties(p)
	if err != nil {
		return nil, err
	}
	do := func(ctx context.Context, action string) error {
		var errs []error
		for _, sp := range ps {
			errs = append(errs, sp.act(ctx, action, p.Bytes))
		}
		return errors.Join(errs...)
	}
	return faults.InjectContainer(ctx, p, do)
}

// clearContainers heals every container fault and starts or resumes every
// served server (ClearFaults).
func (w *World) clearContainers(ctx context.Context) error {
	var errs []error
	for _, sp := range w.ctr.parties {
		errs = append(errs, sp.heal(ctx))
		for _, r := range sp.roles {
			errs = append(errs, sp.control(ctx, "start", r), sp.control(ctx, "resume", r))
		}
	}
	return errors.Join(errs...)
}

// closeContainers removes the world's containers and network.
func (w *World) closeContainers(ctx context.Context) error {
	if w.ctr == nil {
		return nil
	}
	start := time.Now()
	defer func() { w.logger.Debug("containers closed", "took", time.Since(start)) }()
	// A spare still starting gives up (w.ctx is cancelled) or comes up:
	// either way it is a party of the world by now, which Close removes.
	for _, sp := range w.ctr.parties {
		sp.mu.Lock()
		if sp.spare != nil {
			<-sp.spare
			sp.spare = nil
		}
		sp.mu.Unlock()
	}
	err := w.ctr.cw.Close(ctx)
	// Removing the containers ends every stop or kill still under way.
	for _, sp := range w.ctr.parties {
		sp.mu.Lock()
		if sp.going != nil {
			<-sp.going
		}
		sp.mu.Unlock()
	}
	return err
}

// defaultHostnameAcrossPods: in a container world, nodes left at SGLang's
// default local_hostname ("localhost") in different pods each name their
// own loopback, so transfers between them fail
// (container/default-local-hostname-across-pods); so do transfers to a
// node named by a name only its own pod knows
// (container/unresolvable-local-hostname). The fake engine's nodes all
// live in the harness process, one loopback and the host's resolver: it
// cannot show either.
func (w *World) defaultHostnameAcrossPods(node string, env map[string]string) error {
	if w.ctr == nil || len(w.spec.Nodes) < 2 {
		return nil
	}
	h, set := env["MOONCAKE_LOCAL_HOSTNAME"]
	if !set {
		return engine.Unsupportedf("fake engine: node %s: SGLang's default local_hostname across pods needs each node in its own container; the fake engine's nodes share the harness process (one loopback)", node)
	}
	var nodes []string
	for _, n := range w.spec.Nodes {
		nodes = append(nodes, n.Name)
	}
	if engine.NameOffNetwork(h, nodes) {
		// container/unresolvable-local-hostname: the harness's resolver is
		// not the world network's.
		return engine.Unsupportedf("fake engine: node %s: local_hostname %s, a name no DNS on the world network knows, needs each node in its own container; the fake engine's nodes share the harness process", node, h)
	}
	return nil
}
