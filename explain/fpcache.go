package explain

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// FingerprintCache keeps Fingerprint's result on disk between invocations
// of explain and new: the catalog on the model at every version is most
// of a call's time, and the same binary, catalog and version always give
// the same lines (the model is deterministic). The key covers all three:
// the executable (path, size, modification time), every scenario's source
// and version. A file that does not read back is computed again.
type FingerprintCache struct {
	Dir string // "" = no cache
}

type fpEntry struct {
	Scenario string   `json:"scenario"`
	Version  string   `json:"version"`
	SGLang   string   `json:"sglang,omitempty"`
	Lines    []string `json:"lines"`
}

// Fingerprint is Fingerprint(ctx, catalog, eng, version), from the cache
// when it holds this key, else computed and stored (a failed store only
// costs the next call its time).
func (c FingerprintCache) Fingerprint(ctx context.Context, catalog []*scenarios.Scenario, eng engine.Engine, version string) Fingerprints {
	path, err := c.path(catalog, eng, version)
	if err != nil {
		return Fingerprint(ctx, catalog, eng, version)
	}
	if b, err := os.ReadFile(path); err == nil {
		var es []fpEntry
		if json.Unmarshal(b, &es) == nil {
			fp := Fingerprints{}
			for _, e := range es {
				fp[Key{e.Scenario, e.Version, e.SGLang}] = e.Lines
			}
			return fp
		}
	}
	fp := Fingerprint(ctx, catalog, eng, version)
	if ctx.Err() != nil {
		return fp // cut short: not the catalog's whole answer
	}
	es := make([]fpEntry, 0, len(fp))
	for k, ls := range fp {
		es = append(es, fpEntry{k.Scenario, k.Version, k.SGLang, ls})
	}
	if b, err := json.Marshal(es); err == nil && os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		// Written whole, then renamed: a concurrent reader sees the old
		// file or the new one, never half of one.
		tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
		if os.WriteFile(tmp, b, 0o644) == nil && os.Rename(tmp, path) != nil {
			_ = os.Remove(tmp)
		}
		prune(filepath.Dir(path), fpCacheKeep)
	}
	return fp
}

// fpCacheKeep is how many cache files stay: each build of faultlab (and
// each test binary) writes its own.
const fpCacheKeep = 8

// prune removes all but the keep newest files of dir.
func prune(dir string, keep int) {
	es, err := os.ReadDir(dir)
	if err != nil || len(es) <= keep {
		return
	}
	type f struct {
		name string
		mod  int64
	}
	var fs []f
	for _, e := range es {
		if info, err := e.Info(); err == nil && !e.IsDir() {
			fs = append(fs, f{e.Name(), info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(fs, func(a, b f) int { return cmp.Compare(b.mod, a.mod) })
	for _, x := range fs[min(keep, len(fs)):] {
		_ = os.Remove(filepath.Join(dir, x.name))
	}
}

// path is the cache file of this executable, catalog, model and version.
func (c FingerprintCache) path(catalog []*scenarios.Scenario, eng engine.Engine, version string) (string, error) {
	if c.Dir == "" {
		return "", fmt.Errorf("no cache")
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	st, err := os.Stat(exe)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00%s\x00", exe, st.Size(), st.ModTime().UnixNano(), eng.Name(), version)
	for _, sc := range catalog {
		src, err := scenarios.SourceOf(sc)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", sc.Name, len(src))
		h.Write(src)
	}
	return filepath.Join(c.Dir, "fingerprints", hex.EncodeToString(h.Sum(nil))[:32]+".json"), nil
}
