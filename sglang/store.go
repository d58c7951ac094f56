package sglang

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Constants of mooncake_store.py (V-B).
const (
	// DefaultLocalBufferSize is DEFAULT_LOCAL_BUFFER_SIZE (16 MiB).
	DefaultLocalBufferSize int64 = 16 * 1024 * 1024
	// WarmupKeyPrefix precedes uuid4().hex in the warmup key.
	WarmupKeyPrefix = "sglang_mooncake_store_warmup_key"
	// WarmupMaxRetries and WarmupRetryDelay are warmup()'s retry loop.
	WarmupMaxRetries = 10
	WarmupRetryDelay = time.Second
	warmupValueSize  = 4 * 1024

	// BackendLog is StorageBackendFactory.create_backend's info line for "mooncake".
	BackendLog = "Creating storage backend 'mooncake' (sglang.srt.mem_cache.storage.mooncake_store.mooncake_store.MooncakeStore)"
	// AllocatorFallbackWarning is get_allocator_from_storage's ImportError warning.
	AllocatorFallbackWarning = "Mooncake's tensor allocator requires mooncake >= 0.3.8.post1. Please upgrade Mooncake by 'pip install mooncake-transfer-engine --upgrade'. Fallback to use default allocator."
	// StandaloneAllocatorError is the standalone branch's isinstance RuntimeError.
	StandaloneAllocatorError = "MooncakeStore with standalone_storage=True requires MooncakeHostTensorAllocator. Please set standalone_storage=False or upgrade Mooncake by 'pip install mooncake-transfer-engine --upgrade'."
	// StandaloneAllocatorErrorOld is its text before 0.5.15.
	StandaloneAllocatorErrorOld = "MooncakeStore with standalone_storage=True requires MooncakeHostTensorAllocator. Please set standalone_storage=False or upgrade Mooncake by 'pip install mooncake --upgrade'."
	// TenantUnsupportedError is the fallback loop's RuntimeError when tenant_id is rejected.
	// ImportHintError is _import_mooncake_store's ImportError when
	// `from mooncake.store import MooncakeDistributedStore` fails (raised
	// from the original: a missing native library, mooncake-install-broken).
	ImportHintError = "Please install mooncake by following the instructions at https://kvcache-ai.github.io/Mooncake/getting_started/build.html to run SGLang with MooncakeConnector."
	// GroupSemanticsFallbackWarning is MooncakeStore.__init__'s warning
	// when extra_config's enable_group_semantics is set and the binding's
	// ReplicateConfig has no group_ids (mooncake_store.py 0.5.14:390,
	// 0.5.16:393, 0.5.17:409, 0.5.23:442).
	GroupSemanticsFallbackWarning = "Mooncake group semantics is enabled, but the installed Mooncake package does not support ReplicateConfig.group_ids. Falling back to the existing batch_put_from path."
	TenantUnsupportedError        = "The installed Mooncake version does not support tenant_id in MooncakeDistributedStore.setup(). Please upgrade Mooncake to use non-default Mooncake tenants with SGLang."

	logSource = "sglang"
)

// Log levels as Python's logging names them.
const (
	LevelDebug   = "DEBUG"
	LevelInfo    = "INFO"
	LevelWarning = "WARNING"
	LevelError   = "ERROR"
)

// MooncakeCall is one call SGLang made on MooncakeDistributedStore, with
// what Python got back: Code for int-returning calls, Codes for batch calls,
// Raised when the binding raised. For get(), Code is len(returned bytes).
type MooncakeCall struct {
	Method string
	Code   int
	Codes  []int
	Raised *engine.PyError
	// Took is how long the call ran on the world's clock (virtual in sim,
	// wall elsewhere, unscaled).
	Took time.Duration
	// Racy is how much of Took the model spent in racy waits
	// (engine.Racy; 0 off sim).
	Racy time.Duration
	// Host is how much of Took the model charged for host work
	// (engine.HostWork; 0 off sim).
	Host time.Duration
}

// MethodCodes is one entry of the report's "codes": a method and the codes
// it returned, in call order.
type MethodCodes struct {
	Method string
	Codes  []int
}

// hostBuffers is a host KV pool as MooncakeStore sees it.
type hostBuffers struct {
	spec HostPoolSpec
	// kv is the whole allocation (kv_buffer); k and v its halves for MHA.
	kv, k, v engine.Buffer
	mla      bool
	// kvOnly: the pool has no get_hybrid_pool_buffer (MHA before
	// versionKVHalves), so SGLang registers and counts kv_buffer only.
	kvOnly bool
}

