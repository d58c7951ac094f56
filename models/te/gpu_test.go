package te_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// GPU memory on RDMA: plain ibv_reg_mr needs nvidia_peermem (EFAULT
// without it); from 0.3.11 the CUDA build takes dma-buf unless
// WITH_NVIDIA_PEERMEM (unset: off at 0.3.11, on from 0.3.11.post1), and
// then refuses an RNIC whose GPUs lack dma-buf.
func TestGPURegistration(t *testing.T) {
	gpuAddr := uint64(1 << 40) // GPU 0 of the first host (hostmem.IsDevice)
	if !hostmem.IsDevice(gpuAddr) || hostmem.IsDevice(0x7f0000000000) {
		t.Fatal("hostmem.IsDevice: the device window moved")
	}
	const (
		efault = "Failed to register memory 0x10000000000: Bad address [14]"
		dmabuf = "DMA BUF supported required for GPU RDMA without nvidia-peermem on GPU device 0 mapped to RNIC mlx5_0"
		open   = "Failed to open device mlx5_0 on port \x01 with GID -1" // the port is a uint8_t (portText)
	)
	for _, c := range []struct {
		name, version string
		gpu           engine.GPUSpec
		env           map[string]string
		initErr       bool   // no RNIC opens: InitStore fails
		rc            int    // RegisterLocalMemory of GPU memory
		log, noLog    string // a line printed, a line not printed
	}{
		{"0.3.10 no peermem", "0.3.10.post1", engine.GPUSpec{Count: 1, DmaBuf: true}, nil, false, mooncake.ERR_CONTEXT, efault, dmabuf},
		{"0.3.10 peermem", "0.3.10.post1", engine.GPUSpec{Count: 1, Peermem: true}, nil, false, 0, "", efault},
		{"0.3.10 no dma-buf: no check", "0.3.10.post1", engine.GPUSpec{Count: 1, Peermem: true}, nil, false, 0, "", dmabuf},
		// From 0.3.11.post1 WITH_NVIDIA_PEERMEM unset is true (environ.cpp
		// v0.3.11.post1:84, Mooncake#2192): ibv_reg_mr, no DMA-BUF check.
		{"0.3.13 unset: ibv_reg_mr without peermem", "0.3.13.post1", engine.GPUSpec{Count: 1, DmaBuf: true}, nil, false, mooncake.ERR_CONTEXT, efault, dmabuf},
		{"0.3.13 WITH_NVIDIA_PEERMEM=0: dma-buf without peermem", "0.3.13.post1", engine.GPUSpec{Count: 1, DmaBuf: true}, map[string]string{"WITH_NVIDIA_PEERMEM": "0"}, false, 0, "", efault},
		{"0.3.13 WITH_NVIDIA_PEERMEM, no module", "0.3.13.post1", engine.GPUSpec{Count: 1, DmaBuf: true}, map[string]string{"WITH_NVIDIA_PEERMEM": "1"}, false, mooncake.ERR_CONTEXT, efault, ""},
		{"0.3.13 WITH_NVIDIA_PEERMEM=enabled keeps the default, on", "0.3.13.post1", engine.GPUSpec{Count: 1, DmaBuf: true}, map[string]string{"WITH_NVIDIA_PEERMEM": "enabled"}, false, mooncake.ERR_CONTEXT, efault, dmabuf},
		{"0.3.11 unset, no dma-buf: RNIC refused", "0.3.11", engine.GPUSpec{Count: 1, Peermem: true}, nil, true, 0, dmabuf, ""},
		{"0.3.11 no dma-buf, WITH_NVIDIA_PEERMEM=Yes", "0.3.11", engine.GPUSpec{Count: 1, Peermem: true}, map[string]string{"WITH_NVIDIA_PEERMEM": "Yes"}, false, 0, "", dmabuf},
		{"0.3.11.post1 unset, no dma-buf: no check", "0.3.11.post1", engine.GPUSpec{Count: 1, Peermem: true}, nil, false, 0, "", dmabuf},
		{"0.3.11.post1 no dma-buf, WITH_NVIDIA_PEERMEM=0: RNIC refused", "0.3.11.post1", engine.GPUSpec{Count: 1, Peermem: true}, map[string]string{"WITH_NVIDIA_PEERMEM": "0"}, true, 0, dmabuf, ""},
		{"0.3.12.post1 no dma-buf, WITH_NVIDIA_PEERMEM=enabled is off: RNIC refused", "0.3.12.post1", engine.GPUSpec{Count: 1, Peermem: true}, map[string]string{"WITH_NVIDIA_PEERMEM": "enabled"}, true, 0, dmabuf, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			var logs []string
			gpu := c.gpu
			e := te.New(te.Config{Profile: mooncake.MustProfile(c.version), Env: c.env,
				Host: te.Host{Name: "h", RDMA: []engine.RDMADevice{{Name: "mlx5_0"}}, GPU: &gpu},
				Log:  mlog.Func(func(_, text string) { logs = append(logs, text) })})
			err := e.InitStore(ctx, "h:1", te.P2PHandshake, "rdma", strp("mlx5_0"))
			if (err != nil) != c.initErr {
				t.Fatalf("InitStore: %v (logs %q)", err, logs)
			}
			if c.initErr {
				if !slices.Contains(logs, open) {
					t.Errorf("no %q in %q", open, logs)
				}
			} else if rc := e.RegisterLocalMemory(ctx, gpuAddr, 1<<20, false); rc != c.rc {
				t.Fatalf("rc = %d, want %d (logs %q)", rc, c.rc, logs)
			}
			if c.log != "" && !slices.Contains(logs, c.log) {
				t.Errorf("no %q in %q", c.log, logs)
			}
			if c.noLog != "" && slices.Contains(logs, c.noLog) {
				t.Errorf("%q in %q", c.noLog, logs)
			}
		})
	}
}

// GPU pages are not RLIMIT_MEMLOCK's: a GPU buffer registered through
// peermem leaves the limit to host buffers.
func TestGPUMemlock(t *testing.T) {
	ctx := context.Background()
	var logs []string
	e := te.New(te.Config{Profile: mooncake.MustProfile("0.3.10.post1"),
		Host: te.Host{Name: "h", RDMA: []engine.RDMADevice{{Name: "mlx5_0"}}, MemlockBytes: 0x2000, GPU: &engine.GPUSpec{Count: 1, Peermem: true}},
		Log:  mlog.Func(func(_, text string) { logs = append(logs, text) })})
	if err := e.InitStore(ctx, "h:1", te.P2PHandshake, "rdma", strp("mlx5_0")); err != nil {
		t.Fatal(err)
	}
	if rc := e.RegisterLocalMemory(ctx, 1<<40, 1<<30, false); rc != 0 {
		t.Fatalf("GPU: rc = %d (logs %q)", rc, logs)
	}
	if rc := e.RegisterLocalMemory(ctx, 0x1000, 0x2000, false); rc != 0 {
		t.Fatalf("host buffer within the limit: rc = %d (logs %q)", rc, logs)
	}
	if rc := e.RegisterLocalMemory(ctx, 0x10000, 0x1000, false); rc != mooncake.ERR_CONTEXT {
		t.Fatalf("host buffer past the limit: rc = %d, want %d (logs %q)", rc, mooncake.ERR_CONTEXT, logs)
	}
}
