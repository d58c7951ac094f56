package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/tmpdir"
)

// ToxiproxyVersion is the toxiproxy module faultlab builds (go.mod's).
const ToxiproxyVersion = "2.12.0"

// Fake builds (or finds) faultlab/fake:latest: FROM scratch with a static
// faultlab binary; its entrypoint is `faultlab serve fake`'s binary.
func (b *Builder) Fake(ctx context.Context) (Image, error) {
	return b.static(ctx, RepoFake, "latest", "fake", map[string]string{"faultlab": "./cmd/faultlab"},
		`ENTRYPOINT ["/faultlab"]`)
}

// Toxiproxy builds (or finds) faultlab/toxiproxy:<version>: toxiproxy's own
// server (github.com/Shopify/toxiproxy/v2/cmd/server) and CLI, static,
// listening on 0.0.0.0:8474 inside the container.
func (b *Builder) Toxiproxy(ctx context.Context) (Image, error) {
	return b.static(ctx, RepoToxiproxy, ToxiproxyVersion, "toxiproxy", map[string]string{
		"toxiproxy-server": "github.com/Shopify/toxiproxy/v2/cmd/server",
		"toxiproxy-cli":    "github.com/Shopify/toxiproxy/v2/cmd/cli",
	}, `ENTRYPOINT ["/toxiproxy-server", "-host=0.0.0.0", "-port=8474"]
EXPOSE 8474`)
}

// static builds Go packages with CGO off into a FROM-scratch image; the
// binaries' bytes are the inputs (go builds are reproducible with -trimpath).
func (b *Builder) static(ctx context.Context, repo, tag, kind string, pkgs map[string]string, tail string) (Image, error) {
	unlock, err := b.lock()
	if err != nil {
		return Image{}, err
	}
	defer unlock()
	start := time.Now()
	mod, err := b.moduleDir()
	if err != nil {
		// An installed faultlab outside its source tree cannot build the
		// binaries; an image built before (make images) still serves.
		alias := repo + ":" + tag
		if in, ierr := b.Docker.ImageInspect(ctx, alias); ierr == nil {
			return Image{Ref: alias, Alias: alias, Inputs: in.Config.Labels[LabelInputs], Took: time.Since(start)}, nil
		}
		return Image{}, fmt.Errorf("%w; or build %s once from the repository with `make images`", err, alias)
	}
	dir, err := tmpdir.Make("faultlab-static-")
	if err != nil {
		return Image{}, err
	}
	defer os.RemoveAll(dir)
	files := map[string]string{}
	var parts []string
	dockerfile := "FROM scratch\n"
	for _, name := range sortedKeys(pkgs) {
		out := filepath.Join(dir, name)
		ldflags := "-s -w"
		if kind == "toxiproxy" { // its -version prints this, not "git"
			ldflags += " -X github.com/Shopify/toxiproxy/v2.Version=" + ToxiproxyVersion
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags="+ldflags, "-o", out, pkgs[name])
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if o, err := cmd.CombinedOutput(); err != nil {
			return Image{}, fmt.Errorf("images: go build %s: %w: %s", pkgs[name], err, lastLines(string(o), 6))
		}
		h, err := fileHash(out)
		if err != nil {
			return Image{}, err
		}
		files[name] = out
		parts = append(parts, name+"="+h)
		dockerfile += fmt.Sprintf("COPY %s /%s\n", name, name)
	}
	dockerfile += tail + "\n"
	inputs := hashOf(append([]string{dockerfile}, parts...)...)
	labels := map[string]string{LabelImage: kind}
	if kind == "toxiproxy" {
		labels[LabelVersion] = ToxiproxyVersion
	}
	return b.ensure(ctx, start, repo, tag, inputs, labels, func(ctx context.Context, ref string, labels map[string]string) error {
		return b.dockerBuild(ctx, ref, dockerfile, files, labels)
	})
}

// moduleDir finds the faultlab source tree.
func (b *Builder) moduleDir() (string, error) {
	if b.ModuleDir != "" {
		return b.ModuleDir, nil
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("images: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("images: static images are built from the faultlab source: run from inside the repository (or set Builder.ModuleDir)")
	}
	return filepath.Dir(gomod), nil
}
