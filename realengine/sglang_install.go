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
	"regexp"
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

// sglangBaseRE is a requirements file's "# faultlab: base <version>" line:
// the release takes its heavy packages from that release's venv.
var sglangBaseRE = regexp.MustCompile(`(?m)^# faultlab: base (\S+)$`)

// sharedDist says whether a distribution may come from the base's venv:
// torch and what its wheel pulls in (≈ 4.5 of 0.5.17's 5.3 GB).
func sharedDist(name string) bool {
	return name == "torch" || name == "torchvision" || name == "triton" ||
		strings.HasPrefix(name, "nvidia-") || strings.HasPrefix(name, "cuda-")
}

// SGLangShare is how a release's venv is made from its pinned file.
type SGLangShare struct {
	Base   string   // the release whose venv holds Shared ("" = none)
	Shared []string // pins identical in both files, not installed again
	Own    []byte   // the requirements pip installs: the file without Shared
	Pins   []string // every pin of the file, name==version
}

// sglangShare reads version's file. A base must be installed first and
// pin nothing the release does not pin: its site-packages come after the
// release's own (a .pth), so a package only the base had would be
// imported silently.
func sglangShare(version string) (SGLangShare, error) {
	b, err := sglangRequirements(version)
	if err != nil {
		return SGLangShare{}, err
	}
	file := "realengine/sglangreqs/" + version + ".txt"
	pins, err := parsePins(file, b)
	if err != nil {
		return SGLangShare{}, err
	}
	sh := SGLangShare{Own: b}
	for _, n := range sortedKeys(pins) {
		sh.Pins = append(sh.Pins, n+"=="+pins[n])
	}
	m := sglangBaseRE.FindSubmatch(b)
	if m == nil {
		return sh, nil
	}
	sh.Base = string(m[1])
	bb, err := sglangRequirements(sh.Base)
	if err != nil {
		return SGLangShare{}, fmt.Errorf("%s: base: %w", file, err)
	}
	if sglangBaseRE.Match(bb) {
		return SGLangShare{}, fmt.Errorf("%s: base %s has a base itself (one level only)", file, sh.Base)
	}
	basePins, err := parsePins("realengine/sglangreqs/"+sh.Base+".txt", bb)
	if err != nil {
		return SGLangShare{}, err
	}
	shared := map[string]bool{}
	for _, n := range sortedKeys(basePins) {
		v, ok := pins[n]
		if !ok {
			return SGLangShare{}, fmt.Errorf("%s: %s==%s of base %s is not pinned here (it would be imported from the base's venv)", file, n, basePins[n], sh.Base)
		}
		if v == basePins[n] && sharedDist(n) {
			shared[n] = true
			sh.Shared = append(sh.Shared, n+"=="+v)
		}
	}
	if !shared["torch"] {
		return SGLangShare{}, fmt.Errorf("%s: base %s pins another torch: nothing to share", file, sh.Base)
	}
	var own []string
	for _, line := range strings.Split(string(b), "\n") {
		if n, _, ok := strings.Cut(strings.TrimSpace(line), "=="); ok && shared[normDist(n)] {
			continue
		}
		own = append(own, line)
	}
	sh.Own = []byte(strings.Join(own, "\n"))
	return sh, nil
}

// parsePins reads name==version lines (comments and blank lines aside).
func parsePins(file string, b []byte) (map[string]string, error) {
	pins := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n, v, ok := strings.Cut(line, "==")
		if !ok || n == "" || v == "" || strings.ContainsAny(v, " ;,<>=") {
			return nil, fmt.Errorf("%s:%d: %q is not name==version", file, i+1, line)
		}
		pins[normDist(n)] = v
	}
	return pins, nil
}

// normDist is a distribution name as pip compares them (PEP 503).
func normDist(n string) string {
	return strings.NewReplacer("_", "-", ".", "-").Replace(strings.ToLower(strings.TrimSpace(n)))
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
	// Base is the release whose venv holds the Shared packages (a .pth).
	Base   string `json:"base,omitempty"`
	Shared int    `json:"shared,omitempty"`
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
	if in.Base != "" {
		bl := SGLangLayout{Version: in.Base, Dir: filepath.Join(filepath.Dir(l.Dir), in.Base)}
		if _, err := bl.ReadInstalled(); err != nil {
			return in, fmt.Errorf("real SGLang %s takes torch from SGLang %s's venv: %w", l.Version, in.Base, err)
		}
	}
	return in, nil
}

// SGLangDiskBytes is the free space an SGLang install needs: the venv
// (6.1 GB measured for 0.5.23: torch and its CUDA wheels are most of it)
// plus pip's unpacking room.
const SGLangDiskBytes int64 = 9 << 30

// SGLangSharedDiskBytes is the same for a release sharing its base's torch
// (0.85 GB measured for 0.5.14 and 0.5.16).
const SGLangSharedDiskBytes int64 = 2 << 30

