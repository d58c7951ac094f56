package realengine

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/containers/images"
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
)

// Container worlds (Options.Containers): every party — mooncake_master, the
// HTTP metadata server, mooncake_client, each SGLang process's driver, and
// toxiproxy's own server — runs in its own container on a network made for
// the world, from images built here (containers/images). The command lines
// are the process world's, with the host venv mapped to the image's
// (/opt/mc) and the world's temp dir to /faultlab; servers bind 0.0.0.0 and
// are dialled by their role name (master, metadata, client); the harness
// reaches them at their container addresses, nothing is published.

// ctrWorld is the container side of a World.
type ctrWorld struct {
	cw *containers.World
	b  *images.Builder
	// full is faultlab/mooncake:<version>-<hash>; image is what parties
	// start from now: full, or an image without the packages of the
	// libraries the hosts lack (topology.missing_libs, its remedy).
	full, image string
	seq         int
	pod         *containers.Party // network namespace of mooncake_client and the drivers
}

// containerShm is /dev/shm of drivers and mooncake_client: as large as a
// host's, so the catalog sees what it sees in processes (Docker's default
// 64 MiB is a field failure of its own).
const containerShm = 2 << 30

// shmSize is a party's /dev/shm: the topology's, else containerShm.
func shmSize(topology int64) int64 {
	if topology > 0 {
		return topology
	}
	return containerShm
}

// containerDriverDir is where the world's temp files (driver.py) appear.
const containerDriverDir = "/faultlab"

// openContainers makes the world's network, images and toxiproxy.
func (w *World) openContainers(ctx context.Context) (*toxiproxy.Injector, error) {
	cw, err := containers.NewWorld(ctx, w.log)
	if err != nil {
		return nil, err
	}
	b := &images.Builder{Docker: cw.Docker, Logger: w.log, Wheels: ImageWheel}
	mc, err := b.Mooncake(ctx, w.spec.Version)
	if err == nil {
		var tp images.Image
		if tp, err = b.Toxiproxy(ctx); err == nil {
			w.ctr = &ctrWorld{cw: cw, b: b, full: mc.Ref, image: mc.Ref}
			var inj *toxiproxy.Injector
			if err = w.useImageWithout(ctx, w.spec.MissingLibs); err == nil {
				inj, err = cw.StartToxiproxy(ctx, tp.Ref, w.log)
			}
			if err == nil {
				return inj, nil
			}
		}
	}
	_ = cw.Close(context.WithoutCancel(ctx))
	w.ctr = nil
	return nil, fmt.Errorf("containers: %w", err)
}

// useImageWithout makes parties start from now on from an image without
// the Debian packages that provide libs (none: the full image).
func (w *World) useImageWithout(ctx context.Context, libs []string) error {
	ref := w.ctr.full
	if len(libs) > 0 {
		pkgs, err := debianPackagesOf(libs)
		if err != nil {
			return err
		}
		img, err := w.ctr.b.MooncakeWithout(ctx, w.spec.Version, pkgs)
		if err != nil {
			return fmt.Errorf("real engine: %w", err)
		}
		ref = img.Ref
	}
	w.mu.Lock()
	w.ctr.image = ref
	w.mu.Unlock()
	return nil
}

// bindHost is the address servers listen on.
func (w *World) bindHost() string {
	if w.ctr != nil {
		return "0.0.0.0"
	}
	return "127.0.0.1"
}

// dialHost is the host name other parties use for a server role.
func (w *World) dialHost(role string) string {
	if w.ctr != nil {
		return role
	}
	return "127.0.0.1"
}

