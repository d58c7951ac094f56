package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mooncake-faultlab/faultlab/netport"
)

// rangeNames pairs the variables releases read for the transfer engine's
// port range (mooncake.RPCPortRangeNames), with the default of each.
var rangeNames = [][2]string{{"MC_MIN_RPC_PORT", "MC_MAX_RPC_PORT"}, {"MC_MIN_PRC_PORT", "MC_MAX_PRC_PORT"}}

const defaultMinPort, defaultMaxPort = 15000, 17000

// claimWait bounds how long a run waits for another run of a scenario
// with the same fixed ports: longer than any catalog world's run on
// real, so a wait that ends is a stuck neighbour, reported as an error.
const claimWait = 10 * time.Minute

// fixedPortRanges are the narrow transfer-engine port ranges (at most
// netport.MaxClaimed ports) sc's env fixes anywhere: config, nodes, the
// remedy's env and node_env. A missing partner is Mooncake's default.
func fixedPortRanges(sc *Scenario) [][2]int {
	envs := []Env{sc.Config.Env}
	for _, n := range sc.Topology.Nodes {
		envs = append(envs, n.Env)
	}
	if sc.Remedy != nil {
		envs = append(envs, sc.Remedy.Env)
		for _, n := range sortedKeys(sc.Remedy.NodeEnv) {
			envs = append(envs, sc.Remedy.NodeEnv[n])
		}
	}
	var out [][2]int
	for _, env := range envs {
		for _, names := range rangeNames {
			lo, okLo := envPort(env, names[0])
			hi, okHi := envPort(env, names[1])
			if !okLo && !okHi {
				continue
			}
			if !okLo {
				lo = defaultMinPort
			}
			if !okHi {
				hi = defaultMaxPort
			}
			if r := [2]int{min(lo, hi), max(lo, hi)}; r[0] >= 1 && r[1] <= 65535 && r[1]-r[0] < netport.MaxClaimed {
				out = append(out, r)
			}
		}
	}
	// Sorted and merged: a run claims ranges in this order, each whole,
	// so two runs never hold a part each, and a run never waits on itself.
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1]+1 {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

func envPort(env Env, name string) (int, bool) {
	v, ok := env[name]
	if !ok || v == nil {
		return 0, false
	}
	n, err := strconv.Atoi(*v)
	return n, err == nil
}

// claimFixedPorts holds, host-wide, the ports sc fixes for its transfer
// engines while a wall-clock run uses them: two runs of one such
// scenario at once (the suites' catalog spec beside their SGLang
// comparison, `run -j 2` over two releases) would otherwise draw the
// same few ports and fail on each other. The wait comes before the run's
// bound starts.
func claimFixedPorts(ctx context.Context, sc *Scenario) (release func(), err error) {
	rs := fixedPortRanges(sc)
	ctx, cancel := context.WithTimeout(ctx, claimWait)
	defer cancel()
	var held []*netport.Claim
	release = func() {
		for _, c := range held {
			c.Release()
		}
	}
	for _, r := range rs {
		c, err := netport.ClaimPorts(ctx, r[0], r[1])
		if err != nil {
			release()
			return nil, fmt.Errorf("the scenario's own transfer-engine ports: %w", err)
		}
		held = append(held, c)
	}
	return release, nil
}