func (sh SGLangShare) diskBytes() int64 {
	if sh.Base != "" {
		return SGLangSharedDiskBytes
	}
	return SGLangDiskBytes
}

// InstallSGLang makes each SGLang version usable by the real SGLang side: a
// venv under <cache>/sglang/<version>/venv with every package of the
// version's pinned requirements file (pip install --no-deps), checked by
// importing SGLang's Mooncake storage backend, and a marker written last.
// Mooncake is not in it: each run puts the world's Mooncake venv behind it
// (sglang_driver.py), so any installed Mooncake combines with any SGLang.
// A release whose file names a base (0.5.14, 0.5.16: 0.5.17) installs only
// what differs and reads torch, triton and the nvidia wheels from the
// base's venv through a .pth; the base is installed first, also when not
// asked for. A version whose marker exists is left alone; a failed install
// leaves no directory behind.
func InstallSGLang(ctx context.Context, versions []string, opts InstallOptions) error {
	log := opts.logger()
	if len(versions) == 0 {
		return fmt.Errorf("real SGLang install: no versions given (installable: %s)", strings.Join(SGLangVersions(), ", "))
	}
	shares := map[string]SGLangShare{}
	for _, v := range versions {
		sh, err := sglangShare(v)
		if err != nil {
			return fmt.Errorf("real SGLang install: %w", err)
		}
		shares[v] = sh
	}
	cache, unlock, err := lockCache(ctx, opts, "sglang")
	if err != nil {
		return fmt.Errorf("real SGLang install: %w", err)
	}
	defer unlock()
	// Two waves: the bases, then the releases sharing their torch.
	var waves [2][]SGLangLayout
	var need int64
	queued := map[string]bool{}
	var add func(v string, why string)
	add = func(v string, why string) {
		if queued[v] {
			return
		}
		queued[v] = true
		l, _ := SGLangLayoutFor(cache, v)
		if _, err := l.ReadInstalled(); err == nil {
			log.Info("real SGLang: already installed", "version", v, "dir", l.Dir)
			return
		}
		sh, ok := shares[v]
		if !ok { // a base: sglangShare checked its file with the release's
			sh, _ = sglangShare(v)
			shares[v] = sh
		}
		if sh.Base != "" {
			add(sh.Base, v+" shares its torch")
		}
		if why != "" {
			log.Info("real SGLang: installing a base release first", "version", v, "why", why)
		}
		w := 0
		if sh.Base != "" {
			w = 1
		}
		waves[w] = append(waves[w], l)
		need += sh.diskBytes()
	}
	for _, v := range versions {
		add(v, "")
	}
	if n := len(waves[0]) + len(waves[1]); n > 1 {
		if err := checkDisk(cache, need); err != nil {
			return fmt.Errorf("real SGLang install of %d versions: %w", n, err)
		}
	}
	var errs []error
	for _, todo := range waves {
		// The versions of a wave install side by side: pip spends most of
		// an install waiting on downloads and unpacking one package at a
		// time.
		werrs := make([]error, len(todo))
		var wg sync.WaitGroup
		for i, l := range todo {
			wg.Go(func() {
				if werrs[i] = installSGLangVersion(ctx, log, l, shares[l.Version], opts); werrs[i] != nil {
					// No half-made venv: the next run starts from nothing.
					if rerr := os.RemoveAll(l.Dir); rerr != nil {
						log.Warn("real SGLang: could not remove the failed install", "dir", l.Dir, "err", rerr)
					}
				}
			})
		}
		wg.Wait()
		errs = append(errs, werrs...)
	}
	return errors.Join(errs...)
}

// sglangCheck imports what sglang_driver.py imports (with its fallbacks for
// older releases), then checks that every pin is the version Python finds
// first on sys.path: a shared package from the base's venv, the others from
// the release's own site-packages. It prints "<python> <sglang version>".
const sglangCheck = `import sys, json, importlib.metadata as md
import torch, sglang, sglang.srt.mem_cache.storage.mooncake_store.mooncake_store
from sglang.srt.mem_cache.hicache_storage import HiCacheStorageConfig, PoolName
from sglang.srt.mem_cache.storage.backend_factory import StorageBackendFactory
from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool, MLATokenToKVPool
try:
    from sglang.srt.mem_cache.pool_host.mha import MHATokenToKVPoolHost
    from sglang.srt.mem_cache.pool_host.mla import MLATokenToKVPoolHost
except ImportError:
    from sglang.srt.mem_cache.memory_pool_host import MHATokenToKVPoolHost, MLATokenToKVPoolHost
try:
    from sglang.srt.mem_cache.embedding_store import EmbeddingStoreFactory
except ImportError:
    from sglang.srt.mem_cache.storage.mooncake_store.mooncake_embedding_store import MooncakeEmbeddingStore
bad = []
for pin in json.loads(sys.argv[1]):
    n, v = pin.split("==")
    try:
        got = md.version(n)
    except md.PackageNotFoundError:
        got = None
    if got != v:
        bad.append("%s: found %s" % (pin, got))
if bad:
    sys.exit("pins not as installed: " + "; ".join(bad))
print(sys.version.split()[0], sglang.__version__)
`