// probeAddr is where the harness checks a server's port.
func (w *World) probeAddr(ctx context.Context, p *proc, port int) (string, error) {
	host := "127.0.0.1"
	if p.ctr != nil {
		ip, err := p.ctr.IP(ctx)
		if err != nil {
			return "", err
		}
		host = ip
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}

// hostOnlyEnv are variables of this machine, not of an image.
var hostOnlyEnv = []string{"PATH", "HOME", "TMPDIR", "USER", "LD_LIBRARY_PATH", "LANG", "LC_ALL", "TZ"}

// startIn starts spec as a process here or as a container.
func (w *World) startIn(ctx context.Context, spec procSpec) (*proc, error) {
	if w.ctr == nil {
		return startProc(spec)
	}
	venv := w.l.Venv()
	mapPath := func(s string) string {
		s = strings.ReplaceAll(s, venv, images.VenvDir)
		return strings.ReplaceAll(s, w.dir, containerDriverDir)
	}
	cmd := []string{mapPath(spec.Path)}
	for _, a := range spec.Args {
		cmd = append(cmd, mapPath(a))
	}
	env := map[string]string{}
	for _, kv := range spec.Env {
		k, v, _ := strings.Cut(kv, "=")
		if !containsString(hostOnlyEnv, k) {
			env[k] = v
		}
	}
	files := map[string][]byte{}
	if spec.Protocol {
		b, err := os.ReadFile(w.drv)
		if err != nil {
			return nil, fmt.Errorf("real engine: %w", err)
		}
		files[mapPath(w.drv)] = b
	}
	w.mu.Lock()
	w.ctr.seq++
	name := fmt.Sprintf("%s-%d", spec.Role, w.ctr.seq)
	image := w.ctr.image
	w.mu.Unlock()
	ps := containers.PartySpec{Name: name, Alias: spec.Role, Image: image, Cmd: cmd, Env: env,
		Stdin: spec.Protocol, Files: files, ShmSize: spec.ShmSize, Memlock: spec.MemlockHard}
	if w.spec.Client != nil && !w.spec.Client.OwnPod && (spec.Protocol || spec.Role == "client") {
		// A dummy client reaches mooncake_client over an abstract unix socket
		// and a memfd: both live in one network namespace, held by a pod
		// container (alias "client"), as in a Kubernetes pod, so stopping
		// mooncake_client does not take the namespace with it.
		pod, err := w.pod(ctx)
		if err != nil {
			return nil, err
		}
		ps.ShareNetwork, ps.Alias = pod, ""
	}
	party, err := w.ctr.cw.Start(ctx, ps)
	if err != nil {
		return nil, fmt.Errorf("real engine: %w", err)
	}
	return startContainerProc(spec, party), nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// startContainerProc is startProc's twin for a party: its stdout is the
// driver protocol (driver.py without FAULTLAB_PROTO_FD) or a log stream,
// its stderr a log stream.
func startContainerProc(spec procSpec, party *containers.Party) *proc {
	p := &proc{spec: spec, ctr: party, exited: make(chan struct{}), syncCh: make(chan struct{})}
	if spec.Protocol {
		p.stdin, p.stdout = party.Stdin(), party.Stdout()
		p.logs.Add(1)
	} else {
		p.logs.Add(2)
		go p.pump(party.Stdout())
	}
	go p.pump(party.Stderr())
	go func() {
		<-party.Exited()
		close(p.exited)
	}()
	return p
}

// pod starts (once) the container holding the namespace mooncake_client and
// the drivers share.
func (w *World) pod(ctx context.Context) (*containers.Party, error) {
	w.mu.Lock()
	pod := w.ctr.pod
	w.mu.Unlock()
	if pod != nil {
		return pod, nil
	}
	pod, err := w.ctr.cw.Start(ctx, containers.PartySpec{Name: "pod", Alias: "client", Image: w.ctr.full,
		Cmd: []string{"sleep", "infinity"}, ShmSize: containerShm})
	if err != nil {
		return nil, fmt.Errorf("real engine: %w", err)
	}
	go io.Copy(io.Discard, pod.Stdout())
	go io.Copy(io.Discard, pod.Stderr())
	w.mu.Lock()
	w.ctr.pod = pod
	w.mu.Unlock()
	return pod, nil
}

// loopbackAcrossContainers: engine.LoopbackAcrossContainers in a
// container world.
func (w *World) loopbackAcrossContainers(node string, env map[string]string) error {
	if w.ctr == nil {
		return nil
	}
	return engine.LoopbackAcrossContainers(len(w.spec.Nodes), node, env)
}