// registered is _iter_host_pool_buffers(): what register_mem_pool_host
// registers and _standalone_required_bytes counts beside kv_buffer.
func (h *hostBuffers) registered() []engine.Buffer {
	if h.kvOnly {
		return []engine.Buffer{h.kv}
	}
	return h.hybridBuffers()
}

// hybridBuffers is get_hybrid_pool_buffer(): [k_buffer, v_buffer] for MHA,
// [k_buffer] (== kv_buffer) for MLA.
func (h *hostBuffers) hybridBuffers() []engine.Buffer {
	if h.mla {
		return []engine.Buffer{h.kv}
	}
	return []engine.Buffer{h.k, h.v}
}

// MooncakeStore is SGLang's MooncakeStore bound to one engine.Store.
type MooncakeStore struct {
	l      Launch
	env    pyEnv
	proc   engine.Process
	store  engine.Store
	config *MooncakeStoreConfig
	host   *hostBuffers
	draft  *hostBuffers
	calls  []MooncakeCall
	began  time.Duration // world clock when the current Mooncake call began
	racy0  time.Duration // the clock's racy account then
	host0  time.Duration // and its host-work account

	// Set by __init__.
	configPrefix         string
	hasPrefix            bool
	perRankSegmentSize   int64
	deviceName           any
	localRank            int
	isMLA                bool
	mhaSuffix, mlaSuffix string
	setupKwargsFinal     []engine.Kwarg
	closed               bool
	// importFailed: mooncake.store did not import (newStore).
	importFailed bool
}

// Start runs one SGLang scheduler's startup with HiCache storage backend
// "mooncake": the host pool (get_allocator_from_storage, with its fallback
// warning), then attach_storage_backend → StorageBackendFactory.create_backend
// (its log line) → MooncakeStore.__init__ (order of reference sglang.md §1.3)
// → register_mem_pool_host → draft pool registration. It returns the
// exception the scheduler dies with, as *engine.PyError with SGLang's exact
// class and message (the HiCacheController wraps only ValueError as
// "Failed to create storage backend: {e}").
//
// On error the scheduler process is gone (closed), but the returned store
// is non-nil once the process started: its Calls/Codes are what SGLang
// observed before dying. It cannot do I/O. *engine.Unsupported means a path
// this model does not cover (check_server, group semantics...). An
// *engine.ProcessDied from the engine (the process died inside a Mooncake
// call: no exception, no further SGLang line) is returned unchanged.
//
// Launch.Backend "embedding" runs EmbeddingCacheController's
// MooncakeEmbeddingStore instead (see startEmbedding).
func Start(ctx context.Context, l Launch) (*MooncakeStore, error) {
	if l.World == nil {
		return nil, errors.New("sglang: Launch.World is nil")
	}
	proc, err := l.World.StartProcess(ctx, l.Node, l.Env)
	if err != nil {
		return nil, fmt.Errorf("sglang: start process on %q: %w", l.Node, err)
	}
	s := &MooncakeStore{l: l, proc: proc}
	s.env = pyEnv{vars: l.Env, warn: func(msg string) { s.log(LevelWarning, msg) }, resolveHost: l.atLeast(versionResolveHostname)}
	switch l.Backend {
	case "", BackendKV:
		err = s.start(ctx)
	case BackendEmbedding:
		err = s.startEmbedding(ctx)
	case BackendDirectLinker:
		err = s.startDirectLinker(ctx)
	default:
		err = fmt.Errorf("sglang: Launch.Backend %q: want %q, %q or %q", l.Backend, BackendKV, BackendEmbedding, BackendDirectLinker)
	}
	if err == nil {
		return s, nil
	}
	if d, ok := engine.AsProcessDied(err); ok {
		// The process died inside Mooncake: Python raised nothing and no
		// SGLang line follows. The *engine.ProcessDied goes back unchanged;
		// a failing close of the dead process is only traced.
		s.record("died", d.How()+": "+d.Reason)
		if cerr := s.shutdown(context.WithoutCancel(ctx)); cerr != nil {
			s.record("close", cerr.Error())
		}
		return s, err
	}
	if pe, ok := engine.AsPyError(err); ok {
		// Only HiCacheController wraps ValueError; EmbeddingCacheController
		// and the direct linker let every exception through.
		if pe.Class == "ValueError" && (l.Backend == "" || l.Backend == BackendKV) {
			err = &engine.PyError{Class: "ValueError", Message: "Failed to create storage backend: " + pe.Message}
			pe = err.(*engine.PyError)
		}
		s.record("raise", pe.Class+": "+pe.Message)
	}
	// The scheduler dies: its process and Mooncake objects go with it.
	if cerr := s.shutdown(context.WithoutCancel(ctx)); cerr != nil {
		err = errors.Join(err, cerr)
	}
	return s, err
}

