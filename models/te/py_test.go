package te_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// stalledPath is a data path whose every peer accepted and never answers.
type stalledPath struct{}

func (stalledPath) Write(_ context.Context, ep string, _ uint64, _ hostmem.Content) error {
	return &te.TransferStalled{Endpoint: ep}
}

func (stalledPath) Read(_ context.Context, ep string, _ uint64, _ int64) (hostmem.Content, error) {
	return hostmem.Content{}, &te.TransferStalled{Endpoint: ep}
}

// The Python TransferEngine's sync write to a peer that never answers:
// -1 when transfer_timeout_nsec_ + length has passed (real 0.3.9 …
// 0.3.14, docs/REAL-FINDINGS.md §41), or at 0.3.12's status-frame deadline
// when that is the shorter.
func TestPyTransferSyncWriteStalled(t *testing.T) {
	const mib = 16 << 20
	cases := []struct {
		name, version string
		env           map[string]string
		batch         bool
		wantAt        time.Duration
		wantLog       string
	}{
		{"batch, MC_TRANSFER_TIMEOUT 5", "0.3.13.post1", map[string]string{"MC_TRANSFER_TIMEOUT": "5"}, true,
			5*time.Second + mib + time.Microsecond, "Sync batch data transfer timeout after 5016778216ns"},
		{"0.3.14 defers the busy batch's cleanup", "0.3.14", map[string]string{"MC_TRANSFER_TIMEOUT": "5"}, true,
			5*time.Second + mib + time.Microsecond, "Sync batch data transfer timeout after 5016778216ns"},
		{"under 5 is 5", "0.3.9", map[string]string{"MC_TRANSFER_TIMEOUT": "1"}, true,
			5*time.Second + mib + time.Microsecond, "Sync batch data transfer timeout after 5016778216ns"},
		{"one entry", "0.3.9", map[string]string{"MC_TRANSFER_TIMEOUT": "5"}, false,
			5*time.Second + mib + time.Microsecond, "Sync data transfer timeout after 5016778216ns, local buffer 0x1000 remote buffer 0x2000 length 16777216"},
		{"default 30 s: the status frame's 3 s first", "0.3.12.post1", map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "3"}, true,
			3 * time.Second, "ClientSession: no status frame within 3s (peer likely speaks the legacy protocol); dropping connection"},
		{"before 0.3.12 no status frame", "0.3.11.post1", map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "3"}, true,
			30*time.Second + mib + time.Microsecond, "Sync batch data transfer timeout after 30016778216ns"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := mooncake.ProfileFor(c.version)
			if err != nil {
				t.Fatal(err)
			}
			var logs []string
			clock := &stepClock{}
			py := te.NewPy(te.Config{Profile: p, Host: te.Host{Name: "n"}, Env: c.env,
				Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}, stalledPath{}, clock)
			if rc := py.Initialize(context.Background(), "127.0.0.1", te.P2PHandshake, "tcp", ""); rc != 0 {
				t.Fatalf("initialize = %d, logs %q", rc, logs)
			}
			entries := 0
			if c.batch {
				entries = 1
			}
			rc, err := py.TransferSyncWrite(context.Background(), "127.0.0.1:16000", 0x1000, 0x2000, mib, entries)
			if err != nil || rc != -1 {
				t.Fatalf("transfer = %d, %v; want -1", rc, err)
			}
			if clock.now != c.wantAt {
				t.Errorf("returned at %v, want %v", clock.now, c.wantAt)
			}
			if !slices.Contains(logs, c.wantLog) {
				t.Errorf("logs %q lack %q", logs, c.wantLog)
			}
			deferred := slices.Contains(logs, "Batch 1 is still busy; cleanup has been deferred")
			if want := c.version == "0.3.14"; deferred != want {
				t.Errorf("deferred-cleanup warning %v, want %v (logs %q)", deferred, want, logs)
			}
		})
	}
}

// okPath is a data path whose every write lands.
type okPath struct{}

