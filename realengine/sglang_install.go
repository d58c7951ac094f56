package realengine

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// sglangReqs holds one pinned requirements file per SGLang version: every
// package of the venv at an exact version (pip freeze of a checked
// install), installed with --no-deps so nothing is resolved at install time.
//
//go:embed sglangreqs/*.txt
var sglangReqs embed.FS

// SGLangPackage is the PyPI distribution of SGLang.
const SGLangPackage = "sglang"

// SGLangVersions lists the SGLang versions faultlab can install, newest
// first (one requirements file each under realengine/sglangreqs/).
func SGLangVersions() []string {
	ents, _ := sglangReqs.ReadDir("sglangreqs")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".txt"))
	}
	slices.SortFunc(out, func(a, b string) int { return -compareDotted(a, b) })
	return out
}

// LatestSGLang is the newest installable SGLang.
func LatestSGLang() string { return SGLangVersions()[0] }

// compareDotted orders "0.5.23" after "0.5.17" (numeric per component).
func compareDotted(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		var x, y int
		_, _ = fmt.Sscanf(as[i], "%d", &x)
		_, _ = fmt.Sscanf(bs[i], "%d", &y)
		if x != y {
			return x - y
		}
	}
	return len(as) - len(bs)
}

// sglangRequirements is the pinned requirements file of version.
func sglangRequirements(version string) ([]byte, error) {
	b, err := sglangReqs.ReadFile("sglangreqs/" + version + ".txt")
	if err != nil {
		return nil, fmt.Errorf("SGLang %s: no pinned requirements (installable: %s)", version, strings.Join(SGLangVersions(), ", "))
	}
	return b, nil
}

// SGLangLayout is where one SGLang version lives in the cache.
type SGLangLayout struct {
	Version string
	Dir     string // <cache>/sglang/<version>
}

// SGLangLayoutFor returns the layout of version under cache ("" = CacheDir()).
func SGLangLayoutFor(cache, version string) (SGLangLayout, error) {
	if cache == "" {
		c, err := CacheDir()
		if err != nil {
			return SGLangLayout{}, err
		}
		cache = c
	}
	return SGLangLayout{Version: version, Dir: filepath.Join(cache, "sglang", version)}, nil
}

// Venv is the virtualenv directory.
func (l SGLangLayout) Venv() string { return filepath.Join(l.Dir, "venv") }

// Python is the venv's interpreter.
func (l SGLangLayout) Python() string { return filepath.Join(l.Venv(), "bin", "python") }

// Marker is written last by InstallSGLang.
func (l SGLangLayout) Marker() string { return filepath.Join(l.Dir, "installed.json") }

// SGLangInstalled is the marker's content.
type SGLangInstalled struct {
	Package     string  `json:"package"`
	Version     string  `json:"version"`
	Python      string  `json:"python"`
	Packages    int     `json:"packages"`
	VenvBytes   int64   `json:"venv_bytes"`
	InstallSecs float64 `json:"install_secs"`
}

// ReadInstalled reads the marker; an error means "not installed".
func (l SGLangLayout) ReadInstalled() (SGLangInstalled, error) {
	var in SGLangInstalled
	b, err := os.ReadFile(l.Marker())
	if err != nil {
		return in, fmt.Errorf("real SGLang %s not installed in %s; run `make real-engine` (or `faultlab install sglang --versions %s`)", l.Version, l.Dir, l.Version)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, fmt.Errorf("real SGLang %s: corrupt %s: %w", l.Version, l.Marker(), err)
	}
	if in.Version != l.Version {
		return in, fmt.Errorf("real SGLang: %s records version %q, want %q", l.Marker(), in.Version, l.Version)
	}
	if _, err := os.Stat(l.Python()); err != nil {
		return in, fmt.Errorf("real SGLang %s: venv python missing: %w", l.Version, err)
	}
	return in, nil
}

// SGLangDiskBytes is the free space an SGLang install needs: the venv
// (6.1 GB measured for 0.5.23: torch and its CUDA wheels are most of it)
// plus pip's unpacking room.
const SGLangDiskBytes int64 = 9 << 30

