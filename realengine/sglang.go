package realengine

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sglang"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// sglangDriverPy runs SGLang's own storage code; it imports driver.py.
//
//go:embed driver/sglang_driver.py
var sglangDriverPy []byte

const sglangDriverFile = "sglang_driver.py"

// SGLangSide is the CLI name of real SGLang as the SGLang side.
const SGLangSide = "real"

// SGLang is SGLang's own Python code as the SGLang side of runs on the real
// engine: every scheduler an init step starts is sglang_driver.py in the
// SGLang venv of Version, with the world's Mooncake venv appended to its
// sys.path, so one SGLang install combines with every installed Mooncake.
type SGLang struct {
	// Version is the SGLang release ("" = LatestSGLang()).
	Version string
	// CacheDir overrides $FAULTLAB_CACHE / ~/.cache/faultlab.
	CacheDir string
	// Checkout is an SGLang source tree (e.g. a branch with a changed
	// mooncake_store.py) whose python/sglang replaces the release's
	// package; everything else comes from Version's venv, the release it
	// derives from.
	Checkout string

	// Spawn: start every scheduler as a new interpreter that imports
	// SGLang itself (≈ 7 s of CPU each) instead of forking it from a fork
	// server that imported SGLang once (sglang_forkserver.py).
	Spawn bool

	mu    sync.Mutex
	warm  map[*World]map[string]*realScheduler // Prepare's processes, not yet started
	forks forkServers
	// releases: the sides AtRelease made for scenarios naming a release.
	releases map[string]*SGLang
}

// Close ends the fork servers this side started (and any scheduler they
// still run), and those of the releases AtRelease made. The side can be
// used again: a server starts on next use.
func (s *SGLang) Close() error {
	s.forks.close()
	s.mu.Lock()
	rels := s.releases
	s.releases = nil
	s.mu.Unlock()
	for _, r := range rels {
		r.Close()
	}
	return nil
}

// Pinned implements sglang.Retargetable: a Version or a Checkout was chosen
// by the user.
func (s *SGLang) Pinned() bool { return s.Version != "" || s.Checkout != "" }