func (s *MooncakeStore) start(ctx context.Context) error {
	var err error
	// HiRadixCache builds the host pools before the controller attaches storage.
	if s.host, err = s.allocHostPool(ctx, s.l.HostPool, false); err != nil {
		return err
	}
	if d := s.l.HostPool.Draft; d != nil {
		if d.SharesMain {
			s.draft = s.host
		} else if s.draft, err = s.allocHostPool(ctx, *d, true); err != nil {
			return err
		}
	}
	s.log(LevelInfo, BackendLog)
	if err := s.init(ctx); err != nil {
		return err
	}
	if err := s.registerMemPoolHost(ctx); err != nil {
		return err
	}
	// _maybe_register_draft_with_storage → register_mem_host_pool_v2(draft, DRAFT).
	if s.draft != nil {
		return s.registerBuffer(ctx, s.draft.kv)
	}
	return nil
}

// allocHostPool is HostKVCache's allocation through get_allocator_from_storage.
func (s *MooncakeStore) allocHostPool(ctx context.Context, spec HostPoolSpec, draft bool) (*hostBuffers, error) {
	spec.AllocatorType = ResolveAllocator(spec, draft, s.l.SGLangVersion)
	var layoutMLA bool
	switch spec.Layout {
	case "MHA":
	case "MLA":
		layoutMLA = true
	default:
		return nil, fmt.Errorf("sglang: host pool layout %q: want MHA or MLA", spec.Layout)
	}
	alloc := engine.AllocDefault
	switch spec.AllocatorType {
	case "mooncake":
		alloc = engine.AllocMooncakeShm
	case "hugepage":
		alloc = engine.AllocHugepage
	}
	buf, err := s.proc.Alloc(ctx, alloc, spec.Size)
	if pe, ok := engine.AsPyError(err); ok && alloc == engine.AllocMooncakeShm && pe.Class == "ImportError" {
		s.log(LevelWarning, AllocatorFallbackWarning)
		buf, err = s.proc.Alloc(ctx, engine.AllocDefault, spec.Size)
	}
	if err != nil {
		if _, ok := engine.AsPyError(err); ok {
			return nil, err
		}
		return nil, fmt.Errorf("sglang: allocate %d-byte host pool (%s): %w", spec.Size, alloc, err)
	}
	h := &hostBuffers{spec: spec, kv: buf, mla: layoutMLA, kvOnly: !layoutMLA && !s.l.atLeast(versionKVHalves)}
	if !layoutMLA {
		half := buf.Size / 2
		h.k, h.v = buf.Slice(0, half), buf.Slice(half, half)
	}
	return h, nil
}

// init is MooncakeStore.__init__ with its two except branches.
func (s *MooncakeStore) init(ctx context.Context) error {
	err := s.initBody(ctx)
	if pe, ok := engine.AsPyError(err); ok && !s.importFailed {
		if pe.Class == "ValueError" {
			s.log(LevelError, "Configuration loading failed: "+pe.Message)
		} else {
			s.log(LevelError, "An error occurred while loading the configuration: "+pe.Message)
		}
	}
	return err
}

// newStore is _import_mooncake_store() then MooncakeDistributedStore(): the
// import's ImportError (the binding's constructor raises none) is raised
// again with the install hint, outside __init__'s try (no log line); any
// other Python exception goes back as it is.
func (s *MooncakeStore) newStore(ctx context.Context) error {
	st, err := s.proc.NewStore(ctx)
	if err != nil {
		if pe, ok := engine.AsPyError(err); ok {
			if pe.Class == "ImportError" {
				s.importFailed = true
				return &engine.PyError{Class: "ImportError", Message: ImportHintError}
			}
			return err
		}
		return fmt.Errorf("sglang: MooncakeDistributedStore(): %w", err)
	}
	s.store = st
	return nil
}