// InstallSGLang makes each SGLang version usable by the real SGLang side: a
// venv under <cache>/sglang/<version>/venv with every package of the
// version's pinned requirements file (pip install --no-deps), checked by
// importing SGLang's Mooncake storage backend, and a marker written last.
// Mooncake is not in it: each run puts the world's Mooncake venv behind it
// (sglang_driver.py), so any installed Mooncake combines with any SGLang.
// A version whose marker exists is left alone; a failed install leaves no
// directory behind.
func InstallSGLang(ctx context.Context, versions []string, opts InstallOptions) error {
	log := opts.logger()
	if len(versions) == 0 {
		return fmt.Errorf("real SGLang install: no versions given (installable: %s)", strings.Join(SGLangVersions(), ", "))
	}
	for _, v := range versions {
		if _, err := sglangRequirements(v); err != nil {
			return fmt.Errorf("real SGLang install: %w", err)
		}
	}
	cache, unlock, err := lockCache(ctx, opts, "sglang")
	if err != nil {
		return fmt.Errorf("real SGLang install: %w", err)
	}
	defer unlock()
	var todo []SGLangLayout
	for _, v := range versions {
		l, _ := SGLangLayoutFor(cache, v)
		if _, err := l.ReadInstalled(); err == nil {
			log.Info("real SGLang: already installed", "version", v, "dir", l.Dir)
			continue
		}
		todo = append(todo, l)
	}
	if len(todo) > 1 {
		if err := checkDisk(cache, int64(len(todo))*SGLangDiskBytes); err != nil {
			return fmt.Errorf("real SGLang install of %d versions: %w", len(todo), err)
		}
	}
	// The versions install side by side: pip spends most of an install
	// waiting on downloads and unpacking one package at a time.
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, l := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = installSGLangVersion(ctx, log, l, opts); errs[i] != nil {
				// No half-made venv: the next run starts from nothing.
				if rerr := os.RemoveAll(l.Dir); rerr != nil {
					log.Warn("real SGLang: could not remove the failed install", "dir", l.Dir, "err", rerr)
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func installSGLangVersion(ctx context.Context, log *slog.Logger, l SGLangLayout, opts InstallOptions) error {
	start := time.Now()
	reqs, _ := sglangRequirements(l.Version)
	log.Info("real SGLang: creating venv", "version", l.Version, "dir", l.Venv())
	if err := freshVenv(ctx, opts, l.Dir, l.Venv(), SGLangDiskBytes); err != nil {
		return fmt.Errorf("real SGLang install %s: %w", l.Version, err)
	}
	req := filepath.Join(l.Dir, "requirements.txt")
	if err := os.WriteFile(req, reqs, 0o644); err != nil {
		return fmt.Errorf("real SGLang install %s: %w", l.Version, err)
	}
	log.Info("real SGLang: pip install (pinned, --no-deps; about 6 GB)", "version", l.Version)
	t := time.Now()
	if err := pipRun(ctx, l.Python(), "SGLang "+l.Version, opts, "--no-deps", "-r", req); err != nil {
		return err
	}
	log.Info("real SGLang: pip install done", "version", l.Version, "secs", secs(time.Since(t)))
	out, err := run(ctx, nil, l.Python(), "-W", "ignore", "-c",
		"import sys, sglang, sglang.srt.mem_cache.storage.mooncake_store.mooncake_store, sglang.srt.mem_cache.storage.backend_factory, "+
			"sglang.srt.mem_cache.memory_pool, sglang.srt.mem_cache.pool_host.mha, sglang.srt.mem_cache.pool_host.mla; print(sys.version.split()[0], sglang.__version__)")
	if err != nil {
		return fmt.Errorf("real SGLang install %s: importing SGLang's Mooncake store failed: %w\n%s", l.Version, err, tail(out, 8))
	}
	f := strings.Fields(lastLine(out))
	if len(f) != 2 || f[1] != l.Version {
		return fmt.Errorf("real SGLang install %s: venv reports %q", l.Version, lastLine(out))
	}
	in := SGLangInstalled{Package: SGLangPackage, Version: l.Version, Python: f[0],
		Packages: strings.Count(string(reqs), "=="), VenvBytes: dirBytes(l.Venv()), InstallSecs: secs(time.Since(start))}
	if err := writeMarker(l.Marker(), in); err != nil {
		return fmt.Errorf("real SGLang install %s: %w", l.Version, err)
	}
	log.Info("real SGLang: installed", "version", l.Version, "secs", in.InstallSecs, "venv_gb", float64(in.VenvBytes)/1e9)
	return nil
}

// checkDisk refuses when the file system of dir has less than need free.
func checkDisk(dir string, need int64) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return fmt.Errorf("free space of %s: %w", dir, err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if free < need {
		return fmt.Errorf("not enough disk space in %s: %.1f GB free, the venv needs about %.1f GB (set $FAULTLAB_CACHE to a larger file system)",
			dir, float64(free)/1e9, float64(need)/1e9)
	}
	return nil
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