// AtRelease implements sglang.Retargetable: the installed release, one side
// (and its fork servers) per release, closed with s.
func (s *SGLang) AtRelease(release string) (sglang.Side, error) {
	if release == s.SGLangVersion() {
		return s, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.releases[release]; ok {
		return r, nil
	}
	r := &SGLang{Version: release, CacheDir: s.CacheDir, Spawn: s.Spawn}
	if err := r.Available(); err != nil {
		return nil, err
	}
	if s.releases == nil {
		s.releases = map[string]*SGLang{}
	}
	s.releases[release] = r
	return r, nil
}

var _ sglang.Side = (*SGLang)(nil)

// Name implements sglang.Side.
func (s *SGLang) Name() string { return SGLangSide }

// SGLangVersion implements sglang.Side.
func (s *SGLang) SGLangVersion() string {
	if s.Version == "" {
		return LatestSGLang()
	}
	return s.Version
}

// Available says whether this SGLang version is installed, or what to run.
func (s *SGLang) Available() error {
	l, err := SGLangLayoutFor(s.CacheDir, s.SGLangVersion())
	if err != nil {
		return err
	}
	if _, err := sglangRequirements(l.Version); err != nil {
		return fmt.Errorf("real SGLang: %w", err)
	}
	if s.Checkout != "" {
		if _, err := os.Stat(filepath.Join(s.Checkout, "python", "sglang", "__init__.py")); err != nil {
			return fmt.Errorf("real SGLang: checkout %s has no python/sglang package: %w", s.Checkout, err)
		}
	}
	_, err = l.ReadInstalled()
	return err
}

// StartAllowance implements sglang.StartAllowance: starting a scheduler
// imports SGLang (torch, transformers...): ≈ 7 s on an idle 2-core machine,
// several times that under load.
func (s *SGLang) StartAllowance() time.Duration { return 2 * time.Minute }

// Prepare implements sglang.Preparer: one scheduler process per node is
// spawned and imports SGLang before the world's time starts; then the
// world's clock restarts at zero, so faults at "30s" find SGLang where the
// Go model (which starts in no time) would be. Start takes these processes;
// World.Close reaps any left over.
func (s *SGLang) Prepare(ctx context.Context, ew engine.World, nodes []string) error {
	w, ok := ew.(*World)
	if !ok {
		return nil // Start says why
	}
	if err := s.Available(); err != nil {
		return err
	}
	scs := make([]*realScheduler, len(nodes))
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scs[i], errs[i] = s.spawn(ctx, w, n, nil)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	s.mu.Lock()
	if s.warm == nil {
		s.warm = map[*World]map[string]*realScheduler{}
	}
	s.warm[w] = map[string]*realScheduler{}
	for i, n := range nodes {
		s.warm[w][n] = scs[i]
	}
	s.mu.Unlock()
	w.start.restart()
	return nil
}

// take returns the prepared process of node, if any.
func (s *SGLang) take(w *World, node string) *realScheduler {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.warm[w][node]
	delete(s.warm[w], node)
	if len(s.warm[w]) == 0 {
		delete(s.warm, w)
	}
	return sc
}

// spawn starts one sglang_driver.py on node and waits until SGLang is
// imported; env is its process environment beyond the world's.
func (s *SGLang) spawn(ctx context.Context, w *World, node string, env map[string]string) (*realScheduler, error) {
	sl, _ := SGLangLayoutFor(s.CacheDir, s.SGLangVersion())
	pkg, err := w.l.PackageDir()
	if err != nil {
		return nil, err
	}
	full := map[string]string{"FAULTLAB_MOONCAKE_SITE": filepath.Dir(pkg)}
	if s.Checkout != "" {
		abs, err := filepath.Abs(filepath.Join(s.Checkout, "python"))
		if err != nil {
			return nil, err
		}
		full["FAULTLAB_SGLANG_CHECKOUT"] = abs
	}
	for k, v := range env {
		full[k] = v
	}
	sc := &realScheduler{node: node, tr: w.spec.Trace}
	t0 := time.Now()
	var fork *forkServer
	// A container world's scheduler runs in its container; a checkout's
	// SGLang is not the one a fork server imported.
	if !s.Spawn && s.Checkout == "" && w.ctr == nil {
		if fork, err = s.forks.get(ctx, sl.Python(), w.ldPath(w.in)); err != nil {
			w.log.Info("real SGLang: starting schedulers without the fork server", "sglang", sl.Version, "reason", err)
			fork = nil
		}
	}
	p, err := w.launchDriver(ctx, node, full, sl.Python(), filepath.Join(w.dir, sglangDriverFile), sc.event, fork)
	if err != nil {
		return nil, err
	}
	sc.p = p
	sc.startup = time.Since(t0)
	// A checkout reports its own version (whatever its branch says).
	if v := p.d.hello.SGLangVersion; v != sl.Version && s.Checkout == "" {
		_ = p.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("real SGLang: node %s runs SGLang %q, want %s", node, v, sl.Version)
	}
	sc.record("import", fmt.Sprintf("sglang %s imported in %.1fs (process ready after %.1fs; not the scenario's time)",
		p.d.hello.SGLangVersion, p.d.hello.ImportSecs, sc.startup.Seconds()))
	return sc, nil
}

// Start implements sglang.Side: one SGLang scheduler process running
// SGLang's host pool, MooncakeStore (or MooncakeEmbeddingStore) and
// registration in the real world of l.World: the prepared process of the
// node, else a new one (its import is then left out of the phase duration).
func (s *SGLang) Start(ctx context.Context, l sglang.Launch) (sglang.Scheduler, error) {
	w, ok := l.World.(*World)
	if !ok {
		return nil, engine.Unsupportedf("real SGLang runs on the real engine only (--engine real)")
	}
	if err := s.Available(); err != nil {
		return nil, err
	}
	// The driver builds the pools itself: "sglang" becomes the allocator
	// the release's own builder passes (sglang.ResolveAllocator).
	l.HostPool = l.HostPool.ForRelease(s.SGLangVersion())
	if err := expressible(l.HostPool); err != nil {
		return nil, err
	}
	sc := s.take(w, l.Node)
	if sc != nil {
		sc.startup = 0 // imported before the world's time started
	} else {
		var err error
		if sc, err = s.spawn(ctx, w, l.Node, l.Env); err != nil {
			return nil, err
		}
	}
	sc.mu.Lock()
	sc.tr, sc.onReturn = l.Trace, l.OnReturn
	sc.mu.Unlock()
	sc.embedding = l.Backend == sglang.BackendEmbedding
	var r struct {
		Raised *engine.PyError `json:"raised"`
	}
	err := sc.p.d.call(ctx, "sglang_start", map[string]any{
		"env": l.Env, "backend": l.Backend, "storage_config": storageConfig(l.StorageConfig), "host_pool": hostPool(l.HostPool), "files": l.Files,
	}, &r)
	if err == nil && r.Raised != nil {
		err = r.Raised
	}
	if err == nil {
		return sc, nil
	}
	if d, ok := sc.died(err); ok {
		sc.record("died", d.How()+": "+d.Reason)
	} else if pe, ok := engine.AsPyError(err); ok {
		sc.record("raise", pe.Class+": "+pe.Message)
	}
	// The scheduler dies with its exception; its observations stay.
	if cerr := sc.Close(context.WithoutCancel(ctx)); cerr != nil {
		err = errors.Join(err, cerr)
	}
	return sc, err
}

// sglangAllocators are the host allocator types get_allocator_from_storage
// knows that run here ("" and unknown names are its default).
var sglangAllocators = []string{"", "default", "mooncake", "shm"}

// expressible refuses host pools SGLang's own code cannot build here.
func expressible(h sglang.HostPoolSpec) error {
	if !slices.Contains(sglangAllocators, h.AllocatorType) {
		return engine.Unsupportedf("real SGLang: no host allocator %q in SGLang (get_allocator_from_storage knows mooncake, shm and the default)", h.AllocatorType)
	}
	if h.Draft != nil && !h.Draft.SharesMain {
		return expressible(*h.Draft)
	}
	return nil
}

func storageConfig(c sglang.StorageConfig) map[string]any {
	return map[string]any{"tp_rank": c.TPRank, "tp_size": c.TPSize, "pp_rank": c.PPRank, "pp_size": c.PPSize,
		"is_mla_model": c.IsMLAModel, "model_name": c.ModelName, "enable_storage_metrics": c.EnableStorageMetrics,
		"extra_config": c.ExtraConfig}
}

func hostPool(h sglang.HostPoolSpec) map[string]any {
	m := map[string]any{"layout": h.Layout, "allocator_type": h.AllocatorType, "size": h.Size,
		"page_size": h.PageSize, "page_bytes": h.PageBytes, "shares_main": h.SharesMain}
	if h.Draft != nil {
		m["draft"] = hostPool(*h.Draft)
	}
	return m
}

// realScheduler is one sglang_driver.py process as a sglang.Scheduler.
type realScheduler struct {
	node string
	tr   *trace.Trace
	p    *Process
	// startup is process start to ready: the import, not the scenario's time.
	startup time.Duration
	// embedding: MooncakeEmbeddingStore, which has no HiCache page I/O.
	embedding bool

	mu       sync.Mutex
	calls    []sglang.MooncakeCall
	closed   bool
	onReturn func(method string) // sglang.Launch.OnReturn
	// entered is the Mooncake call SGLang is in ("" between calls): the
	// call a death happened in.
	entered string
}

// modelledLoggers are the SGLang loggers whose code the Go model
// transcribes; their lines are the trace source "sglang". SGLang's other
// lines (device and host pool construction) go to "sglang:host".
var modelledLoggers = []string{
	"sglang.srt.mem_cache.storage.backend_factory",
	"sglang.srt.mem_cache.storage.mooncake_store.",
	"sglang.srt.mem_cache.pool_host.common", // get_allocator_from_storage's fallback warning
	"sglang.srt.mem_cache.memory_pool_host",
	"sglang.srt.mem_cache.embedding_store",
}

// SGLangHostSource is the trace source of SGLang's lines that the model
// does not cover (device/host pool construction).
const SGLangHostSource = "sglang:host"

type sglangEvent struct {
	Kind   string          `json:"kind"`
	Level  string          `json:"level"`
	Logger string          `json:"logger"`
	Text   string          `json:"text"`
	Method string          `json:"method"`
	Code   int             `json:"code"`
	Codes  []int           `json:"codes"`
	Raised *engine.PyError `json:"raised"`
}

// event turns sglang_driver.py's observations into the trace and Calls,
// with the model's texts (sglang.MooncakeStore.observe).
func (s *realScheduler) event(data []byte) {
	var ev sglangEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		s.record("protocol", "unparsable event: "+string(data))
		return
	}
	switch ev.Kind {
	case "log":
		src := SGLangHostSource
		for _, p := range modelledLoggers {
			if ev.Logger == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(ev.Logger, p)) {
				src = "sglang"
			}
		}
		if s.tr != nil {
			s.tr.Log(src, pyLevel(ev.Level), ev.Text)
		}
	case "enter":
		s.mu.Lock()
		s.entered = ev.Method
		s.mu.Unlock()
	case "call":
		c := sglang.MooncakeCall{Method: ev.Method, Code: ev.Code, Codes: ev.Codes, Raised: ev.Raised}
		switch {
		case ev.Raised != nil:
			s.record("return", ev.Method+" raised "+ev.Raised.Class)
		case ev.Codes != nil:
			s.record("return", fmt.Sprintf("%s -> %v", ev.Method, ev.Codes))
		default:
			s.record("return", fmt.Sprintf("%s -> %d", ev.Method, ev.Code))
		}
		s.mu.Lock()
		s.calls = append(s.calls, c)
		s.entered = ""
		onReturn := s.onReturn
		s.mu.Unlock()
		if onReturn != nil {
			onReturn(ev.Method)
		}
	}
}

