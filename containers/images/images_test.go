package images_test

import (
	"context"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/mooncake-faultlab/faultlab/containers/images"
)

// version is the Mooncake version the image specs build (the compose one).
const version = "0.3.13.post1"

func docker(t *testing.T) *testcontainers.DockerClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Skipf("no Docker daemon reachable: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestBuildAndCache builds every image kind, then asks again: nothing is
// rebuilt, the refs and input hashes are the same, and the labels are set.
func TestBuildAndCache(t *testing.T) {
	d := docker(t)
	ctx := context.Background()
	b := &images.Builder{Docker: d}
	kinds := []struct {
		name  string
		alias string
		build func(context.Context) (images.Image, error)
	}{
		{"base", "faultlab/base:bookworm", b.Base},
		{"mooncake", "faultlab/mooncake:" + version, func(ctx context.Context) (images.Image, error) { return b.Mooncake(ctx, version) }},
		{"fake", "faultlab/fake:latest", b.Fake},
		{"toxiproxy", "faultlab/toxiproxy:" + images.ToxiproxyVersion, b.Toxiproxy},
		// topology.missing_libs in a container world: Mooncake#1619's image.
		{"mooncake-without-libcurl4", "faultlab/mooncake:" + version + "-without-libcurl4", func(ctx context.Context) (images.Image, error) {
			return b.MooncakeWithout(ctx, version, []string{"libcurl4"})
		}},
	}
	for _, k := range kinds {
		first, err := k.build(ctx)
		if err != nil {
			t.Fatalf("%s: %v", k.name, err)
		}
		t.Logf("%s: %s built=%v took=%.1fs", k.name, first.Ref, first.Built, first.Took.Seconds())
		if first.Alias != k.alias {
			t.Errorf("%s alias = %q, want %q", k.name, first.Alias, k.alias)
		}
		again, err := k.build(ctx)
		if err != nil {
			t.Fatalf("%s again: %v", k.name, err)
		}
		if again.Built || again.Ref != first.Ref || again.Inputs != first.Inputs {
			t.Errorf("%s second build = %+v, want cached %s", k.name, again, first.Ref)
		}
		res, err := d.ImageInspect(ctx, k.alias)
		if err != nil {
			t.Fatalf("%s inspect: %v", k.name, err)
		}
		if got := res.Config.Labels[images.LabelImage]; got != k.name {
			t.Errorf("%s label %s = %q", k.name, images.LabelImage, got)
		}
		if got := res.Config.Labels[images.LabelInputs]; got != first.Inputs {
			t.Errorf("%s label %s = %q, want %q", k.name, images.LabelInputs, got, first.Inputs)
		}
		if _, ok := res.Config.Labels["faultlab.world"]; ok {
			t.Errorf("%s: cached image carries faultlab.world", k.name)
		}
	}
}