func (s *MooncakeStore) initBody(ctx context.Context) error {
	if err := s.newStore(ctx); err != nil {
		return err
	}

	sc := s.l.StorageConfig
	var extra map[string]any
	if sc.ExtraConfig != nil {
		n, err := normalizePy(sc.ExtraConfig)
		if err != nil {
			return fmt.Errorf("sglang: extra_config: %w", err)
		}
		extra = n.(map[string]any)
	}
	cfg, source, err := loadConfig(s.env, s.l.Files, extra)
	if err != nil {
		return err
	}
	s.config = cfg
	s.gateTenant()
	s.log(LevelInfo, fmt.Sprintf("Mooncake Configuration loaded from %s successfully.", source))

	if pyTruthy(extra["enable_group_semantics"]) {
		// _import_mooncake_group_semantics: hasattr(ReplicateConfig,
		// "group_ids"). Without it SGLang warns and keeps the
		// batch_put_from path (modelled); with it the group puts are not.
		prof, err := mooncake.ProfileFor(s.l.MooncakeVersion)
		if err != nil || prof.ReplicateConfigGroupIDs {
			return engine.Unsupportedf("sglang: enable_group_semantics (ReplicateConfig.group_ids) is not modelled")
		}
		s.log(LevelWarning, GroupSemanticsFallbackWarning)
	}
	tp, pp := max(sc.TPSize, 1), max(sc.PPSize, 1)
	scale := tp * pp
	if !s.l.atLeast(versionSegmentPerPP) {
		scale = tp
	}
	s.perRankSegmentSize = floorDiv(cfg.GlobalSegmentSize, int64(scale))

	if !s.l.atLeast(versionTenant) {
		// "extra_backend_tag" in extra_config: the tag alone, even None
		// (logged, no prefix then); the model name is not used.
		if tag, ok := extra["extra_backend_tag"]; ok {
			s.log(LevelInfo, "Using extra_backend_tag: "+pyStr(tag))
			if tag != nil {
				s.configPrefix, s.hasPrefix = pyStr(tag), true
			}
		}
	} else {
		var parts []string
		if tag, ok := extra["extra_backend_tag"]; ok && tag != nil {
			parts = append(parts, pyStr(tag))
		}
		if sc.ModelName != "" {
			parts = append(parts, strings.ReplaceAll(sc.ModelName, "/", "-"))
		}
		if len(parts) > 0 {
			s.configPrefix, s.hasPrefix = strings.Join(parts, "_"), true
			s.log(LevelInfo, "Using Mooncake config prefix: "+s.configPrefix)
		}
	}

	if pyTruthy(cfg.CheckServer) {
		if _, ok := cfg.MasterServerAddress.(string); !ok {
			return pyErr("AttributeError", fmt.Sprintf("'%s' object has no attribute 'split'", pyTypeName(cfg.MasterServerAddress)))
		}
		return engine.Unsupportedf("sglang: check_server (HTTP GET of the master's /get_all_segments) is not modelled")
	}

	dev, err := s.resolveDeviceName(cfg.DeviceName, sc.TPRank)
	if err != nil {
		return err
	}
	s.deviceName = dev

	var ret int
	if pyTruthy(cfg.StandaloneStorage) {
		if s.host == nil { // the direct linker's MooncakeStore(mem_pool=None)
			return pyErr("AttributeError", "'NoneType' object has no attribute 'allocator'")
		}
		if s.host.kv.Allocator != engine.AllocMooncakeShm {
			if !s.l.atLeast(versionStandaloneTextTE) {
				return pyErr("RuntimeError", StandaloneAllocatorErrorOld)
			}
			return pyErr("RuntimeError", StandaloneAllocatorError)
		}
		required := s.standaloneRequiredBytes()
		addr, ok := cfg.ClientServerAddress.(string)
		if !ok { // e.g. standalone with only MOONCAKE_MASTER set: server_address=None
			pe := pyErr("TypeError", setupDummyTypeError(s.storeClass(), required, DefaultLocalBufferSize, cfg.ClientServerAddress))
			s.begin()
			s.observe("setup_dummy", 0, nil, pe)
			return pe
		}
		s.begin()
		ret, err = s.store.SetupDummy(ctx, required, DefaultLocalBufferSize, addr)
		s.observe("setup_dummy", ret, nil, err)
		if err != nil {
			return err
		}
	} else {
		if ret, err = s.setupWithFallback(ctx); err != nil {
			return err
		}
	}
	if ret != 0 {
		return pyErr("RuntimeError", fmt.Sprintf("Failed to setup Mooncake store, error code: %d", ret))
	}
	s.log(LevelInfo, "Mooncake store setup successfully.")

	s.localRank = sc.TPRank
	if err := s.warmup(ctx); err != nil {
		return err
	}
	s.log(LevelInfo, "Mooncake store warmup successfully.")

	s.isMLA = sc.IsMLAModel
	if pp > 1 {
		s.mhaSuffix = fmt.Sprintf("%d_%d", s.localRank, sc.PPRank)
		s.mlaSuffix = fmt.Sprint(sc.PPRank)
	} else {
		s.mhaSuffix = fmt.Sprint(s.localRank)
		s.mlaSuffix = ""
	}
	return nil
}

