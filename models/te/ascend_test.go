package te_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// ascendPy initializes a TransferEngine of a USE_ASCEND_DIRECT build at
// version on a node with npu, whose peer is an Ascend engine named
// peerAdxl on a host with peerNPU. It returns the engine, initialize's
// code, its error lines and the clock.
func ascendPy(t *testing.T, version string, npu, peerNPU *engine.NPUSpec, logs *[]string) (*te.Py, int, *stepClock) {
	t.Helper()
	clock := &stepClock{}
	host := te.Host{Name: "decode", Build: []string{engine.BuildAscendDirect}, NPU: npu,
		Peer: func(string) (te.Peer, bool) {
			return te.Peer{Adxl: "127.0.0.2:20000", NPU: peerNPU}, true
		}}
	py := te.NewPy(te.Config{Profile: mooncake.MustProfile(version), Host: host,
		Log: mlog.Func(func(_, text string) { *logs = append(*logs, text) })}, okPath{}, clock)
	rc := py.Initialize(context.Background(), "127.0.0.1:12345", te.P2PHandshake, "ascend", "")
	return py, rc, clock
}

// Install: AdxlEngine::Initialize failing (CANN below 8.3.RC1) fails
// initialize with the release's lines (ascend_direct_transport.cpp
// v0.3.8.post1:108-112, 263-266; v0.3.10:117-121, 290-294;
// transfer_executor_base.cpp v0.3.12.post1:230-234, ascend_direct_transport.cpp
// v0.3.12.post1:114-118; transfer_engine_impl.cpp v0.3.12.post1:226-232).
func TestAscendInstall(t *testing.T) {
	old := &engine.NPUSpec{CANN: "8.2.RC1"}
	for _, c := range []struct {
		version string
		npu     *engine.NPUSpec
		rc      int
		want    []string
	}{
		{"0.3.8.post1", old, -1, []string{
			"install AscendDirectTransport for: 127.0.0.1:15000",
			"Failed to initialize AdxlEngine, status: 503900",
			"AscendDirectTransport: InitAdxlEngine failed, ret: -1",
			"Failed to install Ascend transport"}},
		{"0.3.10", old, -1, []string{
			"install AscendDirectTransport for: 127.0.0.1:15000",
			"Failed to initialize AdxlEngine, status: 503900, errmsg: ",
			"AscendDirectTransport: InitAdxlEngine failed, ret: -1",
			"Failed to install Ascend transport"}},
		{"0.3.12.post1", old, -1, []string{
			"install AscendDirectTransport for: 127.0.0.1:15000",
			"Failed to initialize AdxlEngine, status: 503900, errmsg: ",
			"AscendDirectTransport: TransferExecutor init failed, ret: -1",
			"Failed to install Ascend transport"}},
		{"0.3.12.post1", &engine.NPUSpec{CANN: "8.3.RC1"}, 0, []string{
			"install AscendDirectTransport for: 127.0.0.1:15000"}},
		// Before v0.3.6 there is no such transport: the option is
		// ignored and auto-discovery installs TCP.
		{"0.3.5", old, 0, nil},
	} {
		t.Run(c.version+" "+c.npu.CANN, func(t *testing.T) {
			var logs []string
			py, rc, _ := ascendPy(t, c.version, c.npu, nil, &logs)
			if rc != c.rc {
				t.Fatalf("initialize = %d, want %d (logs %q)", rc, c.rc, logs)
			}
			// The transport's lines and every error.
			got := slices.DeleteFunc(slices.Clone(logs), func(l string) bool {
				return !strings.Contains(l, "Ascend") && !strings.Contains(l, "Adxl")
			})
			if !slices.Equal(got, c.want) {
				t.Errorf("lines %q, want %q", got, c.want)
			}
			wantT := []string{"ascend"}
			if c.rc != 0 {
				wantT = nil
			} else if c.version == "0.3.5" {
				wantT = []string{"tcp"}
			}
			if tr := py.Engine().Transports(); !slices.Equal(tr, wantT) {
				t.Errorf("transports %q, want %q", tr, wantT)
			}
		})
	}
}

