package sglang

import (
	"context"
	"fmt"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// Texts of mooncake_embedding_store.py (sgl-project/sglang
// python/sglang/srt/mem_cache/storage/mooncake_store/, read at 01144484).
const (
	// EmbeddingInitLog is MooncakeEmbeddingStore.__init__'s success line.
	EmbeddingInitLog = "Mooncake Embedding Store initialized successfully."
	// embeddingSetupError is its RuntimeError on a nonzero setup() code.
	embeddingSetupError = "Failed to setup Mooncake Embedding Store: %d"
	// EmbeddingFactoryLog is EmbeddingStoreFactory.create_backend's line
	// (from versionEmbeddingFactory; before, EmbeddingCacheController built
	// MooncakeEmbeddingStore() itself and logged nothing).
	EmbeddingFactoryLog = "Creating embedding store backend 'mooncake' (sglang.srt.mem_cache.storage.mooncake_store.mooncake_embedding_store.MooncakeEmbeddingStore)"
)

// startEmbedding is EmbeddingCacheController.__init__ up to its pool
// registration:
//
//	self.mooncake_store = MooncakeEmbeddingStore()
//	self.cpu_pool = torch.empty(total_pool_size_bytes, dtype=torch.uint8, pin_memory=True)
//	self.mooncake_store.register_buffer(self.cpu_pool)
//
// MooncakeEmbeddingStore.__init__ has no try/except (no "An error occurred
// while loading the configuration" line), gets no storage_config (so
// _load_config never looks at extra_config), and calls setup() with seven
// positionals: the global segment is not split per rank, device_name has no
// JSON mapping, there is no transfer_engine, no kwargs but tenant_id, no warmup. Mooncake
// <= 0.3.4.post2 therefore reaches its +1 failure code here, where the KV
// store's eight-argument call raises TypeError first.
func (s *MooncakeStore) startEmbedding(ctx context.Context) error {
	if s.l.atLeast(versionEmbeddingFactory) {
		s.log(LevelInfo, EmbeddingFactoryLog)
	}
	if err := s.newStore(ctx); err != nil {
		return err
	}
	cfg, source, err := loadConfig(s.env, s.l.Files, nil)
	if err != nil {
		return err
	}
	s.config = cfg
	s.gateTenant()
	s.log(LevelInfo, fmt.Sprintf("Mooncake Configuration loaded from %s successfully.", source))
	s.perRankSegmentSize = cfg.GlobalSegmentSize
	s.deviceName = cfg.DeviceName
	// setup_kwargs = {"tenant_id": ...} for a non-default tenant; a TypeError
	// that names tenant_id becomes the tenant RuntimeError, any other is
	// re-raised (no fallback loop here).
	var kwargs []engine.Kwarg
	if s.config.TenantID != DefaultTenantID {
		kwargs = []engine.Kwarg{{Name: "tenant_id", Value: s.config.TenantID}}
	}
	ret, err := s.setupCall(ctx, []any{cfg.LocalHostname, cfg.MetadataServer, cfg.GlobalSegmentSize, DefaultLocalBufferSize, cfg.Protocol, cfg.DeviceName, cfg.MasterServerAddress}, false, kwargs)
	if pe, ok := engine.AsPyError(err); ok && pe.Class == "TypeError" && kwargs != nil && strings.Contains(pe.Message, "tenant_id") {
		return pyErr("RuntimeError", TenantUnsupportedError)
	}
	if err != nil {
		return err
	}
	if ret != 0 {
		return pyErr("RuntimeError", fmt.Sprintf(embeddingSetupError, ret))
	}
	s.log(LevelInfo, EmbeddingInitLog)

	// torch.empty(..., pin_memory=True): plain host memory, whatever
	// allocator the KV host pool would ask for.
	buf, err := s.proc.Alloc(ctx, engine.AllocDefault, s.l.HostPool.Size)
	if err != nil {
		if _, ok := engine.AsPyError(err); ok {
			return err
		}
		return fmt.Errorf("sglang: allocate %d-byte embedding cpu_pool: %w", s.l.HostPool.Size, err)
	}
	s.host = &hostBuffers{spec: s.l.HostPool, kv: buf, mla: true}
	return s.registerBuffer(ctx, buf)
}
