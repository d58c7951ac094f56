package te_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

func newEngine(t *testing.T, version string, nics []engine.RDMADevice, env map[string]string) (*te.Engine, *[]string) {
	t.Helper()
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	e := te.New(te.Config{Profile: p, Host: te.Host{Name: "n", RDMA: nics}, Env: env,
		Log: mlog.Func(func(_, text string) { logs = append(logs, text) })})
	return e, &logs
}

func strp(s string) *string { return &s }

func TestInitStore(t *testing.T) {
	nic := []engine.RDMADevice{{Name: "mlx5_0"}}
	broken := []engine.RDMADevice{{Name: "mlx5_0", Broken: true}}
	cases := []struct {
		name, version, protocol string
		devices                 *string
		nics                    []engine.RDMADevice
		env                     map[string]string
		wantErr                 error
		abort                   bool
		transports              []string
		log                     string
	}{
		{"tcp", "0.3.13.post1", "tcp", nil, nil, nil, nil, false, []string{"tcp"}, "Transfer engine auto discovery is disabled for protocol: tcp"},
		{"rdma auto no nic → tcp", "0.3.13.post1", "rdma", nil, nil, nil, nil, false, []string{"tcp"}, "Set auto discovery ON by default for rdma protocol, since no device names provided"},
		{"rdma auto nic", "0.3.9", "rdma", nil, nic, nil, nil, false, []string{"rdma"}, "installTransport, type=rdma"},
		{"rdma auto MC_FORCE_TCP", "0.3.9", "rdma", nil, nic, map[string]string{"MC_FORCE_TCP": "1"}, nil, false, []string{"tcp"}, "Topology discovery complete. Found 1 HCAs."},
		{"rdma auto MC_FORCE_HCA no nic", "0.3.9", "rdma", nil, nil, map[string]string{"MC_FORCE_HCA": "1"}, mooncake.INTERNAL_ERROR, false, nil, "Failed to install RDMA transport, type=rdma"},
		{"rdma named no nic", "0.3.9", "rdma", strp("mlx5_0"), nil, nil, mooncake.INTERNAL_ERROR, false, nil, "Failed to install RDMA transport with specified devices"},
		{"rdma named broken nic", "0.3.9", "rdma", strp("mlx5_0"), broken, nil, mooncake.INTERNAL_ERROR, false, nil, "Disable device mlx5_0"},
		{"rdma named other nic", "0.3.9", "rdma", strp("mlx5_1"), nic, nil, mooncake.INTERNAL_ERROR, false, nil, "Topology discovery complete with specified devices. Found 0 HCAs"},
		{"rdma MC_MS_AUTO_DISC=0 no devices", "0.3.9", "rdma", nil, nic, map[string]string{"MC_MS_AUTO_DISC": "0"}, mooncake.INVALID_PARAMS, false, nil, "RDMA protocol requires device names when auto discovery is disabled"},
		{"tcp auto on 0.3.6 with a broken nic", "0.3.6", "tcp", nil, broken, nil, mooncake.INTERNAL_ERROR, false, nil, "Failed to initialize transfer engine, rc=-1"},
		{"tcp on 0.3.7 ignores a broken nic", "0.3.7", "tcp", nil, broken, nil, nil, false, []string{"tcp"}, "Transfer engine auto discovery is disabled for protocol: tcp"},
		{"rdma 0.3.5 aborts", "0.3.5", "rdma", strp("mlx5_0"), nil, nil, nil, true, nil, "Check failed: transport Failed to install transport"},
		{"unknown protocol", "0.3.9", "efa2", nil, nil, nil, mooncake.INVALID_PARAMS, false, nil, "unsupported_protocol protocol=efa2"},
		// efa: an unsupported protocol before 0.3.10, a transport the wheels
		// lack up to 0.3.13.post1, one that cannot load libfabric at 0.3.14.
		{"efa on 0.3.9", "0.3.9", "efa", strp("rdmap79s0"), nil, nil, mooncake.INVALID_PARAMS, false, nil, "unsupported_protocol protocol=efa"},
		{"efa not built", "0.3.13.post1", "efa", strp("rdmap79s0"), nil, nil, mooncake.INTERNAL_ERROR, false, nil, "Unsupported transport efa, please rebuild Mooncake"},
		{"efa without libfabric", "0.3.14", "efa", strp("rdmap79s0"), nil, nil, mooncake.INTERNAL_ERROR, false, nil, "  /opt/amazon/efa/lib/libfabric.so.1: /opt/amazon/efa/lib/libfabric.so.1: cannot open shared object file: No such file or directory"},
		// ascend outside an Ascend build: no transport to install.
		{"ascend on a wheel", "0.3.8.post1", "ascend", nil, nil, nil, mooncake.INTERNAL_ERROR, false, nil, "Unsupported transport ascend, please rebuild Mooncake"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, logs := newEngine(t, c.version, c.nics, c.env)
			err := e.InitStore(context.Background(), "localhost:12345", te.P2PHandshake, c.protocol, c.devices)
			_, isAbort := err.(*te.Abort)
			switch {
			case c.abort && !isAbort:
				t.Fatalf("err = %v, want abort", err)
			case !c.abort && err != c.wantErr && !(err != nil && c.wantErr != nil && err.Error() == c.wantErr.Error()):
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if !slices.Equal(e.Transports(), c.transports) {
				t.Errorf("transports = %v, want %v", e.Transports(), c.transports)
			}
			if !slices.Contains(*logs, c.log) {
				t.Errorf("logs %q lack %q", *logs, c.log)
			}
		})
	}
}

