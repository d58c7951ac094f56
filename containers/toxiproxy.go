package containers

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
)

// ToxiproxyAPIPort is toxiproxy's API port inside its container.
const ToxiproxyAPIPort = 8474

// toxiproxyFirstPort is the first proxy listen port inside the container.
const toxiproxyFirstPort = 20000

// StartToxiproxy starts toxiproxy's own server (image faultlab/toxiproxy) as
// the world's party "toxiproxy" and returns an injector driving it over its
// API, dialled at the container's address (nothing is published): proxies
// listen inside it and parties dial toxiproxy:<port>.
func (w *World) StartToxiproxy(ctx context.Context, image string, log *slog.Logger) (*toxiproxy.Injector, error) {
	return w.startToxiproxy(ctx, image, log, false)
}

// StartToxiproxyByIP is StartToxiproxy for worlds whose clients run in the
// harness (the fake engine's SGLang model): proxies are advertised at the
// container's address, which the Docker host dials and parties can too.
func (w *World) StartToxiproxyByIP(ctx context.Context, image string, log *slog.Logger) (*toxiproxy.Injector, error) {
	return w.startToxiproxy(ctx, image, log, true)
}

func (w *World) startToxiproxy(ctx context.Context, image string, log *slog.Logger, byIP bool) (*toxiproxy.Injector, error) {
	p, err := w.Start(ctx, PartySpec{Name: "toxiproxy", Image: image})
	if err != nil {
		return nil, err
	}
	go func() { _, _ = io.Copy(io.Discard, p.Stdout()) }()
	go func() { _, _ = io.Copy(io.Discard, p.Stderr()) }()
	ip, err := p.IP(ctx)
	if err != nil {
		return nil, err
	}
	api := net.JoinHostPort(ip, strconv.Itoa(ToxiproxyAPIPort))
	advertise := p.Host()
	if byIP {
		advertise = ip
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		inj, err := toxiproxy.NewRemote(ctx, api, advertise, toxiproxyFirstPort, log)
		if err == nil {
			return inj, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("containers: toxiproxy not up: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
