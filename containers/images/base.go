package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/mooncake-faultlab/faultlab/tmpdir"
)

// BaseSuite and BasePackages are the Debian base recipe: Python for the venv
// and the libraries the Mooncake wheels link but do not ship.
const BaseSuite = "bookworm"

var BasePackages = []string{"python3", "python3-venv", "libibverbs1", "ibverbs-providers", "libnuma1", "libcurl4"}

// baseRecipe bumps when the way the base is made changes.
const baseRecipe = "mmdebstrap --variant=minbase; v1"

// Base builds (or finds) faultlab/base:bookworm: mmdebstrap's minbase
// tarball imported as an image.
func (b *Builder) Base(ctx context.Context) (Image, error) {
	unlock, err := b.lock()
	if err != nil {
		return Image{}, err
	}
	defer unlock()
	return b.base(ctx)
}

func (b *Builder) base(ctx context.Context) (Image, error) {
	inputs := hashOf(baseRecipe, BaseSuite, strings.Join(BasePackages, ","))
	return b.ensure(ctx, time.Now(), RepoBase, BaseSuite, inputs, map[string]string{LabelImage: "base"},
		func(ctx context.Context, ref string, labels map[string]string) error {
			if _, err := exec.LookPath("mmdebstrap"); err != nil {
				return fmt.Errorf("mmdebstrap not found (apt-get install -y mmdebstrap): %w", err)
			}
			dir, err := tmpdir.Make("faultlab-base-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			tarball := filepath.Join(dir, "base.tar")
			cmd := exec.CommandContext(ctx, "mmdebstrap", "--variant=minbase", "--quiet",
				"--include="+strings.Join(BasePackages, ","), BaseSuite, tarball)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("mmdebstrap: %w: %s", err, lastLines(string(out), 6))
			}
			f, err := os.Open(tarball)
			if err != nil {
				return err
			}
			defer f.Close()
			changes := []string{
				"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
				"ENV LANG=C.UTF-8",
				`CMD ["/bin/bash"]`,
			}
			for _, k := range sortedKeys(labels) {
				changes = append(changes, fmt.Sprintf("LABEL %s=%s", k, labels[k]))
			}
			res, err := b.Docker.ImageImport(ctx, client.ImageImportSource{Source: f, SourceName: "-"}, ref,
				client.ImageImportOptions{Changes: changes, Message: "faultlab base: " + baseRecipe})
			if err != nil {
				return fmt.Errorf("docker import: %w", err)
			}
			defer res.Close()
			return readStream(res, b.log())
		})
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}
