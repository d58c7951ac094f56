// Package containers runs faultlab worlds in Docker containers through
// testcontainers-go: one container per party on a network made for the world,
// everything labelled faultlab.world=<id> and removed on close, on Ctrl-C and
// SIGTERM (the context ends), and at the next start (Reap), because Ryuk, the
// reaper testcontainers-go normally starts, is an image that cannot be pulled
// here.
package containers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// Labels every world container and network carries.
const (
	LabelWorld = "faultlab.world" // the world id
	LabelPID   = "faultlab.pid"   // the harness process that made it (Reap)
)

func init() {
	// Ryuk is an image from a registry: it cannot run here. The harness
	// removes what it made itself (World.Close, Reap).
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	// testcontainers-go prints a banner per connection on stderr; it goes
	// to slog at debug level instead, so CLI output stays ours.
	tclog.SetDefault(debugLog{})
}

type debugLog struct{}

func (debugLog) Printf(format string, v ...any) {
	slog.Debug("testcontainers: " + strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// Docker connects to the daemon testcontainers-go resolves (DOCKER_HOST or
// the default socket). The error is one line saying what is missing.
func Docker(ctx context.Context) (*testcontainers.DockerClient, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("containers need a Docker daemon (apt-get install -y docker.io; dockerd running): %s", firstLine(err.Error()))
	}
	return d, nil
}

// Available reports whether container worlds can run here: nil, or one line
// saying what is missing.
func Available(ctx context.Context) error {
	d, err := Docker(ctx)
	if err != nil {
		return err
	}
	return d.Close()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// NewWorldID returns a fresh world id, "fl-" and 10 hex digits (it names the
// world's network and containers).
func NewWorldID() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return "fl-" + hex.EncodeToString(b[:])
}

// Labels are the labels of everything a world makes.
func Labels(world string) map[string]string {
	return map[string]string{LabelWorld: world, LabelPID: strconv.Itoa(os.Getpid())}
}

// Leftovers lists the containers and networks labelled faultlab.world (all
// worlds when world is ""), as "container <name>" / "network <name>".
func Leftovers(ctx context.Context, d client.APIClient, world string) ([]string, error) {
	return leftovers(ctx, d, worldFilter(world))
}

// LeftoversOf lists what worlds made by process pid still have.
func LeftoversOf(ctx context.Context, d client.APIClient, pid int) ([]string, error) {
	return leftovers(ctx, d, worldFilter("").Add("label", LabelPID+"="+strconv.Itoa(pid)))
}

func leftovers(ctx context.Context, d client.APIClient, f client.Filters) ([]string, error) {
	var out []string
	cs, err := d.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	for _, c := range cs.Items {
		out = append(out, "container "+strings.TrimPrefix(firstName(c.Names), "/"))
	}
	ns, err := d.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list networks: %w", err)
	}
	for _, n := range ns.Items {
		out = append(out, "network "+n.Name)
	}
	return out, nil
}

func firstName(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

func worldFilter(world string) client.Filters {
	f := client.Filters{}
	if world == "" {
		return f.Add("label", LabelWorld)
	}
	return f.Add("label", LabelWorld+"="+world)
}

// Remove deletes a world's containers (forced: running ones are killed)
// and then its networks.
func Remove(ctx context.Context, d client.APIClient, world string) error {
	return remove(ctx, d, worldFilter(world), func(map[string]string) bool { return true })
}

// Reap removes what dead harness processes left behind (a SIGKILLed test
// binary): every faultlab.world container and network whose faultlab.pid is
// not a running process. Worlds of live processes are left alone: several
// test binaries share one daemon.
func Reap(ctx context.Context, d client.APIClient) error {
	return remove(ctx, d, worldFilter(""), func(l map[string]string) bool { return !pidAlive(l[LabelPID]) })
}

func remove(ctx context.Context, d client.APIClient, f client.Filters, pick func(map[string]string) bool) error {
	var errs []error
	cs, err := d.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	for _, c := range cs.Items {
		if !pick(c.Labels) {
			continue
		}
		if _, err := d.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !isNotFound(err) {
			errs = append(errs, fmt.Errorf("remove container %s: %w", firstName(c.Names), err))
		}
	}
	ns, err := d.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("list networks: %w", err))...)
	}
	for _, n := range ns.Items {
		if !pick(n.Labels) {
			continue
		}
		if _, err := d.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil && !isNotFound(err) {
			errs = append(errs, fmt.Errorf("remove network %s: %w", n.Name, err))
		}
	}
	return errors.Join(errs...)
}

// pidAlive: a label without a pid (made by hand, compose) counts as alive,
// so Reap never removes what it cannot attribute.
func pidAlive(s string) bool {
	pid, err := strconv.Atoi(s)
	if err != nil || pid <= 0 {
		return true
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func isNotFound(err error) bool {
	var nf interface{ NotFound() }
	return errors.As(err, &nf) || strings.Contains(err.Error(), "No such")
}

// ComposeVersion is the Mooncake version compose.yaml runs by default
// (MOONCAKE_VERSION overrides it).
const ComposeVersion = "0.3.13.post1"