// setupDummyTypeError is pybind11's TypeError for a setup_dummy() call
// whose server_address is not a str. The binding is the same from v0.3.8
// (where setup_dummy appeared) to Mooncake main: store_py.cpp
// `.def("setup_dummy", [](MooncakeStorePyWrapper &self, size_t mem_pool_size,
// size_t local_buffer_size, const std::string &server_address) ...,
// py::arg("mem_pool_size"), py::arg("local_buffer_size"), py::arg("server_address"))`.
func setupDummyTypeError(class string, memPoolSize, localBufferSize int64, addr any) string {
	return "setup_dummy(): incompatible function arguments. The following argument types are supported:\n" +
		"    1. (self: " + class + ", mem_pool_size: int, local_buffer_size: int, server_address: str) -> int\n\n" +
		fmt.Sprintf("Invoked with: <%s object at %s>, %d, %d, %s", class, mooncake.SimObjectAddr, memPoolSize, localBufferSize, pyRepr(addr))
}

// storeClass is the binding's Python class at the world's Mooncake release.
func (s *MooncakeStore) storeClass() string {
	p, err := mooncake.ProfileFor(s.l.MooncakeVersion)
	if err != nil {
		return mooncake.StoreClass
	}
	return p.Class()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// resolveDeviceName is __init__'s "Handle JSON device_name configuration".
func (s *MooncakeStore) resolveDeviceName(dev any, tpRank int) (any, error) {
	if !pyTruthy(dev) {
		return dev, nil
	}
	str, ok := dev.(string)
	if !ok {
		return nil, pyErr("AttributeError", fmt.Sprintf("'%s' object has no attribute 'strip'", pyTypeName(dev)))
	}
	if !strings.HasPrefix(strings.TrimSpace(str), "{") {
		return str, nil
	}
	parsed, err := pyJSONLoads(str)
	if err != nil {
		if _, ok := err.(*jsonDecodeError); !ok {
			return nil, fmt.Errorf("sglang: device_name JSON: %w", err)
		}
		s.log(LevelWarning, "Failed to parse device_name as JSON: "+str)
		return "", nil
	}
	m, ok := parsed.(map[string]any)
	if !ok { // .get on a non-dict is the AttributeError branch
		s.log(LevelWarning, "Failed to parse device_name as JSON: "+str)
		return "", nil
	}
	// device_config.get(tp_rank, "") never hits: JSON keys are str.
	v, ok := m[fmt.Sprint(tpRank)]
	if !ok {
		return "", nil
	}
	return v, nil
}

// standaloneRequiredBytes is _standalone_required_bytes: kv_buffer plus
// get_hybrid_pool_buffer(), deduplicated by start pointer only. For MHA the
// v half starts elsewhere and is counted again (kv + v).
func (s *MooncakeStore) standaloneRequiredBytes() int64 {
	seen := map[uint64]bool{}
	var total int64
	add := func(b engine.Buffer) {
		if seen[b.Ptr] {
			return
		}
		seen[b.Ptr] = true
		total += b.Size
	}
	add(s.host.kv)
	for _, b := range s.host.registered() {
		add(b)
	}
	return total
}

// setupKwargs builds setup_kwargs in insertion order (V-B starts from {}).
func (s *MooncakeStore) setupKwargs() []engine.Kwarg {
	var kw []engine.Kwarg
	if pyTruthy(s.config.EnableSSDOffload) {
		kw = append(kw, engine.Kwarg{Name: "enable_ssd_offload", Value: true})
	}
	if p := s.config.SSDOffloadPath; p != nil {
		if str, ok := p.(string); ok && s.l.atLeast(versionSSDRankDir) {
			// os.path.join(path, f"rank_{dp}_{tp}_{pp}_{attn_cp}"), then
			// os.makedirs (a directory on the SGLang host, not modelled).
			sc := s.l.StorageConfig
			sep := "/"
			if str == "" || strings.HasSuffix(str, "/") {
				sep = ""
			}
			p = fmt.Sprintf("%s%srank_0_%d_%d_0", str, sep, sc.TPRank, sc.PPRank)
		}
		kw = append(kw, engine.Kwarg{Name: "ssd_offload_path", Value: p})
	}
	if s.config.TenantID != DefaultTenantID {
		kw = append(kw, engine.Kwarg{Name: "tenant_id", Value: s.config.TenantID})
	}
	return kw
}

// setupWithFallback is the non-standalone branch: no shared transfer engine
// (transfer_engine None — see Report), then the kwarg fallback loop.
func (s *MooncakeStore) setupWithFallback(ctx context.Context) (int, error) {
	kwargs := s.setupKwargs()
	for {
		ret, err := s.callSetup(ctx, kwargs)
		if err == nil {
			s.setupKwargsFinal = kwargs
			return ret, nil
		}
		pe, ok := engine.AsPyError(err)
		if !ok || pe.Class != "TypeError" {
			return 0, err
		}
		// A plain substring test on str(e), as SGLang does.
		var unsupported []string
		for _, k := range kwargs {
			if strings.Contains(pe.Message, k.Name) {
				unsupported = append(unsupported, k.Name)
			}
		}
		if len(unsupported) == 0 {
			return 0, pe
		}
		for _, k := range unsupported {
			if k == "tenant_id" {
				return 0, pyErr("RuntimeError", TenantUnsupportedError)
			}
		}
		names := strings.Join(unsupported, ", ")
		s.log(LevelWarning, fmt.Sprintf("The installed Mooncake version does not support the %s parameter(s) in setup(). Retrying without %s. Please upgrade Mooncake to enable SSD offload support.", names, names))
		var kept []engine.Kwarg
		for _, k := range kwargs {
			if !strings.Contains(pe.Message, k.Name) {
				kept = append(kept, k)
			}
		}
		kwargs = kept
	}
}

// callSetup is MooncakeStore's store.setup(...) call: 8 positionals (the
// last is transfer_engine=None) and kwargs.
func (s *MooncakeStore) callSetup(ctx context.Context, kwargs []engine.Kwarg) (int, error) {
	c := s.config
	if err := s.makeOffloadDir(kwargs); err != nil {
		return 0, err
	}
	return s.setupCall(ctx, []any{c.LocalHostname, c.MetadataServer, s.perRankSegmentSize, DefaultLocalBufferSize, c.Protocol, s.deviceName, c.MasterServerAddress}, true, kwargs)
}

// makeOffloadDir is MooncakeStore's os.makedirs of the per-rank
// ssd_offload_path (SGLang 0.5.21+), done on a real host's store
// (engine.DirMaker).
func (s *MooncakeStore) makeOffloadDir(kwargs []engine.Kwarg) error {
	dm, ok := s.store.(engine.DirMaker)
	if !ok || !s.l.atLeast(versionSSDRankDir) {
		return nil
	}
	for _, k := range kwargs {
		if p, ok := k.Value.(string); ok && k.Name == "ssd_offload_path" && p != "" {
			if err := dm.MakeDir(p); err != nil {
				return fmt.Errorf("sglang: makedirs %s: %w", p, err)
			}
		}
	}
	return nil
}

// setupCall is one store.setup(...) call with the seven leading
// positionals, transfer_engine=None as 8th when passEngine, and kwargs.
// Arguments no binding accepts by type (None or non-str where str is due,
// a negative size_t) cannot travel in engine.SetupArgs; pybind11 rejects
// them with its TypeError, which is worded here from the version profile.
func (s *MooncakeStore) setupCall(ctx context.Context, seven []any, passEngine bool, kwargs []engine.Kwarg) (int, error) {
	positional := append([]any(nil), seven...)
	if passEngine {
		positional = append(positional, nil)
	}
	strs := make([]string, 0, 5)
	typeOK := true
	for i, v := range positional[:7] {
		if i == 2 || i == 3 {
			if n := v.(int64); n < 0 {
				typeOK = false
			}
			continue
		}
		sv, ok := v.(string)
		if !ok {
			typeOK = false
		}
		strs = append(strs, sv)
	}
	for _, k := range kwargs {
		switch k.Value.(type) {
		case string, bool:
		default: // ssd_offload_path from JSON as a number, list...
			typeOK = false
		}
	}
	if !typeOK {
		if s.l.MooncakeVersion == "" {
			return 0, engine.Unsupportedf("sglang: setup() arguments %s are rejected by pybind11; wording its TypeError needs Launch.MooncakeVersion", describeArgs(positional, kwargs))
		}
		prof, err := mooncake.ProfileFor(s.l.MooncakeVersion)
		if err != nil {
			return 0, fmt.Errorf("sglang: %w", err)
		}
		kv := make([]mooncake.KV, len(kwargs))
		copy(kv, kwargs)
		pe := pyErr("TypeError", mooncake.SetupTypeError(prof, positional, kv))
		s.begin() // pybind11 rejects the call before Mooncake runs
		s.observe("setup", 0, nil, pe)
		return 0, pe
	}
	args := engine.SetupArgs{
		LocalHostname: strs[0], MetadataServer: strs[1],
		GlobalSegmentSize: positional[2].(int64), LocalBufferSize: positional[3].(int64),
		Protocol: strs[2], RDMADevices: strs[3], MasterServerAddr: strs[4],
		PassEngine: passEngine, Kwargs: append([]engine.Kwarg(nil), kwargs...),
	}
	s.begin()
	ret, err := s.store.Setup(ctx, args)
	s.observe("setup", ret, nil, err)
	return ret, err
}

func describeArgs(positional []any, kwargs []engine.Kwarg) string {
	parts := make([]string, 0, len(positional)+len(kwargs))
	for _, p := range positional {
		parts = append(parts, pyRepr(p))
	}
	for _, k := range kwargs {
		parts = append(parts, k.Name+"="+pyRepr(k.Value))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// warmupKey is "sglang_mooncake_store_warmup_key" + uuid4().hex with the
// uuid drawn from the launch seed (stream named after the node).
func (s *MooncakeStore) warmupKey() string {
	h := fnv.New64a()
	_, _ = h.Write([]byte("sglang/warmup/" + s.l.Node))
	r := rand.New(rand.NewPCG(s.l.Seed, h.Sum64()))
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return WarmupKeyPrefix + hex.EncodeToString(b[:])
}

// warmup is MooncakeStore.warmup().
func (s *MooncakeStore) warmup(ctx context.Context) error {
	key := s.warmupKey()
	value := make([]byte, warmupValueSize)
	ok := false
	for attempt := 0; attempt < WarmupMaxRetries; attempt++ {
		s.begin()
		ret, err := s.store.Put(ctx, key, value)
		s.observe("put", ret, nil, err)
		if err != nil {
			return err
		}
		if ret == 0 {
			ok = true
			break
		}
		s.log(LevelWarning, fmt.Sprintf("[TP%d] Warmup put failed (attempt %d/%d), ret=%d, retrying in 1.0s...", s.localRank, attempt+1, WarmupMaxRetries, ret))
		if err := s.l.World.Clock().Sleep(ctx, WarmupRetryDelay); err != nil {
			return fmt.Errorf("sglang: warmup sleep: %w", err)
		}
	}
	if !ok {
		return pyErr("RuntimeError", fmt.Sprintf("[TP%d] Warmup put failed after %d attempts, Transfer Engine might not be ready", s.localRank, WarmupMaxRetries))
	}
	s.begin()
	n, err := s.store.IsExist(ctx, key)
	s.observe("is_exist", n, nil, err)
	if err != nil {
		return err
	}
	if n != 1 {
		return pyErr("AssertionError", "")
	}
	s.begin()
	got, err := s.store.Get(ctx, key)
	s.observe("get", len(got), nil, err)
	if err != nil {
		return err
	}
	if string(got) != string(value) {
		return pyErr("AssertionError", "")
	}
	return nil
}

// registerBuffer is MooncakeBaseStore.register_buffer.
func (s *MooncakeStore) registerBuffer(ctx context.Context, b engine.Buffer) error {
	if s.store == nil {
		return pyErr("RuntimeError", "Mooncake store is not initialized.")
	}
	if b.Size == 0 {
		return nil
	}
	ret, err := s.callRegisterBuffer(ctx, b)
	if err != nil {
		return err
	}
	if ret != 0 {
		s.log(LevelError, fmt.Sprintf("Failed to register buffer, error code: %d", ret))
		return pyErr("RuntimeError", fmt.Sprintf("Failed to register buffer to Mooncake Store, error code: %d", ret))
	}
	return nil
}

// registerMemPoolHost is MooncakeStore.register_mem_pool_host: every
// buffer of _iter_host_pool_buffers; only TypeError is rewrapped.
func (s *MooncakeStore) registerMemPoolHost(ctx context.Context) error {
	for _, b := range s.host.registered() {
		err := s.registerBuffer(ctx, b)
		if pe, ok := engine.AsPyError(err); ok && pe.Class == "TypeError" {
			s.log(LevelError, "Failed to register buffer to Mooncake Store: "+pe.Message)
			return pyErr("TypeError", "Mooncake Store Register Buffer Error.")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// begin marks the start of a Mooncake call (observe times it).
func (s *MooncakeStore) begin() { s.began, s.racy0, s.host0 = s.now(), s.racy(), s.hostWork() }

func (s *MooncakeStore) racy() time.Duration {
	if s.l.World == nil {
		return 0
	}
	return engine.Spent(s.l.World.Clock(), engine.Racy)
}

func (s *MooncakeStore) hostWork() time.Duration {
	if s.l.World == nil {
		return 0
	}
	return engine.Spent(s.l.World.Clock(), engine.HostWork)
}

func (s *MooncakeStore) now() time.Duration {
	if s.l.World == nil {
		return 0
	}
	return s.l.World.Clock().Now()
}

// observe records one Mooncake call and its result.
func (s *MooncakeStore) observe(method string, code int, codes []int, err error) {
	c := MooncakeCall{Method: method, Code: code, Codes: codes, Took: s.now() - s.began, Racy: s.racy() - s.racy0, Host: s.hostWork() - s.host0}
	if d, ok := engine.AsProcessDied(err); ok && d.Call == "" {
		d.Call = method // the call SGLang was in when its process died
	}
	if err != nil {
		pe, ok := engine.AsPyError(err)
		if !ok {
			return // the harness broke; Python saw nothing
		}
		c.Raised = pe
		s.record("return", method+" raised "+pe.Class)
	} else if codes != nil {
		s.record("return", fmt.Sprintf("%s -> %v", method, codes))
	} else {
		s.record("return", fmt.Sprintf("%s -> %d", method, code))
	}
	s.calls = append(s.calls, c)
	if s.l.OnReturn != nil {
		s.l.OnReturn(method)
	}
}

func (s *MooncakeStore) log(level, text string) {
	if s.l.Trace != nil {
		s.l.Trace.Log(logSource, level, text)
	}
}

func (s *MooncakeStore) record(kind, text string) {
	if s.l.Trace != nil {
		s.l.Trace.Record(logSource, kind, "", text)
	}
}

// Calls is every Mooncake call SGLang made, in order.
func (s *MooncakeStore) Calls() []MooncakeCall { return append([]MooncakeCall(nil), s.calls...) }

// Codes groups the returned codes by method, methods in order of first
// call (calls that raised contribute no code). This is the report's
// "codes": {"setup": [-1], "register_buffer": [0, -600]}.
func (s *MooncakeStore) Codes() []MethodCodes {
	var out []MethodCodes
	idx := map[string]int{}
	for _, c := range s.calls {
		if c.Raised != nil {
			continue
		}
		i, ok := idx[c.Method]
		if !ok {
			i = len(out)
			idx[c.Method] = i
			out = append(out, MethodCodes{Method: c.Method})
		}
		if c.Codes != nil {
			out[i].Codes = append(out[i].Codes, c.Codes...)
		} else {
			out[i].Codes = append(out[i].Codes, c.Code)
		}
	}
	return out
}

// Config is the loaded MooncakeStoreConfig (nil before config loading).
func (s *MooncakeStore) Config() *MooncakeStoreConfig { return s.config }

// PerRankGlobalSegmentSize is global_segment_size // (tp_size*pp_size).
func (s *MooncakeStore) PerRankGlobalSegmentSize() int64 { return s.perRankSegmentSize }

// SetupKwargs are the kwargs of the setup() call that returned.
func (s *MooncakeStore) SetupKwargs() []engine.Kwarg {
	return append([]engine.Kwarg(nil), s.setupKwargsFinal...)
}

// Process is the SGLang process the store lives in.
func (s *MooncakeStore) Process() engine.Process { return s.proc }

func (s *MooncakeStore) shutdown(ctx context.Context) error {
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.proc.Close(ctx); err != nil {
		return fmt.Errorf("sglang: close process on %q: %w", s.l.Node, err)
	}
	return nil
}

// gateTenant: a release before versionTenant never reads tenant_id, so
// setup() gets no tenant kwarg and nothing checks it.
func (s *MooncakeStore) gateTenant() {
	if !s.l.atLeast(versionTenant) {
		s.config.TenantID = DefaultTenantID
	}
}

// callRegisterBuffer is one register_buffer call, observed.
func (s *MooncakeStore) callRegisterBuffer(ctx context.Context, b engine.Buffer) (int, error) {
	s.begin()
	ret, err := s.store.RegisterBuffer(ctx, b.Ptr, b.Size)
	s.observe("register_buffer", ret, nil, err)
	return ret, err
}
