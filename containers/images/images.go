// Package images builds the images of container worlds on this machine, from
// nothing pulled: a Debian base made by mmdebstrap and imported, one Mooncake
// image per version with the non-CUDA wheel installed offline, and FROM-scratch
// images holding static Go binaries (the fake engine's servers, toxiproxy's own
// server and CLI).
//
// Every image is keyed by a hash of its inputs (the base recipe, the wheel
// files, the binaries' bytes, the Dockerfile text): it is rebuilt only when an
// input changes. Cached images carry the labels faultlab.image=<kind> and
// faultlab.inputs=<hash>, never faultlab.world: they outlive worlds on purpose.
package images

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/client"
)

// Labels on every cached image.
const (
	LabelImage   = "faultlab.image"   // base, mooncake, fake, toxiproxy
	LabelInputs  = "faultlab.inputs"  // hash of the inputs
	LabelVersion = "faultlab.version" // Mooncake or toxiproxy version
)

// Repository names; the stable tags (Image.Alias) are what compose.yaml names.
const (
	RepoBase      = "faultlab/base"
	RepoMooncake  = "faultlab/mooncake"
	RepoFake      = "faultlab/fake"
	RepoToxiproxy = "faultlab/toxiproxy"
)

// Docker is the part of the Docker API the builder uses
// (testcontainers.DockerClient and *client.Client satisfy it).
type Docker interface {
	ImageInspect(ctx context.Context, image string, opts ...client.ImageInspectOption) (client.ImageInspectResult, error)
	ImageImport(ctx context.Context, source client.ImageImportSource, ref string, opts client.ImageImportOptions) (client.ImageImportResult, error)
	ImageBuild(ctx context.Context, buildContext io.Reader, opts client.ImageBuildOptions) (client.ImageBuildResult, error)
	ImageTag(ctx context.Context, opts client.ImageTagOptions) (client.ImageTagResult, error)
	ImageList(ctx context.Context, opts client.ImageListOptions) (client.ImageListResult, error)
	ImageRemove(ctx context.Context, image string, opts client.ImageRemoveOptions) (client.ImageRemoveResult, error)
}

// Builder builds and caches images.
type Builder struct {
	Docker Docker
	// CacheDir holds downloaded wheels and the build lock
	// (default: $FAULTLAB_CACHE or ~/.cache/faultlab, then /images).
	CacheDir string
	// ModuleDir is the faultlab source tree the static binaries are built
	// from (default: the module containing the working directory).
	ModuleDir string
	// Python runs `pip download` on the host (default python3).
	Python string
	// Wheels says how a Mooncake version is installed in its image (nil:
	// the non-CUDA wheel, WheelPackage, as it is).
	Wheels func(ctx context.Context, version string) (Wheel, error)
	Logger *slog.Logger
}

// Image is one built or cached image.
type Image struct {
	Ref    string        // faultlab/<kind>:<tag>-<hash12>, unique per inputs
	Alias  string        // faultlab/<kind>:<tag>, the stable name (compose.yaml)
	Inputs string        // full input hash
	Built  bool          // false: found in the cache
	Took   time.Duration // build (or lookup) time
}

func (b *Builder) log() *slog.Logger {
	if b.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return b.Logger
}

// DefaultCacheDir is where wheels and the lock live.
func DefaultCacheDir() string {
	if d := os.Getenv("FAULTLAB_CACHE"); d != "" {
		return filepath.Join(d, "images")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "faultlab-cache", "images")
	}
	return filepath.Join(home, ".cache", "faultlab", "images")
}

func (b *Builder) cacheDir() string {
	if b.CacheDir != "" {
		return b.CacheDir
	}
	return DefaultCacheDir()
}

