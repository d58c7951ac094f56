package te_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// The NVLink builds' transport choice at initialize (transfer_engine_impl.cpp
// v0.3.9, v0.3.10, v0.3.12.post1): a transport the build lacks fails init.
func TestNVLinkBuildSelect(t *testing.T) {
	const (
		unsupported = "Unsupported transport nvlink, please rebuild Mooncake"
		noIntra     = "Unsupported transport nvlink_intra, please rebuild Mooncake"
		cross       = "Using cross-node NVLink transport (MC_FORCE_MNNVL or no HCA detected)"
		intra       = "Using Intra-Node NVLink transport (MC_INTRANODE_NVLINK set)"
		rdma        = "Using RDMA transport (RoCE/iWARP)"
	)
	intraEnv := map[string]string{"MC_INTRANODE_NVLINK": "1"}
	for _, c := range []struct {
		name, version string
		build         []string
		hca           bool
		env           map[string]string
		rc            int
		log, noLog    string
		transport     string
	}{
		{"intra build, no HCA", "0.3.10", []string{engine.BuildIntraNVLink}, false, nil, -1, unsupported, intra, ""},
		{"intra build, MC_INTRANODE_NVLINK", "0.3.10", []string{engine.BuildIntraNVLink}, false, intraEnv, 0, intra, unsupported, "nvlink_intra"},
		// PR 1612: 0.3.9 takes nvlink on a host without an HCA first.
		{"0.3.9 intra build, MC_INTRANODE_NVLINK, no HCA", "0.3.9", []string{engine.BuildIntraNVLink}, false, intraEnv, -1, unsupported, intra, ""},
		{"0.3.9 intra build, MC_INTRANODE_NVLINK, HCA", "0.3.9", []string{engine.BuildIntraNVLink}, true, intraEnv, 0, intra, unsupported, "nvlink_intra"},
		{"mnnvl build, no HCA", "0.3.12.post1", []string{engine.BuildMNNVL}, false, nil, 0, cross, unsupported, "nvlink"},
		{"mnnvl build, MC_INTRANODE_NVLINK", "0.3.12.post1", []string{engine.BuildMNNVL}, false, intraEnv, -1, noIntra, cross, ""},
		{"mnnvl build, HCA", "0.3.12.post1", []string{engine.BuildMNNVL}, true, nil, 0, rdma, cross, "rdma"},
		{"mnnvl build, MC_FORCE_MNNVL", "0.3.12.post1", []string{engine.BuildMNNVL}, true, map[string]string{"MC_FORCE_MNNVL": "1"}, 0, cross, rdma, "nvlink"},
		// Up to 0.3.8.post1 the branch is USE_MNNVL's alone, without a "Using" line.
		{"0.3.8 mnnvl build, no HCA", "0.3.8.post1", []string{engine.BuildMNNVL}, false, nil, 0, "Topology discovery complete. Found 0 HCAs.", cross, "nvlink"},
		// Before 0.3.9 there is no intra-node transport: the wheel's branch (TCP).
		{"0.3.8 intra build", "0.3.8.post1", []string{engine.BuildIntraNVLink}, false, intraEnv, 0, "", unsupported, "tcp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs []string
			host := te.Host{Name: "h", GPU: &engine.GPUSpec{Count: 8, DmaBuf: true}, Build: c.build}
			if c.hca {
				host.RDMA = []engine.RDMADevice{{Name: "mlx5_0"}}
			}
			py := te.NewPy(te.Config{Profile: mooncake.MustProfile(c.version), Env: c.env, Host: host,
				Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}, nil, nil)
			if rc := py.Initialize(context.Background(), "127.0.0.1", te.P2PHandshake, "rdma", ""); rc != c.rc {
				t.Fatalf("initialize = %d, want %d (logs %q)", rc, c.rc, logs)
			}
			if c.log != "" && !slices.Contains(logs, c.log) {
				t.Errorf("no %q in %q", c.log, logs)
			}
			if slices.Contains(logs, c.noLog) {
				t.Errorf("%q in %q", c.noLog, logs)
			}
			var want []string
			if c.transport != "" {
				want = []string{c.transport}
			}
			if got := py.Engine().Transports(); !slices.Equal(got, want) {
				t.Errorf("transports %q, want %q", got, want)
			}
		})
	}
}

