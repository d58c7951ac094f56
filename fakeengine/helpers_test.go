package fakeengine_test

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// spec is two nodes and a master with an HTTP metadata server, at scale 0.01.
func spec() engine.WorldSpec {
	return engine.WorldSpec{Scenario: "t", Seed: 1, Version: mooncake.Latest, Master: &engine.MasterSpec{},
		Metadata: "http", Nodes: []engine.NodeSpec{{Name: "tp0"}, {Name: "tp1"}}, TimeoutScale: 0.01}
}

// launchP2P launches spec() with P2PHANDSHAKE metadata (no metadata
// server); the caller closes the world.
func launchP2P(ctx context.Context, t *testing.T) engine.World {
	t.Helper()
	s := spec()
	s.Metadata = "P2PHANDSHAKE"
	w, err := fakeengine.New(fakeengine.Options{}).Launch(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func setupArgs(w engine.World, host string) engine.SetupArgs {
	m, _ := w.Addr("master")
	return engine.SetupArgs{LocalHostname: host, MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: 64 << 20,
		LocalBufferSize: 16 << 20, Protocol: "tcp", MasterServerAddr: m}
}
