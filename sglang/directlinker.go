package sglang

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// Texts of mooncake_direct_linker.py (sgl-project/sglang
// python/sglang/srt/mem_cache/storage/mooncake_store/, read in the 0.5.19,
// 0.5.20, 0.5.21, 0.5.22 and 0.5.23 wheels: register_buffers is the same in
// all of them).
const (
	// DirectLinkerRegisterError is register_buffers' RuntimeError on a
	// register_buffer result other than 0 or None.
	DirectLinkerRegisterError = "Failed to register GPU KV buffer with Mooncake, error code: %d."
	// directLinkerTopologyLog is MooncakeDirectLinker.__init__'s line before
	// register_buffers.
	directLinkerTopologyLog = "Mooncake direct linker storage topology: rank_replicated=%s, tp_rank=%d/%d, offload_owner=%s, suffix=%s"
)

// startDirectLinker is MooncakeDirectLinker.__init__ (the unified cache's
// external linker for the backend "mooncake", linker_factory.py):
//
//	self.storage = MooncakeStore(storage_config, mem_pool=None)
//	logger.info("Mooncake direct linker storage topology: ...")
//	self.register_buffers()
//
// register_buffers calls self.storage.store.register_buffer(ptr, nbytes) on
// each distinct untyped storage of the device pools' buffers — GPU memory —
// past MooncakeBaseStore.register_buffer, so no "Failed to register buffer"
// line precedes its RuntimeError. The device pool is the model runner's,
// allocated before the linker: here Launch.DeviceKVPool bytes as a k and a v
// buffer, one allocation each (the per-layer tensors folded into one).
func (s *MooncakeStore) startDirectLinker(ctx context.Context) error {
	if !s.l.atLeast(versionDirectLinker) {
		return engine.Unsupportedf("sglang %s has no MooncakeDirectLinker (from %s)", s.l.SGLangVersion, versionDirectLinker)
	}
	if s.l.DeviceKVPool <= 0 {
		return fmt.Errorf("sglang: the direct linker needs a GPU KV pool (Launch.DeviceKVPool)")
	}
	half := s.l.DeviceKVPool / 2
	var bufs []engine.Buffer
	for range 2 {
		b, err := s.proc.Alloc(ctx, engine.AllocCUDA, half)
		if err != nil {
			return fmt.Errorf("sglang: allocate the %d-byte GPU KV pool: %w", s.l.DeviceKVPool, err)
		}
		bufs = append(bufs, b)
	}
	if err := s.init(ctx); err != nil {
		return err
	}
	sc := s.l.StorageConfig
	replicated := sc.IsMLAModel
	suffix := fmt.Sprintf("cp0_pp%d", sc.PPRank)
	if !replicated {
		suffix = fmt.Sprintf("tp%d_", sc.TPRank) + suffix
	}
	s.log(LevelInfo, fmt.Sprintf(directLinkerTopologyLog, pyBool(replicated), sc.TPRank, max(sc.TPSize, 1), pyBool(!replicated || sc.TPRank == 0), suffix))
	for _, b := range bufs {
		ret, err := s.callRegisterBuffer(ctx, b)
		if err != nil {
			return err
		}
		if ret != 0 {
			return pyErr("RuntimeError", fmt.Sprintf(DirectLinkerRegisterError, ret))
		}
	}
	return nil
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
