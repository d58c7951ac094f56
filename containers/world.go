package containers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
)

// World is one world's network and the parties started on it. Close removes
// them all; a world whose context is cancelled (Ctrl-C, SIGTERM) is closed by
// the engine that owns it, and what a killed harness left is reaped at the
// next NewWorld.
type World struct {
	ID     string
	Docker *testcontainers.DockerClient
	net    *testcontainers.DockerNetwork
	log    *slog.Logger

	mu      sync.Mutex
	parties []*Party
	seq     int
	closed  bool
}

// NewWorld connects to Docker, reaps what dead harness processes left, and
// creates the world's network (labelled with its id).
func NewWorld(ctx context.Context, log *slog.Logger) (*World, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d, err := Docker(ctx)
	if err != nil {
		return nil, err
	}
	if err := Reap(ctx, d); err != nil {
		log.Warn("containers: reap leftovers", "err", err)
	}
	id := NewWorldID()
	n, err := network.New(ctx, network.WithLabels(Labels(id)), network.WithDriver("bridge"))
	if err != nil {
		_ = d.Close()
		return nil, fmt.Errorf("containers: network for world %s: %w", id, err)
	}
	log.Debug("containers: world", "id", id, "network", n.Name)
	return &World{ID: id, Docker: d, net: n, log: log.With("world", id)}, nil
}

// Network is the name of the world's network.
func (w *World) Network() string { return w.net.Name }

// Close removes every party and the network, then anything else carrying the
// world's label. Safe to call twice.
func (w *World) Close(ctx context.Context) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	parties := append([]*Party(nil), w.parties...)
	w.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for i := len(parties) - 1; i >= 0; i-- {
		errs = append(errs, parties[i].Remove(ctx))
	}
	if err := w.net.Remove(ctx); err != nil && !isNotFound(err) {
		errs = append(errs, fmt.Errorf("containers: remove network %s: %w", w.net.Name, err))
	}
	errs = append(errs, Remove(ctx, w.Docker, w.ID))
	errs = append(errs, w.Docker.Close())
	return errors.Join(errs...)
}