// lock serialises builds across processes (suites run packages in parallel).
func (b *Builder) lock() (func(), error) {
	dir := b.cacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("images: cache dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("images: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("images: lock: %w", err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, nil
}

// hashOf hashes named parts in order: the identity of an image's inputs.
func hashOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ensure (called with the time preparing the inputs began) returns the image repo:tag-hash, building it with build when it is
// not there yet, and points the alias repo:tag at it.
func (b *Builder) ensure(ctx context.Context, start time.Time, repo, tag, inputs string, labels map[string]string,
	build func(ctx context.Context, ref string, labels map[string]string) error) (Image, error) {
	img := Image{Ref: repo + ":" + tag + "-" + inputs[:12], Alias: repo + ":" + tag, Inputs: inputs}
	all := map[string]string{LabelInputs: inputs}
	for k, v := range labels {
		all[k] = v
	}
	if _, err := b.Docker.ImageInspect(ctx, img.Ref); err != nil {
		if !isNotFound(err) {
			return img, fmt.Errorf("images: inspect %s: %w", img.Ref, err)
		}
		b.log().Info("images: building", "image", img.Ref)
		if err := build(ctx, img.Ref, all); err != nil {
			return img, fmt.Errorf("images: build %s: %w", img.Ref, err)
		}
		img.Built = true
		if err := b.pruneStale(ctx, repo, all); err != nil {
			b.log().Warn("images: prune stale", "repo", repo, "err", err)
		}
	}
	if _, err := b.Docker.ImageTag(ctx, client.ImageTagOptions{Source: img.Ref, Target: img.Alias}); err != nil {
		return img, fmt.Errorf("images: tag %s as %s: %w", img.Ref, img.Alias, err)
	}
	img.Took = time.Since(start)
	b.log().Info("images: ready", "image", img.Ref, "built", img.Built, "secs", img.Took.Seconds())
	return img, nil
}

// pruneStale removes older builds of the same kind (and version): their
// inputs changed, nothing should run them any more.
func (b *Builder) pruneStale(ctx context.Context, repo string, labels map[string]string) error {
	f := client.Filters{}
	f = f.Add("label", LabelImage+"="+labels[LabelImage])
	if v, ok := labels[LabelVersion]; ok {
		f = f.Add("label", LabelVersion+"="+v)
	}
	res, err := b.Docker.ImageList(ctx, client.ImageListOptions{Filters: f})
	if err != nil {
		return err
	}
	for _, im := range res.Items {
		if im.Labels[LabelInputs] == labels[LabelInputs] {
			continue
		}
		// PruneChildren: the build's untagged steps go with it (the client
		// keeps them by default: every fake image build left 35 MB behind).
		if _, err := b.Docker.ImageRemove(ctx, im.ID, client.ImageRemoveOptions{Force: true, PruneChildren: true}); err != nil && !isNotFound(err) {
			return fmt.Errorf("remove %s: %w", im.ID, err)
		}
	}
	return nil
}

func isNotFound(err error) bool {
	var nf interface{ NotFound() }
	if errors.As(err, &nf) {
		return true
	}
	return strings.Contains(err.Error(), "No such image")
}

// buildContext is a tar stream of files (name → bytes, mode 0755 for
// binaries) plus the Dockerfile.
func buildContext(dockerfile string, files map[string]string) (io.Reader, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name string, mode int64, r io.Reader, size int64) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: size, ModTime: time.Unix(0, 0)}); err != nil {
			return err
		}
		_, err := io.Copy(tw, r)
		return err
	}
	if err := add("Dockerfile", 0o644, strings.NewReader(dockerfile), int64(len(dockerfile))); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f, err := os.Open(files[n])
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err == nil {
			err = add(n, int64(st.Mode().Perm()), f, st.Size())
		}
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("build context %s: %w", n, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}

// dockerBuild runs a build with the daemon's classic builder and returns
// the error the build stream reports, if any.
func (b *Builder) dockerBuild(ctx context.Context, ref, dockerfile string, files map[string]string, labels map[string]string) error {
	bc, err := buildContext(dockerfile, files)
	if err != nil {
		return err
	}
	res, err := b.Docker.ImageBuild(ctx, bc, client.ImageBuildOptions{
		Tags: []string{ref}, Labels: labels, Remove: true, ForceRemove: true, NetworkMode: "none",
	})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	return readStream(res.Body, b.log())
}

// readStream reads a Docker JSON progress stream; an "error" entry fails.
func readStream(r io.Reader, log *slog.Logger) error {
	dec := json.NewDecoder(r)
	var last []string
	for {
		var m struct {
			Stream string `json:"stream"`
			Error  string `json:"error"`
		}
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read build output: %w", err)
		}
		if s := strings.TrimSpace(m.Stream); s != "" {
			log.Debug("images: build", "out", s)
			last = append(last, s)
			if len(last) > 8 {
				last = last[1:]
			}
		}
		if m.Error != "" {
			return fmt.Errorf("%s (last output: %s)", m.Error, strings.Join(last, " | "))
		}
	}
}

// fileHash is the SHA-256 of a file's bytes.
func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
