package te_test

import (
	"context"
	"slices"
	"testing"
	"time"

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
			rc, err := py.TransferSyncWrite(context.Background(), "127.0.0.1:16000", 0x1000, 0x2000, mib, c.batch)
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