func TestRegisterLocalMemory(t *testing.T) {
	ctx := context.Background()
	e, logs := newEngine(t, "0.3.13.post1", []engine.RDMADevice{{Name: "a", MaxMR: 2}, {Name: "b"}}, nil)
	if err := e.InitStore(ctx, "h:1", te.P2PHandshake, "rdma", strp("a,b")); err != nil {
		t.Fatal(err)
	}
	if rc := e.RegisterLocalMemory(ctx, 0x1000, 0x1000, true); rc != 0 {
		t.Fatalf("first = %d", rc)
	}
	if rc := e.RegisterLocalMemory(ctx, 0x1800, 0x10, true); rc != mooncake.ERR_ADDRESS_OVERLAPPED {
		t.Fatalf("overlap = %d", rc)
	}
	if rc := e.RegisterLocalMemory(ctx, 0x9000, 0, true); rc != mooncake.ERR_INVALID_ARGUMENT {
		t.Fatalf("len 0 = %d", rc)
	}
	if rc := e.RegisterLocalMemory(ctx, 0x3000, 0x1000, true); rc != 0 {
		t.Fatalf("second = %d", rc)
	}
	// Device a has max_mr 2: the third fails on context 0 (mlx5 MKEYs:
	// EAGAIN), nothing was registered yet.
	if rc := e.RegisterLocalMemory(ctx, 0x5000, 0x1000, true); rc != mooncake.ERR_CONTEXT {
		t.Fatalf("third = %d", rc)
	}
	if e.MRCount("a") != 2 || e.MRCount("b") != 2 {
		t.Fatalf("mr counts a=%d b=%d", e.MRCount("a"), e.MRCount("b"))
	}
	if !slices.Contains(*logs, "Failed to register memory 0x5000: Resource temporarily unavailable [11]") {
		t.Errorf("logs %q", *logs)
	}
	if rc := e.UnregisterLocalMemory(ctx, 0x1000); rc != 0 {
		t.Fatalf("unregister = %d", rc)
	}
	if rc := e.RegisterLocalMemory(ctx, 0x5000, 0x1000, true); rc != 0 {
		t.Fatalf("after unregister = %d", rc)
	}
}

