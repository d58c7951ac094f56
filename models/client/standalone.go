package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Standalone is mooncake_client (real_client_main.cpp): a RealClient that
// serves dummy clients over RPC and maps their shm. It implements
// RealClientService for the transport that reaches it.
type Standalone struct {
	*RealClient
	addr    string
	dummies map[string]*dummyState
	// live is the dummy-client monitor's view (standalone_offload.go).
	live dummyLiveness
	// vmemLeft is the address space RLIMIT_AS still allows for dummies'
	// shm (StandaloneSpec.VmemHeadroom; -1 = unlimited).
	vmemLeft int64
}

type dummyState struct {
	maps     []shmMap
	hasLocal bool
	// batchUnmapped: the current batch's first key found a buffer outside
	// every mapped shm, so every key of it fails (BufferBatch).
	batchUnmapped bool
}

type shmMap struct {
	dummyBase, realBase uint64
	size                int64
}

// StandaloneSpec is mooncake_client's command line.
type StandaloneSpec struct {
	Host, Port           string // --host (data plane hostname), --port (RPC for dummies)
	MetadataServer       string
	MasterServerAddress  string
	Protocol, DeviceName string
	GlobalSegmentSize    int64
	LocalBufferSize      int64
	// Flags are the other flags (enable_offload: FileStorage from the
	// MOONCAKE_OFFLOAD_* environment).
	Flags map[string]string
	// VmemHeadroom is what RLIMIT_AS leaves it once it serves (0 =
	// unlimited): the dummies' shm it maps count against it.
	VmemHeadroom int64
}

// StartStandalone runs mooncake_client's startup: setup_internal, IPC
// server, RPC service. A failed setup is LOG(FATAL) (process abort).
func StartStandalone(ctx context.Context, d Deps, s StandaloneSpec) (*Standalone, error) {
	rc := NewRealClient(d)
	a := engine.SetupArgs{
		LocalHostname: s.Host, MetadataServer: s.MetadataServer, GlobalSegmentSize: s.GlobalSegmentSize,
		LocalBufferSize: s.LocalBufferSize, Protocol: s.Protocol, RDMADevices: s.DeviceName, MasterServerAddr: s.MasterServerAddress,
	}
	if s.offload() {
		// FileStorageConfig::FromEnvironment: the path from the
		// environment (the Python setup's kwargs in the model's terms).
		a.Kwargs = []engine.Kwarg{{Name: "enable_ssd_offload", Value: true}, {Name: "ssd_offload_path", Value: d.Env["MOONCAKE_OFFLOAD_FILE_STORAGE_PATH"]}}
		if rc.p.StandaloneOffloadBlocksIO {
			rc.offloadAtRPC = s.Host + ":" + s.Port
		}
	}
	code, err := rc.setupInternal(ctx, a)
	if err != nil {
		return nil, err
	}
	if code != mooncake.OK {
		msg := fmt.Sprintf("Failed to setup client: %s", code.Name())
		rc.logf(mlog.Fatal, "%s", msg)
		return nil, abort(msg)
	}
	rc.logf(mlog.Info, "Starting IPC server at @mooncake_client_%s.sock", s.Port)
	rc.logf(mlog.Info, "start dummy_client_monitor_thread")
	rc.logf(mlog.Info, "Starting real client service on %s:%s", s.Host, s.Port)
	sa := &Standalone{RealClient: rc, addr: s.Host + ":" + s.Port, dummies: map[string]*dummyState{}, vmemLeft: -1}
	if s.VmemHeadroom > 0 {
		sa.vmemLeft = s.VmemHeadroom
	}
	sa.startMonitor()
	return sa, nil
}

// ServiceReady implements RealClientService.
func (s *Standalone) ServiceReady(context.Context) error { return nil }