// The cross-node transport's memory: fabric allocation, registration by
// handle kind, and allocate_managed_buffer without an allocator.
func TestNVLinkMemory(t *testing.T) {
	ctx := context.Background()
	const (
		gpuAddr  = uint64(1 << 40) // GPU 0's window (hostmem.IsDevice)
		hostAddr = uint64(0x7f0000000000)
	)
	newPy := func(fabric bool, build []string, env map[string]string, logs *[]string) *te.Py {
		host := te.Host{Name: "h", GPU: &engine.GPUSpec{Count: 4, Fabric: fabric}, Build: build}
		py := te.NewPy(te.Config{Profile: mooncake.MustProfile("0.3.12.post1"), Env: env, Host: host,
			Log: mlog.Func(func(_, text string) { *logs = append(*logs, text) })}, nil, nil)
		if rc := py.Initialize(ctx, "127.0.0.1", te.P2PHandshake, "nvlink", ""); rc != 0 {
			t.Fatalf("initialize = %d (logs %q)", rc, *logs)
		}
		return py
	}
	next := gpuAddr
	alloc := func(kind string, size int64) (uint64, error) {
		if kind != engine.AllocCUDA {
			return hostAddr, nil
		}
		p := next
		next += uint64(size)
		return p, nil
	}
	mnnvl := []string{engine.BuildMNNVL}

	t.Run("no fabric: cuMemCreate 800, NULL", func(t *testing.T) {
		var logs []string
		py := newPy(false, mnnvl, nil, &logs)
		p, err := py.AllocateManagedBuffer(ctx, 1<<30, alloc)
		if p != 0 || err != nil || !slices.Contains(logs, "NvlinkTransport: cuMemCreate failed: 800") {
			t.Errorf("allocate = %#x, %v (logs %q)", p, err, logs)
		}
	})
	t.Run("fabric: cuMemCreate memory is shared, cudaMalloc memory is not", func(t *testing.T) {
		var logs []string
		py := newPy(true, mnnvl, nil, &logs)
		p, err := py.AllocateManagedBuffer(ctx, 1<<30, alloc)
		if p == 0 || err != nil {
			t.Fatalf("allocate = %#x, %v (logs %q)", p, err, logs)
		}
		other := next
		if rc := py.RegisterMemory(ctx, other, 1<<20); rc != 0 {
			t.Errorf("register cudaMalloc memory = %d", rc)
		}
		warn := "Memory region 0x10040000000 is not allocated by cuMemCreate, but it can be used as local buffer"
		if !slices.Contains(logs, warn) {
			t.Errorf("no %q in %q", warn, logs)
		}
		want := []te.NVLinkBuffer{{Addr: p, Length: 1 << 30, Fabric: true}}
		if got := py.Engine().NVLinkBuffers(); !slices.Equal(got, want) {
			t.Errorf("segment buffers %v, want %v", got, want)
		}
	})
	t.Run("MC_USE_NVLINK_IPC: cudaMalloc and IPC handles, host memory refused", func(t *testing.T) {
		var logs []string
		py := newPy(false, mnnvl, map[string]string{"MC_USE_NVLINK_IPC": "1"}, &logs)
		p, err := py.AllocateManagedBuffer(ctx, 1<<30, alloc)
		if p == 0 || err != nil {
			t.Fatalf("allocate = %#x, %v (logs %q)", p, err, logs)
		}
		if rc := py.RegisterMemory(ctx, hostAddr, 1<<20); rc != -1 || !slices.Contains(logs, "Unsupported memory type, 0x7f0000000000 0") {
			t.Errorf("register host memory = %d (logs %q)", rc, logs)
		}
		want := []te.NVLinkBuffer{{Addr: p, Length: 1 << 30}}
		if got := py.Engine().NVLinkBuffers(); !slices.Equal(got, want) {
			t.Errorf("segment buffers %v, want %v", got, want)
		}
	})
	t.Run("protocol nvlink on a wheel: no allocator", func(t *testing.T) {
		var logs []string
		py := newPy(false, nil, nil, &logs)
		if !slices.Contains(logs, "Protocol 'nvlink' requires -DUSE_MNNVL=ON") {
			t.Errorf("no allocator line in %q", logs)
		}
		_, err := py.AllocateManagedBuffer(ctx, 1<<30, alloc)
		if _, ok := err.(*engine.Unsupported); !ok {
			t.Errorf("allocate: %v, want engine.Unsupported", err)
		}
	})
}