// A failure on the second RNIC leaves the first one's MR registered up to
// 0.3.12.post1 (rdma_transport.cpp returns at the failing context); from
// 0.3.13 (#2644) it is rolled back.
func TestRegisterSecondNICFailure(t *testing.T) {
	for _, c := range []struct {
		version string
		mrsA    int
	}{{"0.3.12.post1", 2}, {"0.3.13.post1", 1}} {
		t.Run(c.version, func(t *testing.T) {
			ctx := context.Background()
			e, logs := newEngine(t, c.version, []engine.RDMADevice{{Name: "a"}, {Name: "b", MaxMR: 1}}, nil)
			if err := e.InitStore(ctx, "h:1", te.P2PHandshake, "rdma", strp("a,b")); err != nil {
				t.Fatal(err)
			}
			if rc := e.RegisterLocalMemory(ctx, 0x1000, 0x1000, true); rc != 0 {
				t.Fatalf("first = %d", rc)
			}
			if rc := e.RegisterLocalMemory(ctx, 0x3000, 0x1000, true); rc != mooncake.ERR_CONTEXT {
				t.Fatalf("second = %d", rc)
			}
			if e.MRCount("a") != c.mrsA || e.MRCount("b") != 1 {
				t.Fatalf("mr counts a=%d b=%d, want a=%d b=1", e.MRCount("a"), e.MRCount("b"), c.mrsA)
			}
			if !slices.Contains(*logs, "Failed to register memory 0x3000: Resource temporarily unavailable [11]") {
				t.Errorf("logs %q", *logs)
			}
		})
	}
}

// RLIMIT_MEMLOCK is charged per RNIC (each ibv_reg_mr pins again);
// CAP_IPC_LOCK lifts it.
func TestMemlockPerDevice(t *testing.T) {
	for _, c := range []struct {
		name string
		cap  bool
		want int
	}{{"limited", false, mooncake.ERR_CONTEXT}, {"cap_ipc_lock", true, 0}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			var logs []string
			e2 := te.New(te.Config{Profile: mooncake.MustProfile("0.3.13.post1"),
				Host: te.Host{Name: "h", RDMA: []engine.RDMADevice{{Name: "a"}, {Name: "b"}}, MemlockBytes: 0x1800, CapIPCLock: c.cap},
				Log:  mlog.Func(func(_, text string) { logs = append(logs, text) })})
			if err := e2.InitStore(ctx, "h:1", te.P2PHandshake, "rdma", strp("a,b")); err != nil {
				t.Fatal(err)
			}
			// 0x1000 fits the limit once, not twice.
			if rc := e2.RegisterLocalMemory(ctx, 0x1000, 0x1000, true); rc != c.want {
				t.Fatalf("rc = %d, want %d (logs %q)", rc, c.want, logs)
			}
			if c.want != 0 && !slices.Contains(logs, "Failed to register memory 0x1000: Cannot allocate memory [12]") {
				t.Errorf("logs %q", logs)
			}
		})
	}
}

// TestGIDWalk: a RoCE device without an acceptable GID, its 6-entry table
// holding 4 GIDs. Up to 0.3.9 findBestGidIndex logs each empty entry
// (rdma_context.cpp v0.3.9:448-452), from 0.3.10 it stops silently; the
// uint8_t port prints as the byte 0x01 at every release.
func TestGIDWalk(t *testing.T) {
	dev := []engine.RDMADevice{{Name: "mlx5_0", NoAutoGID: true, GIDIndex: 3, GIDTableLen: 6, GIDs: 4}}
	for _, tc := range []struct {
		version string
		want    []string
	}{
		{"0.3.9", []string{
			"Failed to query GID 4 on mlx5_0/\x01: No data available [61]",
			"Failed to query GID 5 on mlx5_0/\x01: No data available [61]",
			"No suitable GID found on mlx5_0/\x01",
			"Failed to open device mlx5_0 on port \x01 with GID -1",
		}},
		{"0.3.10", []string{
			"No suitable GID found on mlx5_0/\x01",
			"Failed to open device mlx5_0 on port \x01 with GID -1",
		}},
	} {
		e, logs := newEngine(t, tc.version, dev, nil)
		if err := e.InitStore(context.Background(), "127.0.0.1:12345", te.P2PHandshake, "rdma", strp("mlx5_0")); err == nil {
			t.Fatalf("%s: InitStore = nil, want a failure (no RNIC)", tc.version)
		}
		var got []string
		for _, l := range *logs {
			if slices.ContainsFunc([]string{"Failed to query GID", "No suitable GID", "Failed to open device"}, func(p string) bool { return strings.HasPrefix(l, p) }) {
				got = append(got, l)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: GID lines %q, want %q", tc.version, got, tc.want)
		}
	}
}
