package te_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// An injected ibv_reg_mr refusal (rdma-context reg_mr): scope all fails
// every registration of the device with its errno; scope failing only
// those the host's own state fails (here RLIMIT_MEMLOCK, ENOMEM), which
// then print the fault's errno. Healing restores the host's own answer.
func TestRegMRFault(t *testing.T) {
	const (
		within = uint64(0x1000) // inside the 0x2000 memlock limit
		past   = uint64(0x10000)
		enomem = "Failed to register memory 0x10000: Cannot allocate memory [12]"
		size   = 0x1000 // within's; past's is twice it
	)
	for _, c := range []struct {
		name             string
		params           faults.RDMAContextParams
		rcWithin, rcPast int
		logs             []string
	}{
		{"scope all", faults.RDMAContextParams{Errno: "EINVAL", Device: "mlx5_0"}, mooncake.ERR_CONTEXT, mooncake.ERR_CONTEXT,
			[]string{"Failed to register memory 0x1000: Invalid argument [22]", "Failed to register memory 0x10000: Invalid argument [22]"}},
		{"scope failing", faults.RDMAContextParams{Errno: "EPERM", Scope: faults.RegMRFailing}, 0, mooncake.ERR_CONTEXT,
			[]string{"Failed to register memory 0x10000: Operation not permitted [1]"}},
		{"another device", faults.RDMAContextParams{Errno: "EPERM", Device: "mlx5_1"}, 0, mooncake.ERR_CONTEXT,
			[]string{enomem}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			var logs []string
			h := &te.RDMAFaults{}
			e := te.New(te.Config{Profile: mooncake.MustProfile("0.3.9"),
				Host: te.Host{Name: "h", RDMA: []engine.RDMADevice{{Name: "mlx5_0"}, {Name: "mlx5_1"}}, MemlockBytes: 0x2000, RDMAFaults: h},
				Log: mlog.Func(func(level, text string) {
					if level == mlog.Error {
						logs = append(logs, text)
					}
				})})
			if err := e.InitStore(ctx, "h:1", te.P2PHandshake, "rdma", strp("mlx5_0")); err != nil {
				t.Fatal(err)
			}
			f := faults.Fault{Kind: faults.RDMAContext, Target: "h", Mode: faults.ModeRegMR, Params: c.params}
			if err := f.Validate(); err != nil {
				t.Fatal(err)
			}
			p, _ := faults.Lower(f)
			heal := h.Arm(0, p.(faults.RDMAPrimitive))
			if rc := e.RegisterLocalMemory(ctx, within, size, false); rc != c.rcWithin {
				t.Fatalf("within the limit: rc %d, want %d (%q)", rc, c.rcWithin, logs)
			}
			if rc := e.RegisterLocalMemory(ctx, past, 2*size, false); rc != c.rcPast {
				t.Fatalf("past the limit: rc %d, want %d (%q)", rc, c.rcPast, logs)
			}
			got := slices.DeleteFunc(slices.Clone(logs), func(l string) bool { return !strings.HasPrefix(l, "Failed to register memory 0x") })
			if !slices.Equal(got, c.logs) {
				t.Fatalf("logs %q, want %q", got, c.logs)
			}
			heal(0)
			logs = nil
			if rc := e.RegisterLocalMemory(ctx, 0x20000, 3*size, false); rc != mooncake.ERR_CONTEXT || !slices.Contains(logs, "Failed to register memory 0x20000: Cannot allocate memory [12]") {
				t.Fatalf("healed: rc %d, logs %q", rc, logs)
			}
		})
	}
}
