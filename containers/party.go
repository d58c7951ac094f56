package containers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	mnet "github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// PartySpec is one party of a world: one process, the container's command.
type PartySpec struct {
	// Name is unique within the world; the container is "<world>-<name>".
	Name string
	// Alias is the host name other parties dial (e.g. "master"); "" = Name.
	Alias string
	Image string
	Cmd   []string
	Env   map[string]string
	// Stdin keeps the container's stdin open for the harness (driver protocol).
	Stdin bool
	// Files are written into the container before it starts (path → bytes).
	Files map[string][]byte
	// ShareNetwork joins another party's network namespace (a pod's
	// sidecar: same loopback, same abstract unix sockets) instead of the
	// world network.
	ShareNetwork *Party
	// ShmSize is /dev/shm's size (0 = Docker's default, 64 MiB).
	ShmSize int64
	// Memory is the container's memory limit (0 = none); exceeding it is
	// an OOM kill.
	Memory int64
	// Memlock is RLIMIT_MEMLOCK soft and hard (0 = Docker's default).
	Memlock int64
}

// Party is a running (or ended) party.
type Party struct {
	w    *World
	Spec PartySpec
	c    testcontainers.Container
	ID   string

	stdin  io.WriteCloser // Spec.Stdin only
	stdout *io.PipeReader
	stderr *io.PipeReader
	hj     *client.HijackedResponse
	// outTail and errTail keep what the process printed last (Describe).
	outTail, errTail tailLines
	started          time.Time

	exited chan struct{}
	mu     sync.Mutex
	exit   Exit
	gone   bool
}

// Exit is how a party's process ended.
type Exit struct {
	Code      int64
	Signal    string // "SIGSEGV" ... when Code > 128
	OOMKilled bool
	Err       string
}