func (okPath) Write(context.Context, string, uint64, hostmem.Content) error { return nil }

func (okPath) Read(_ context.Context, _ string, _ uint64, size int64) (hostmem.Content, error) {
	return hostmem.Content{Size: size}, nil
}

// A TCP write from GPU memory: the session's socket write reads the GPU
// address itself (EFAULT, -1) until the CUDA wheels stage it through host
// memory (0.3.7); each release's wording (tcp_transport.cpp v0.3.4.post2:137,
// v0.3.6:168-174).
func TestPyTransferFromGPU(t *testing.T) {
	const gpu = uint64(1 << 40) // GPU 0 of the first host (hostmem.IsDevice)
	cases := []struct {
		version string
		rc      int
		log     string
	}{
		{"0.3.4.post2", -1, "Session::writeBody failed. Error: Bad address (value: 14), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.6.post1", -1, "Session::writeBody failed. Attempt to write data 0x10000000000 using buffer 0x10000000000. Error: Bad address (value: 14), total_transferred_bytes_: 0, current transferred_bytes: 0"},
		{"0.3.7.post2", 0, ""},
		{"0.3.13.post1", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.version, func(t *testing.T) {
			p, err := mooncake.ProfileFor(c.version)
			if err != nil {
				t.Fatal(err)
			}
			var logs []string
			py := te.NewPy(te.Config{Profile: p, Host: te.Host{Name: "n"},
				Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}, okPath{}, &stepClock{})
			if rc := py.Initialize(context.Background(), "127.0.0.1", te.P2PHandshake, "tcp", ""); rc != 0 {
				t.Fatalf("initialize = %d, logs %q", rc, logs)
			}
			rc, err := py.TransferSyncWrite(context.Background(), "127.0.0.1:16000", gpu, 0x2000, 1<<20, 0)
			if err != nil || rc != c.rc {
				t.Fatalf("transfer = %d, %v; want %d (logs %q)", rc, err, c.rc, logs)
			}
			failed := slices.ContainsFunc(logs, func(l string) bool { return strings.HasPrefix(l, "Session::writeBody failed") })
			if c.log != "" && !slices.Contains(logs, c.log) || c.log == "" && failed {
				t.Errorf("logs %q, want the line %q", logs, c.log)
			}
		})
	}
}

// The binding's initialize reads no protocol: it auto-discovers over the
// devices device_name lists and installs RDMA where it finds one, TCP
// where it finds none (initializeExt, transfer_engine_py.cpp v0.3.9:156-181).
func TestPyInitializeDiscovers(t *testing.T) {
	p, err := mooncake.ProfileFor("0.3.9")
	if err != nil {
		t.Fatal(err)
	}
	host := te.Host{Name: "n", RDMA: []engine.RDMADevice{{Name: "mlx5_0"}, {Name: "mlx5_1"}}}
	cases := []struct {
		protocol, devices string
		host              te.Host
		found             string
		transports        []string
	}{
		{"rdma", "mlx5_1", host, "Topology discovery complete. Found 1 HCAs.", []string{"rdma"}},
		{"tcp", "", host, "Topology discovery complete. Found 2 HCAs.", []string{"rdma"}},
		{"rdma", "", te.Host{Name: "n"}, "Topology discovery complete. Found 0 HCAs.", []string{"tcp"}},
	}
	for _, c := range cases {
		var logs []string
		py := te.NewPy(te.Config{Profile: p, Host: c.host,
			Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}, okPath{}, &stepClock{})
		if rc := py.Initialize(context.Background(), "127.0.0.1", te.P2PHandshake, c.protocol, c.devices); rc != 0 {
			t.Fatalf("%s %q: initialize = %d, logs %q", c.protocol, c.devices, rc, logs)
		}
		if !slices.Contains(logs, c.found) || !slices.Equal(py.Engine().Transports(), c.transports) {
			t.Errorf("%s %q: transports %v, logs %q; want %v and %q", c.protocol, c.devices, py.Engine().Transports(), logs, c.transports, c.found)
		}
	}
}