// A transfer to a peer whose NPU link is down (ADXL Connect TIMEOUT after
// connect_timeout_) and one whose TransferSync fails with a status, per
// release: the lines, the return code and the time it took.
func TestAscendTransfer(t *testing.T) {
	down := &engine.NPUSpec{LinkDown: true}
	failing := &engine.NPUSpec{TransferStatus: 503900}
	const adxl = "127.0.0.2:20000"
	for _, c := range []struct {
		name, version string
		local, peer   *engine.NPUSpec
		want          []string
		took          time.Duration
	}{
		{"link down", "0.3.7", nil, down, []string{
			"Failed to connect to target: " + adxl + ", status: 103901",
			"Failed to connect to segment: 127.0.0.2:12345"}, 3 * time.Second},
		{"link down", "0.3.8.post1", nil, down, []string{
			"Connect timeout to: " + adxl + ", you can increase the timeout duration to reduce the ASCEND_CONNECT_TIMEOUT environment variable.",
			"Transfer slice failed with status: 103902",
			"transfer failed and disconnect to:" + adxl}, 10 * time.Second},
		{"link down", "0.3.10", nil, down, []string{
			"Connect timeout to: " + adxl + ", you can increase the timeout duration to reduce the failure rate by configuring the ASCEND_CONNECT_TIMEOUT environment variable, errmsg: ",
			"Retry transfer to:127.0.0.2:12345",
			"Connect timeout to: " + adxl + ", you can increase the timeout duration to reduce the failure rate by configuring the ASCEND_CONNECT_TIMEOUT environment variable, errmsg: ",
			"Retry transfer to:127.0.0.2:12345",
			"Transfer failed to: " + adxl + ", errmsg: "}, 20 * time.Second},
		{"link down", "0.3.12.post1", nil, down, []string{
			"Connect timeout to: " + adxl + ", errmsg: ",
			"Retry transfer to:" + adxl,
			"Connect timeout to: " + adxl + ", errmsg: ",
			"Transfer failed to: " + adxl + ", errmsg: "}, 20 * time.Second},
		{"status", "0.3.7", failing, nil, []string{
			"Transfer slice failed with status: 503900"}, 0},
		{"status", "0.3.8.post1", failing, nil, []string{
			"Transfer slice failed with status: 503900",
			"transfer failed and disconnect to:" + adxl}, 0},
		{"status", "0.3.10", failing, nil, []string{
			"Retry transfer to:127.0.0.2:12345",
			"Retry transfer to:127.0.0.2:12345",
			"Transfer failed to: " + adxl + ", errmsg: "}, 0},
		{"status", "0.3.11.post1", failing, nil, []string{
			"Retry transfer to:" + adxl,
			"Transfer failed to: " + adxl + ", errmsg: "}, 0},
	} {
		t.Run(c.name+" "+c.version, func(t *testing.T) {
			var logs []string
			py, rc, clock := ascendPy(t, c.version, c.local, c.peer, &logs)
			if rc != 0 {
				t.Fatalf("initialize = %d (logs %q)", rc, logs)
			}
			logs = nil
			got, err := py.TransferSyncWrite(context.Background(), "127.0.0.2:12345", 0x7f0000000000, 0x7f0000100000, 1<<20, 0)
			if err != nil || got != -1 {
				t.Fatalf("transfer_sync_write = %d, %v, want -1 (logs %q)", got, err, logs)
			}
			if !slices.Equal(logs, c.want) {
				t.Errorf("lines\n%q\nwant\n%q", logs, c.want)
			}
			if clock.now != c.took {
				t.Errorf("took %v, want %v", clock.now, c.took)
			}
		})
	}
	t.Run("link up: 0", func(t *testing.T) {
		var logs []string
		py, _, _ := ascendPy(t, "0.3.12.post1", nil, &engine.NPUSpec{}, &logs)
		logs = nil
		if got, err := py.TransferSyncWrite(context.Background(), "127.0.0.2:12345", 0x7f0000000000, 0x7f0000100000, 1<<20, 0); got != 0 || err != nil || len(logs) != 0 {
			t.Errorf("transfer_sync_write = %d, %v (logs %q)", got, err, logs)
		}
	})
}