func installSGLangVersion(ctx context.Context, log *slog.Logger, l SGLangLayout, sh SGLangShare, opts InstallOptions) error {
	start := time.Now()
	var baseSite string
	if sh.Base != "" {
		bl := SGLangLayout{Version: sh.Base, Dir: filepath.Join(filepath.Dir(l.Dir), sh.Base)}
		if _, err := bl.ReadInstalled(); err != nil {
			return fmt.Errorf("real SGLang install %s: it takes torch from SGLang %s's venv: %w", l.Version, sh.Base, err)
		}
		var err error
		if baseSite, err = sitePackages(bl.Venv()); err != nil {
			return fmt.Errorf("real SGLang install %s: base %s: %w", l.Version, sh.Base, err)
		}
	}
	log.Info("real SGLang: creating venv", "version", l.Version, "dir", l.Venv())
	if err := freshVenv(ctx, opts, l.Dir, l.Venv(), sh.diskBytes()); err != nil {
		return fmt.Errorf("real SGLang install %s: %w", l.Version, err)
	}
	req := filepath.Join(l.Dir, "requirements.txt")
	if err := os.WriteFile(req, sh.Own, 0o644); err != nil {
		return fmt.Errorf("real SGLang install %s: %w", l.Version, err)
	}
	if sh.Base == "" {
		log.Info("real SGLang: pip install (pinned, --no-deps; about 6 GB)", "version", l.Version)
	} else {
		log.Info("real SGLang: pip install (pinned, --no-deps; about 0.9 GB, torch from the base)", "version", l.Version, "base", sh.Base, "shared", len(sh.Shared))
	}
	t := time.Now()
	// The .pth comes after pip: pip would take the base's packages on
	// sys.path for installed ones and skip them.
	if err := pipRun(ctx, l.Python(), "SGLang "+l.Version, opts, "--no-deps", "-r", req); err != nil {
		return err
	}
	log.Info("real SGLang: pip install done", "version", l.Version, "secs", secs(time.Since(t)))
	if sh.Base != "" {
		own, err := sitePackages(l.Venv())
		if err != nil {
			return fmt.Errorf("real SGLang install %s: %w", l.Version, err)
		}
		if filepath.Base(filepath.Dir(own)) != filepath.Base(filepath.Dir(baseSite)) {
			return fmt.Errorf("real SGLang install %s: venv is %s, base %s's is %s: their Pythons differ", l.Version, own, sh.Base, baseSite)
		}
		pth := "# faultlab: " + strings.Join(sh.Shared, " ") + " from SGLang " + sh.Base + "'s venv\n" + baseSite + "\n"
		if err := os.WriteFile(filepath.Join(own, "zz-faultlab-sglang-"+sh.Base+".pth"), []byte(pth), 0o644); err != nil {
			return fmt.Errorf("real SGLang install %s: %w", l.Version, err)
		}
	}
	pins, _ := json.Marshal(sh.Pins)
	out, err := run(ctx, nil, l.Python(), "-W", "ignore", "-c", sglangCheck, string(pins))
	if err != nil {
		return fmt.Errorf("real SGLang install %s: importing SGLang's Mooncake store failed: %w\n%s", l.Version, err, tail(out, 8))
	}
	f := strings.Fields(lastLine(out))
	if len(f) != 2 || f[1] != l.Version {
		return fmt.Errorf("real SGLang install %s: venv reports %q", l.Version, lastLine(out))
	}
	in := SGLangInstalled{Package: SGLangPackage, Version: l.Version, Python: f[0],
		Packages: len(sh.Pins), VenvBytes: dirBytes(l.Venv()), InstallSecs: secs(time.Since(start)),
		Base: sh.Base, Shared: len(sh.Shared)}
	if err := writeMarker(l.Marker(), in); err != nil {
		return fmt.Errorf("real SGLang install %s: %w", l.Version, err)
	}
	log.Info("real SGLang: installed", "version", l.Version, "secs", in.InstallSecs, "venv_gb", float64(in.VenvBytes)/1e9, "base", sh.Base)
	return nil
}

// sitePackages is the venv's lib/python3.X/site-packages.
func sitePackages(venv string) (string, error) {
	m, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages"))
	if len(m) != 1 {
		return "", fmt.Errorf("%s: want one lib/python3*/site-packages, found %d", venv, len(m))
	}
	return m[0], nil
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