// String reads like os.ProcessState's: "exit status 1", "signal: killed".
func (e Exit) String() string {
	switch {
	case e.Err != "":
		return e.Err
	case e.OOMKilled:
		return "signal: killed (OOM)"
	case e.Signal != "":
		return "signal: " + e.Signal
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

var signalNames = map[int64]string{
	int64(syscall.SIGSEGV): "SIGSEGV", int64(syscall.SIGABRT): "SIGABRT", int64(syscall.SIGBUS): "SIGBUS",
	int64(syscall.SIGILL): "SIGILL", int64(syscall.SIGFPE): "SIGFPE", int64(syscall.SIGKILL): "SIGKILL",
	int64(syscall.SIGTERM): "SIGTERM", int64(syscall.SIGINT): "SIGINT",
}

// Start creates the party's container through testcontainers-go, attaches
// to its stdio, then starts it.
func (w *World) Start(ctx context.Context, s PartySpec) (*Party, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, fmt.Errorf("containers: start %s: world %s closed", s.Name, w.ID)
	}
	w.seq++
	w.mu.Unlock()
	alias := s.Alias
	if alias == "" {
		alias = s.Name
	}
	req := testcontainers.ContainerRequest{
		Image:  s.Image,
		Cmd:    s.Cmd,
		Env:    s.Env,
		Labels: Labels(w.ID),
		Name:   w.ID + "-" + s.Name,
		ConfigModifier: func(c *container.Config) {
			if s.ShareNetwork == nil { // a shared namespace has its owner's name
				c.Hostname = alias
			}
			if s.Stdin {
				c.OpenStdin, c.StdinOnce, c.AttachStdin = true, true, true
			}
			c.AttachStdout, c.AttachStderr = true, true
		},
		HostConfigModifier: func(h *container.HostConfig) {
			if s.ShmSize > 0 {
				h.ShmSize = s.ShmSize
			}
			if s.Memory > 0 {
				h.Memory, h.MemorySwap = s.Memory, s.Memory
			}
			if s.Memlock > 0 {
				h.Ulimits = append(h.Ulimits, &container.Ulimit{Name: "memlock", Soft: s.Memlock, Hard: s.Memlock})
			}
			if s.ShareNetwork != nil {
				h.NetworkMode = container.NetworkMode("container:" + s.ShareNetwork.ID)
			}
		},
	}
	if s.ShareNetwork == nil {
		req.Networks = []string{w.net.Name}
		req.NetworkAliases = map[string][]string{w.net.Name: {alias}}
	}
	for path, data := range s.Files {
		req.Files = append(req.Files, testcontainers.ContainerFile{Reader: bytes.NewReader(data), ContainerFilePath: path, FileMode: 0o644})
	}
	c, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{ContainerRequest: req, Started: false})
	if err != nil {
		if c != nil {
			_ = c.Terminate(context.WithoutCancel(ctx))
		}
		return nil, fmt.Errorf("containers: create %s (%s): %w", s.Name, s.Image, err)
	}
	p := &Party{w: w, Spec: s, c: c, ID: c.GetContainerID(), exited: make(chan struct{})}
	w.mu.Lock()
	w.parties = append(w.parties, p)
	w.mu.Unlock()
	hj, err := w.Docker.ContainerAttach(ctx, p.ID, client.ContainerAttachOptions{Stream: true, Stdin: s.Stdin, Stdout: true, Stderr: true})
	if err != nil {
		_ = p.Remove(ctx)
		return nil, fmt.Errorf("containers: attach %s: %w", s.Name, err)
	}
	p.hj = &hj.HijackedResponse
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	p.stdout, p.stderr = outR, errR
	go func() {
		_, err := stdcopy.StdCopy(io.MultiWriter(outW, &p.outTail), io.MultiWriter(errW, &p.errTail), hj.Reader)
		p.outTail.end(err)
		p.errTail.end(err)
		outW.CloseWithError(err)
		errW.CloseWithError(err)
	}()
	if s.Stdin {
		p.stdin = closeWriter{p.hj}
	}
	if err := c.Start(ctx); err != nil {
		_ = p.Remove(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("containers: start %s: %w", s.Name, err)
	}
	p.started = time.Now()
	go p.wait()
	return p, nil
}

// closeWriter half-closes the attach connection on Close: the process sees EOF.
type closeWriter struct{ h *client.HijackedResponse }

func (w closeWriter) Write(b []byte) (int, error) { return w.h.Conn.Write(b) }
func (w closeWriter) Close() error                { return w.h.CloseWrite() }

func (p *Party) wait() {
	ctx := context.Background()
	res := p.w.Docker.ContainerWait(ctx, p.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	var e Exit
	select {
	case r := <-res.Result:
		e.Code = r.StatusCode
		if r.Error != nil && r.Error.Message != "" {
			e.Err = r.Error.Message
		}
	case err := <-res.Error:
		e.Err = "wait: " + err.Error()
	}
	if e.Code > 128 {
		if n, ok := signalNames[e.Code-128]; ok {
			e.Signal = n
		} else {
			e.Signal = fmt.Sprintf("signal %d", e.Code-128)
		}
	}
	if in, err := p.w.Docker.ContainerInspect(ctx, p.ID, client.ContainerInspectOptions{}); err == nil && in.Container.State != nil {
		e.OOMKilled = in.Container.State.OOMKilled
	}
	p.mu.Lock()
	p.exit = e
	p.mu.Unlock()
	close(p.exited)
}

// Stdin, Stdout and Stderr are the process's stdio (Stdin nil unless asked).
// Docker multiplexes stdout and stderr on one connection: read both at once,
// or an unread one stalls the other.
func (p *Party) Stdin() io.WriteCloser { return p.stdin }
func (p *Party) Stdout() io.ReadCloser { return p.stdout }
func (p *Party) Stderr() io.ReadCloser { return p.stderr }

// Exited is closed when the process has ended.
func (p *Party) Exited() <-chan struct{} { return p.exited }

// Exit is how it ended (zero while it runs).
func (p *Party) Exit() Exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// Host is the name other parties of the world dial.
func (p *Party) Host() string {
	if p.Spec.Alias != "" {
		return p.Spec.Alias
	}
	return p.Spec.Name
}

// IP is the party's address on the world network: the harness (on the
// Docker host) dials it directly, nothing is published.
func (p *Party) IP(ctx context.Context) (string, error) {
	owner := p
	if p.Spec.ShareNetwork != nil {
		owner = p.Spec.ShareNetwork
	}
	in, err := p.w.Docker.ContainerInspect(ctx, owner.ID, client.ContainerInspectOptions{})
	if err != nil {
		return "", fmt.Errorf("containers: inspect %s: %w", owner.Spec.Name, err)
	}
	if in.Container.NetworkSettings != nil {
		if ep, ok := in.Container.NetworkSettings.Networks[p.w.net.Name]; ok && ep.IPAddress.IsValid() {
			return ep.IPAddress.String(), nil
		}
	}
	return "", fmt.Errorf("containers: %s has no address on %s", owner.Spec.Name, p.w.net.Name)
}

// Signal sends sig to the container's process (docker kill --signal);
// SIGSTOP and SIGCONT pause and unpause the container instead (its process is
// PID 1 of its namespace, and the freezer stops every thread at once).
func (p *Party) Signal(ctx context.Context, sig syscall.Signal) error {
	switch sig {
	case syscall.SIGSTOP:
		return p.Pause(ctx)
	case syscall.SIGCONT:
		return p.Unpause(ctx)
	}
	if _, err := p.w.Docker.ContainerKill(ctx, p.ID, client.ContainerKillOptions{Signal: strconv.Itoa(int(sig))}); err != nil {
		return fmt.Errorf("containers: kill -s %s %s: %w", sig, p.Spec.Name, err)
	}
	return nil
}

// Pause freezes every process of the container (cgroup freezer) and
// Unpause thaws them: SIGSTOP/SIGCONT as seen from outside.
func (p *Party) Pause(ctx context.Context) error {
	if _, err := p.w.Docker.ContainerPause(ctx, p.ID, client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("containers: pause %s: %w", p.Spec.Name, err)
	}
	return nil
}

func (p *Party) Unpause(ctx context.Context) error {
	if _, err := p.w.Docker.ContainerUnpause(ctx, p.ID, client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("containers: unpause %s: %w", p.Spec.Name, err)
	}
	return nil
}

// Exec runs cmd inside the party's container (docker exec) and returns
// its exit code: a probe from within the party's own network namespace.
func (p *Party) Exec(ctx context.Context, cmd []string) (int, error) {
	code, _, err := p.c.Exec(ctx, cmd)
	if err != nil {
		return -1, fmt.Errorf("containers: exec in %s: %w", p.Spec.Name, err)
	}
	return code, nil
}

// netOwner is the party whose network namespace p uses.
func (p *Party) netOwner() *Party {
	if p.Spec.ShareNetwork != nil {
		return p.Spec.ShareNetwork
	}
	return p
}

// Disconnect takes the party off the world network (a partition); Connect
// puts it back with its alias. A party sharing another's namespace moves
// with it: the namespace is what is connected.
func (p *Party) Disconnect(ctx context.Context) error {
	o := p.netOwner()
	if _, err := p.w.Docker.NetworkDisconnect(ctx, p.w.net.ID, client.NetworkDisconnectOptions{Container: o.ID, Force: true}); err != nil {
		return fmt.Errorf("containers: disconnect %s: %w", o.Spec.Name, err)
	}
	return nil
}

func (p *Party) Connect(ctx context.Context) error {
	o := p.netOwner()
	if _, err := p.w.Docker.NetworkConnect(ctx, p.w.net.ID, client.NetworkConnectOptions{Container: o.ID,
		EndpointConfig: &mnet.EndpointSettings{Aliases: []string{o.Host()}}}); err != nil {
		return fmt.Errorf("containers: connect %s: %w", o.Spec.Name, err)
	}
	return nil
}

// SetMemory changes the memory limit of a running party (docker update);
// a party above it is OOM-killed by the kernel.
func (p *Party) SetMemory(ctx context.Context, bytes int64) error {
	if _, err := p.w.Docker.ContainerUpdate(ctx, p.ID, client.ContainerUpdateOptions{
		Resources: &container.Resources{Memory: bytes, MemorySwap: bytes}}); err != nil {
		return fmt.Errorf("containers: memory limit %d on %s: %w", bytes, p.Spec.Name, err)
	}
	return nil
}

// Kill ends the process with SIGKILL and waits for the exit, bounded by
// ctx. A paused (frozen) container gets the kill while frozen and is
// thawed after, so its process dies without running again, as a SIGSTOPped
// process does: thawed first, it served a read it held in the window
// before the kill landed (io/peer-killed-mid-read in containers).
func (p *Party) Kill(ctx context.Context) error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	if err := p.killFrozen(ctx); err != nil {
		return err
	}
	select {
	case <-p.exited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("containers: kill %s: %w", p.Spec.Name, ctx.Err())
	}
}

// killFrozen sends SIGKILL, then thaws the container in case it was
// paused, so the kill lands before any of its threads runs again.
func (p *Party) killFrozen(ctx context.Context) error {
	err := p.Signal(ctx, syscall.SIGKILL)
	_, _ = p.w.Docker.ContainerUnpause(ctx, p.ID, client.ContainerUnpauseOptions{})
	if err != nil && !strings.Contains(err.Error(), "is not running") {
		return err
	}
	return nil
}

// Remove kills and deletes the container. Safe to call twice.
func (p *Party) Remove(ctx context.Context) error {
	p.mu.Lock()
	if p.gone {
		p.mu.Unlock()
		return nil
	}
	p.gone = true
	p.mu.Unlock()
	// Removal must happen even when the caller's ctx has run out.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if p.hj != nil {
		p.hj.Close()
	}
	// Docker's stop thaws a paused container before its kill: the kill
	// first (Kill).
	_ = p.killFrozen(ctx)
	err := p.c.Terminate(ctx, testcontainers.StopTimeout(0))
	if err != nil && isNotFound(err) {
		err = nil
	}
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
	if err != nil {
		return fmt.Errorf("containers: remove %s: %w", p.Spec.Name, err)
	}
	return nil
}