// MC_FORCE_TCP comes before the Ascend transport from v0.3.12
// (transfer_engine_impl.cpp v0.3.12.post1:205-232): TCP only, no ADXL.
func TestAscendForceTCP(t *testing.T) {
	var logs []string
	host := te.Host{Name: "decode", Build: []string{engine.BuildAscendDirect}, NPU: &engine.NPUSpec{CANN: "8.2.RC1"}}
	py := te.NewPy(te.Config{Profile: mooncake.MustProfile("0.3.12.post1"), Host: host, Env: map[string]string{"MC_FORCE_TCP": "1"},
		Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}, okPath{}, &stepClock{})
	if rc := py.Initialize(context.Background(), "127.0.0.1:12345", te.P2PHandshake, "ascend", ""); rc != 0 {
		t.Fatalf("initialize = %d (logs %q)", rc, logs)
	}
	if tr := py.Engine().Transports(); !slices.Equal(tr, []string{"tcp"}) || slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(l, "Ascend") }) {
		t.Errorf("transports %q, logs %q", tr, logs)
	}
}

// The async path (ASCEND_USE_ASYNC_TRANSFER): "Use async transfer" at
// install, then the query thread's GetTransferStatus reports the device's
// failure, without the sync path's retry (ascend_direct_transport.cpp
// v0.3.8.post1:231, :680; v0.3.10:726; async_transfer_executor.cpp
// v0.3.12.post1:296).
func TestAscendAsyncTransfer(t *testing.T) {
	for _, c := range []struct {
		version string
		want    []string
	}{
		{"0.3.8.post1", []string{"Get transfer status failed, ret: 503900"}},
		{"0.3.10", []string{"Get transfer status failed, ret: 503900, errmsg: "}},
		{"0.3.12.post1", []string{"Get transfer status failed, ret: 503900, errmsg: "}},
	} {
		t.Run(c.version, func(t *testing.T) {
			var logs []string
			host := te.Host{Name: "prefill", Build: []string{engine.BuildAscendDirect}, NPU: &engine.NPUSpec{TransferStatus: 503900},
				Peer: func(string) (te.Peer, bool) { return te.Peer{Adxl: "127.0.0.2:20000", NPU: &engine.NPUSpec{}}, true }}
			py := te.NewPy(te.Config{Profile: mooncake.MustProfile(c.version), Host: host, Env: map[string]string{"ASCEND_USE_ASYNC_TRANSFER": "1"},
				Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}, okPath{}, &stepClock{})
			if rc := py.Initialize(context.Background(), "127.0.0.1:12345", te.P2PHandshake, "ascend", ""); rc != 0 || !slices.Contains(logs, "Use async transfer") {
				t.Fatalf("initialize = %d (logs %q)", rc, logs)
			}
			logs = nil
			got, err := py.TransferSyncWrite(context.Background(), "127.0.0.2:12345", 0x7f0000000000, 0x7f0000100000, 1<<20, 0)
			if err != nil || got != -1 || !slices.Equal(logs, c.want) {
				t.Errorf("transfer_sync_write = %d, %v, lines %q, want -1 and %q", got, err, logs, c.want)
			}
		})
	}
}

// MC_FORCE_TCP on a build without USE_TCP (transfer_engine_impl.cpp
// v0.3.12.post1:220-223): init fails before topology discovery; before
// 0.3.12 there is no such branch, and the no-HCA fallback's install of tcp
// is multi_transport.cpp's refusal.
func TestForceTCPWithoutTCPBuild(t *testing.T) {
	for _, c := range []struct {
		version string
		want    string
	}{
		{"0.3.12.post1", "MC_FORCE_TCP is set but USE_TCP is not compiled in"},
		{"0.3.9", "Unsupported transport tcp, please rebuild Mooncake"},
	} {
		var logs []string
		host := te.Host{Name: "prefill", Build: []string{engine.BuildNoTCP}}
		py := te.NewPy(te.Config{Profile: mooncake.MustProfile(c.version), Host: host, Env: map[string]string{"MC_FORCE_TCP": "1"},
			Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}, okPath{}, &stepClock{})
		if rc := py.Initialize(context.Background(), "127.0.0.1:12345", te.P2PHandshake, "tcp", ""); rc != -1 || !slices.Contains(logs, c.want) {
			t.Errorf("%s: initialize = %d, logs %q, want -1 and %q", c.version, rc, logs, c.want)
		}
	}
}