// RegisterShm implements RealClientService (map_shm_internal).
func (s *Standalone) RegisterShm(ctx context.Context, dummy string, shm hostmem.Shm, isLocal bool) (int, error) {
	st := s.dummies[dummy]
	if st == nil {
		st = &dummyState{}
		s.dummies[dummy] = st
	}
	for _, m := range st.maps {
		if m.dummyBase == shm.Base {
			return 0, nil // is_shm_mapped: the dummy's reconnection skips what is mapped
		}
	}
	if isLocal && st.hasLocal {
		s.logf(mlog.Error, "client_id=%s, error=local_buffer_already_mapped", dummy)
		return -1, nil
	}
	if s.vmemLeft >= 0 && shm.Size > s.vmemLeft {
		// mmap of the passed fd past RLIMIT_AS (map_shm_internal: the
		// fd closed, INTERNAL_ERROR). The fd is the one recvmsg installed,
		// the lowest free descriptor of mooncake_client.
		s.logf(mlog.Error, "Failed to map shared memory from fd: %d, name: %s, error: Cannot allocate memory", ipcShmFd, shmName(dummy, shm.Base))
		return s.ipcStatus(mooncake.INTERNAL_ERROR), nil
	}
	real := s.d.Mem.MapShm(shm)
	if s.vmemLeft >= 0 {
		s.vmemLeft -= shm.Size
	}
	if rc := s.te.RegisterLocalMemory(ctx, real, shm.Size, true); rc != 0 {
		// map_shm_internal (real_client.cpp v0.3.8 … v0.3.12.post1): the
		// mapping is undone; Client::RegisterLocalMemory turns any
		// transfer-engine failure into INVALID_PARAMS.
		s.logf(mlog.Error, "Failed to register memory")
		return s.ipcStatus(mooncake.INVALID_PARAMS), nil
	}
	st.maps = append(st.maps, shmMap{dummyBase: shm.Base, realBase: real, size: shm.Size})
	st.hasLocal = st.hasLocal || isLocal
	return 0, nil
}

// ipcShmFd is the descriptor number mooncake_client's recvmsg gives the
// passed memfd in the model (real: the lowest free one; its own sockets,
// files and threads' eventfds come first; real 0.3.9 … 0.3.14: 36–41).
const ipcShmFd = 37

// shmName is map_shm_internal's name for a dummy's segment:
// MOONCAKE_SHM_NAME "_" client_id.first "_" client_id.second "_0x" base.
func shmName(dummy string, base uint64) string {
	return fmt.Sprintf("mooncake_shm_%s_%#x", strings.ReplaceAll(dummy, "-", "_"), base)
}

// ipcStatus is the status the IPC server sends back for a failed
// registration (mooncake.Profile.IPCStatusIsErrorCode).
func (s *Standalone) ipcStatus(code mooncake.ErrorCode) int {
	if s.p.IPCStatusIsErrorCode {
		return int(code)
	}
	return -1
}

// ErrClientUnhealthy is a ping answered with a status other than OK:
// RealClient::ping reports is_ping_healthy() of its own master ping from
// 0.3.10 (real_client.cpp), so a dummy sees mooncake_client lose its master.
var ErrClientUnhealthy = errors.New("ping status UNDEFINED: mooncake_client's master ping is unhealthy")

// Ping implements RealClientService.
func (s *Standalone) Ping(_ context.Context, dummy string) error {
	s.pinged(dummy)
	if s.p.HealthCheck && !s.pingOK {
		return ErrClientUnhealthy
	}
	return nil
}

func (s *Standalone) translate(st *dummyState, ptr uint64, size int64) (uint64, bool) {
	for _, m := range st.maps {
		if ptr >= m.dummyBase && ptr+uint64(size) <= m.dummyBase+uint64(m.size) {
			return m.realBase + (ptr - m.dummyBase), true
		}
	}
	return 0, false
}

// dummyContext is shm_contexts_.find(client_id): nil after "error=
// shm_not_mapped" when mooncake_client maps nothing for the dummy (never
// registered, or expired by the monitor).
func (s *Standalone) dummyContext(dummy string) *dummyState {
	st := s.dummies[dummy]
	if st == nil {
		s.logf(mlog.Error, "client_id=%s, error=shm_not_mapped", dummy)
	}
	return st
}