// Act is one container action (faults.ContainerActions) on a running
// party: stop (SIGTERM, SIGKILL after 2 s), kill, pause, unpause,
// partition, reconnect, memory (bytes). start and restart make a new
// container: the engine that owns the party does those.
func (p *Party) Act(ctx context.Context, action string, bytes int64) error {
	switch action {
	case "stop":
		_ = p.Signal(ctx, syscall.SIGTERM)
		select {
		case <-p.Exited():
			return nil
		case <-time.After(2 * time.Second):
		}
		return p.Kill(ctx)
	case "kill":
		return p.Kill(ctx)
	case "pause":
		return p.Pause(ctx)
	case "unpause":
		return p.Unpause(ctx)
	case "partition":
		return p.Disconnect(ctx)
	case "reconnect":
		return p.Connect(ctx)
	case "memory":
		return p.SetMemory(ctx, bytes)
	}
	return fmt.Errorf("containers: action %q on %s: want stop, kill, pause, unpause, partition, reconnect or memory", action, p.Spec.Name)
}

// Gateway is the Docker host's address on the world network: where a
// harness-side listener binds so the world's containers can dial it.
func (w *World) Gateway(ctx context.Context) (string, error) {
	in, err := w.Docker.NetworkInspect(ctx, w.net.ID, client.NetworkInspectOptions{})
	if err != nil {
		return "", fmt.Errorf("containers: inspect network %s: %w", w.net.Name, err)
	}
	for _, c := range in.Network.IPAM.Config {
		if c.Gateway.IsValid() {
			return c.Gateway.String(), nil
		}
	}
	return "", fmt.Errorf("containers: network %s has no gateway", w.net.Name)
}

// Describe says where the party stands, for an error about a party that
// did not come up: Docker's view of its container (status, pid), how long
// ago it started, and the last lines of its stdout and stderr (and whether
// the attach stream ended).
func (p *Party) Describe(ctx context.Context) string {
	state := "state unknown"
	if in, err := p.w.Docker.ContainerInspect(ctx, p.ID, client.ContainerInspectOptions{}); err != nil {
		state = "inspect: " + err.Error()
	} else if st := in.Container.State; st != nil {
		state = fmt.Sprintf("docker status %s (pid %d, exit code %d, OOM-killed %t)", st.Status, st.Pid, st.ExitCode, st.OOMKilled)
	}
	return fmt.Sprintf("container %s: %s, started %s ago; stdout: %s; stderr: %s",
		p.Spec.Name, state, time.Since(p.started).Round(100*time.Millisecond), &p.outTail, &p.errTail)
}
