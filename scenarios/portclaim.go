package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/netport"
)

// claimWait bounds how long a run waits for another run of a scenario
// with the same fixed ports: longer than any catalog world's run on
// real, so a wait that ends is a stuck neighbour, reported as an error.
const claimWait = 10 * time.Minute

// fixedPortRanges are the narrow transfer-engine port ranges (at most
// netport.MaxClaimed ports) sc's env fixes anywhere: config, nodes, the
// remedy's env and node_env (Scenario.envs), a missing partner
// Mooncake's default; and the master's fixed HTTP metadata port
// (topology.master.http_metadata_port).
func fixedPortRanges(sc *Scenario) [][2]int {
	var out [][2]int
	for _, e := range sc.envs() {
		for _, names := range mooncake.RPCPortRangePairs {
			lo, okLo := envPort(e.Env, names[0])
			hi, okHi := envPort(e.Env, names[1])
			if !okLo && !okHi {
				continue
			}
			if !okLo {
				lo = mooncake.DefaultRPCMinPort
			}
			if !okHi {
				hi = mooncake.DefaultRPCMaxPort
			}
			if r := [2]int{min(lo, hi), max(lo, hi)}; r[0] >= 1 && r[1] <= 65535 && r[1]-r[0] < netport.MaxClaimed {
				out = append(out, r)
			}
		}
	}
	// The master's fixed HTTP ports, its embedded metadata server's and
	// its admin server's (their port-held faults hold them host-wide too).
	if m := sc.Topology.Master; m != nil {
		for _, p := range []int{m.HTTPMetadataPort, m.MetricsPort} {
			if p >= 1 && p <= 65535 {
				out = append(out, [2]int{p, p})
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

// placedEnv is one environment a scenario sets and where it is written.
type placedEnv struct {
	Pos
	Env Env
}

// envs are the environments sc sets for its SGLang (or integration)
// processes: config.env, each node's env, the remedy's env and node_env.
func (sc *Scenario) envs() []placedEnv {
	out := []placedEnv{{sc.Config.Pos, sc.Config.Env}}
	for _, n := range sc.Topology.Nodes {
		out = append(out, placedEnv{n.Pos, n.Env})
	}
	if r := sc.Remedy; r != nil {
		out = append(out, placedEnv{r.Pos, r.Env})
		for _, n := range sortedKeys(r.NodeEnv) {
			out = append(out, placedEnv{r.Pos, r.NodeEnv[n]})
		}
	}
	return out
}