// mapBatch is the helper's map_dummy_addrs_to_real_ptrs (real_client.cpp
// v0.3.10.post1+; inline in each helper before): every buffer of the
// batch must lie inside one shm mapped for the dummy, else the first that
// does not is logged and every key fails INVALID_PARAMS. The batch's
// first key checks it; the later keys share its answer (one RPC in
// Mooncake).
func (s *Standalone) mapBatch(dummy string, st *dummyState, b *BufferBatch) bool {
	if !b.First {
		return !st.batchUnmapped
	}
	st.batchUnmapped = false
	for i, p := range b.Ptrs {
		if i >= len(b.Sizes) {
			break
		}
		if _, ok := s.translate(st, p, b.Sizes[i]); !ok {
			s.logf(mlog.Error, "%s", s.notMappedLine(b.Helper, dummy, p, b.Sizes[i]))
			st.batchUnmapped = true
			return false
		}
	}
	return true
}

// notMappedLine is the helper's text for a dummy address outside every
// mapped shm (mooncake.Profile.DummyAddrMapLine); addresses are uint64s,
// which glog prints in decimal, and the client id is the dummy's UUID.
func (s *Standalone) notMappedLine(helper, dummy string, ptr uint64, size int64) string {
	switch {
	case s.p.DummyAddrMapLine:
		return fmt.Sprintf("Dummy buffer at %d (size %d) not found in any mapped shared memory, client_id=%s", ptr, size, dummy)
	case helper == BatchPutFromHelper:
		return fmt.Sprintf("Dummy buffer at %d not found in any mapped shared memory", ptr)
	default:
		return fmt.Sprintf("Dummy buffer at %d (size %d) not found in any mapped shared memory for client %s", ptr, size, dummy)
	}
}

// resolve is a helper's lookup of its buffer: the dummy's context, the
// batch's mapping, then this key's real address; ok false after the lines
// Mooncake logs (the caller returns INVALID_PARAMS).
func (s *Standalone) resolve(dummy string, ptr uint64, size int64, b *BufferBatch) (real uint64, ok bool, err error) {
	st := s.dummyContext(dummy)
	if st == nil {
		return 0, false, nil
	}
	if b != nil && !s.mapBatch(dummy, st, b) {
		return 0, false, nil
	}
	real, ok = s.translate(st, ptr, size)
	if !ok && b != nil {
		return 0, false, fmt.Errorf("mooncake_client: buffer %#x (%d bytes) is not one of its batch's", ptr, size)
	}
	// b == nil: the dummy's local buffer, which setup_dummy mapped.
	return real, ok, nil
}

// PutFrom implements RealClientService.
func (s *Standalone) PutFrom(ctx context.Context, dummy, key string, ptr uint64, size int64, b *BufferBatch) (int, error) {
	s.flushTail()
	real, ok, err := s.resolve(dummy, ptr, size, b)
	if err != nil || !ok {
		return int(mooncake.INVALID_PARAMS), err
	}
	data, err := s.d.Mem.ReadContent(real, size)
	if err != nil {
		return 0, fmt.Errorf("mooncake_client put_from %s: %w", key, err)
	}
	rc := s.putBytes(ctx, key, data)
	return int(rc), s.died
}

// GetInto implements RealClientService: bytes read or a negative code.
func (s *Standalone) GetInto(ctx context.Context, dummy, key string, ptr uint64, size int64, b *BufferBatch) (int, error) {
	s.flushTail()
	real, ok, err := s.resolve(dummy, ptr, size, b)
	if err != nil || !ok {
		return int(mooncake.INVALID_PARAMS), err
	}
	start, disk, temp := s.d.Clock.Now(), s.diskReads, s.rootFS.tempReads
	data, code := s.getBytes(ctx, key)
	if err := s.handlerThrew(); err != nil {
		return 0, err
	}
	if bt, ok := ctx.Value(dummyBatchGetKey{}).(*batchTiming); ok {
		s.timingLine(bt, start, s.diskReads > disk, s.rootFS.tempReads > temp, code)
	}
	if code != mooncake.OK {
		return int(code), nil
	}
	if data.Size > size {
		return int(mooncake.INVALID_PARAMS), nil
	}
	if err := s.d.Mem.WriteContent(real, data); err != nil {
		return 0, fmt.Errorf("mooncake_client get_into %s: %w", key, err)
	}
	return int(data.Size), nil
}

// IsExist implements RealClientService.
func (s *Standalone) IsExist(ctx context.Context, key string) (int, error) {
	return s.RealClient.IsExist(ctx, key)
}

var _ RealClientService = (*Standalone)(nil)