// pyLevel maps Python's level names onto the trace's.
func pyLevel(l string) string {
	if l == "CRITICAL" {
		return "FATAL"
	}
	return l
}

func (s *realScheduler) record(kind, text string) {
	if s.tr != nil {
		s.tr.Record("sglang", kind, "", text)
	}
}

type ioResult struct {
	Result json.RawMessage `json:"result"`
	Raised *engine.PyError `json:"raised"`
}

func (s *realScheduler) io(ctx context.Context, op string, fields map[string]any, out any) error {
	if s.isClosed() {
		return errors.New("real SGLang: scheduler closed")
	}
	var r ioResult
	if err := s.p.d.call(ctx, op, fields, &r); err != nil {
		s.died(err)
		return err
	}
	if r.Raised != nil {
		return r.Raised
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("real SGLang: %s: decode %s: %w", op, r.Result, err)
	}
	return nil
}

// died names the Mooncake call SGLang was in on err's death, if err is one.
func (s *realScheduler) died(err error) (*engine.ProcessDied, bool) {
	d, ok := engine.AsProcessDied(err)
	if ok && d.Call == "" {
		s.mu.Lock()
		d.Call = s.entered
		s.mu.Unlock()
	}
	return d, ok
}

// pageIO refuses HiCache page I/O on the embedding store (its batch_put /
// batch_get of emb_ keys are no scenario step).
func (s *realScheduler) pageIO(op string) error {
	if s.embedding {
		return engine.Unsupportedf("real SGLang: %s on the embedding store: its batch_put/batch_get of emb_ keys are no scenario step", op)
	}
	return nil
}

func pageFields(keys []string, hostIndices []int64) map[string]any {
	if hostIndices == nil {
		hostIndices = []int64{}
	}
	return map[string]any{"keys": keys, "indices": hostIndices}
}

// BatchSetV1 implements sglang.Scheduler with MooncakeStore.batch_set_v1.
func (s *realScheduler) BatchSetV1(ctx context.Context, keys []string, hostIndices []int64) ([]bool, error) {
	if err := s.pageIO("sglang_batch_set"); err != nil {
		return nil, err
	}
	var r []bool
	err := s.io(ctx, "sglang_batch_set", pageFields(keys, hostIndices), &r)
	return r, err
}

// BatchGetV1 implements sglang.Scheduler with MooncakeStore.batch_get_v1.
func (s *realScheduler) BatchGetV1(ctx context.Context, keys []string, hostIndices []int64) ([]bool, error) {
	if err := s.pageIO("sglang_batch_get"); err != nil {
		return nil, err
	}
	var r []bool
	err := s.io(ctx, "sglang_batch_get", pageFields(keys, hostIndices), &r)
	return r, err
}

// BatchExists implements sglang.Scheduler with MooncakeStore.batch_exists.
func (s *realScheduler) BatchExists(ctx context.Context, keys []string) (int, error) {
	if err := s.pageIO("sglang_batch_exists"); err != nil {
		return 0, err
	}
	var n int
	err := s.io(ctx, "sglang_batch_exists", map[string]any{"keys": keys}, &n)
	return n, err
}

// HealthCheck implements sglang.Scheduler: the binding's health_check()
// on the store SGLang built.
func (s *realScheduler) HealthCheck(ctx context.Context) (int, error) {
	var n int
	err := s.io(ctx, "sglang_health_check", map[string]any{}, &n)
	return n, err
}

// StartupTime implements sglang.Startup.
func (s *realScheduler) StartupTime() time.Duration { return s.startup }

// Calls implements sglang.Scheduler.
func (s *realScheduler) Calls() []sglang.MooncakeCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sglang.MooncakeCall(nil), s.calls...)
}

func (s *realScheduler) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close implements sglang.Scheduler: the scheduler process exits.
func (s *realScheduler) Close(ctx context.Context) error {
	s.mu.Lock()
	done := s.closed
	s.closed = true
	s.mu.Unlock()
	if done {
		return nil
	}
	if err := s.p.Close(ctx); err != nil {
		return fmt.Errorf("real SGLang: close scheduler on %q: %w", s.node, err)
	}
	return nil
}
