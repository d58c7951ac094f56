package explore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// Invariant names (the report's findings[].invariant).
const (
	InvHarness       = "harness"       // the harness never errors or panics
	InvTexts         = "known-text"    // only exception texts from Texts
	InvPhaseBound    = "phase-bound"   // no phase outlasts Mooncake's own timeouts × retries
	InvData          = "data"          // no phantom pages; no loss where Mooncake does not lose
	InvRecovers      = "recovers"      // after faults clear, a fresh SGLang initialises unless the config is invalid
	InvDeterministic = "deterministic" // same seed, same trace hash
	InvDivergence    = "divergence"    // engines disagree
)

// Check judges a finished run by the invariants (scenarios.Options.Invariants).
func Check(ctx context.Context, sc *scenarios.Scenario, eng engine.Engine, res *scenarios.Result) (string, string) {
	phases := []struct {
		name  string
		obs   *scenarios.Observed
		steps []scenarios.Step
	}{{"main", &res.Observed, sc.Steps}}
	if res.Remedy != nil && sc.Remedy != nil {
		steps := sc.Remedy.Steps
		if steps == nil {
			steps = sc.Steps
		}
		phases = append(phases, struct {
			name  string
			obs   *scenarios.Observed
			steps []scenarios.Step
		}{"remedy", res.Remedy, steps})
	}
	for _, ph := range phases {
		if why := checkTexts(ph.obs); why != "" {
			return InvTexts, ph.name + ": " + why
		}
		if d := ph.obs.Died; d != nil {
			if _, ok := KnownDeath(d.How(), res.MooncakeVersion); !ok {
				return InvTexts, fmt.Sprintf("%s: the process died (%s: %s), which Mooncake %s is not known to do", ph.name, d.How(), d.Reason, res.MooncakeVersion)
			}
		}
		b := PhaseBound(sc, res.MooncakeVersion, ph.steps)
		if d := time.Duration(ph.obs.DurationMS * float64(time.Millisecond)); d > b {
			return InvPhaseBound, fmt.Sprintf("%s phase took %s, more than the %s Mooncake's timeouts and retries allow", ph.name, d, b)
		}
	}
	if why := checkData(sc, res); why != "" {
		return InvData, why
	}
	if res.Remedy != nil && (res.Remedy.Exception != nil || res.Remedy.Died != nil) && sc.Remedy != nil && clearsFaults(sc) {
		if why := checkRecovery(ctx, sc, eng, res); why != "" {
			return InvRecovers, why
		}
	}
	return "", ""
}

func clearsFaults(sc *scenarios.Scenario) bool {
	return sc.Remedy.ClearFaults == nil || *sc.Remedy.ClearFaults
}

func checkTexts(o *scenarios.Observed) string {
	excs := []*scenarios.Exception{o.Exception}
	for _, c := range o.Calls {
		excs = append(excs, c.Raised)
	}
	for _, e := range excs {
		if e == nil {
			continue
		}
		if _, ok := KnownText(e.Class, mooncake.NormalizeAddresses(e.Message)); !ok {
			return fmt.Sprintf("%s: %q is in no row of the exception table", e.Class, e.Message)
		}
	}
	return ""
}

// Timing facts of Mooncake the bound is built from (docs/REAL-FINDINGS.md,
// Mooncake master_client.h, real_client.cpp, http_metadata_server curl
// options): a refused RPC costs client_pool's reconnects (≈4.3 s), an
// unanswered one the RPC timeouts, curl gives up after 3 s, a transfer
// after 30 s, auto-port attempts pause 100 ms.
const (
	refusedRPC     = 5 * time.Second
	curlTotal      = 3 * time.Second
	transferLimit  = 30 * time.Second
	attemptPause   = 100 * time.Millisecond
	rpcsPerAttempt = 6 // connect/ServiceReady/GetVersion, MountSegment, metadata ops
	setupSlack     = 30 * time.Second
)

// PhaseBound is the longest a phase of these steps may take at this
// version and config: every RPC at its connect + request timeout (or the
// refused-pool cost), every setup attempt Mooncake makes, every transfer
// at its timeout, plus the sleeps and the latency toxics.
func PhaseBound(sc *scenarios.Scenario, version string, steps []scenarios.Step) time.Duration {
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		return time.Hour
	}
	env := map[string]string{}
	for k, v := range sc.Config.Env {
		if v != nil {
			env[k] = *v
		}
	}
	rt, ct := 30*time.Second, 30*time.Second
	if p.RPCTimeoutEnv {
		rt = envMS(env, "MC_RPC_TIMEOUT_MS", rt)
		ct = envMS(env, "MC_RPC_CONNECT_TIMEOUT_MS", ct)
	}
	var lat time.Duration
	for _, f := range sc.Faults {
		lat = max(lat, faults.MaxDelay(f.Fault()))
	}
	rpc := max(rt+ct, refusedRPC) + lat
	attempts := 1
	if p.AutoPortRetry {
		attempts = p.SetupRetries
		v, set := env["MC_STORE_CLIENT_SETUP_RETRIES"]
		if pv := mooncake.ParseKnob(p.Version, "MC_STORE_CLIENT_SETUP_RETRIES", v, set); pv.Read && !pv.Fallback && pv.Int > 0 {
			attempts = int(int32(pv.Int))
		}
	}
	attempt := rpcsPerAttempt*rpc + 4*curlTotal + attemptPause + setupSlack
	var b time.Duration
	for _, s := range steps {
		switch s.Action {
		case scenarios.StepSleep:
			b += s.Sleep.D()
		case scenarios.StepInit:
			// setup attempts, then register/warmup (put + get) and the
			// dummy client's own RPCs.
			b += time.Duration(attempts)*attempt + 8*rpc + 2*transferLimit
		case scenarios.StepSet, scenarios.StepGet, scenarios.StepExists:
			keys := 2 * len(s.Pages)
			b += time.Duration(2+2*keys)*rpc + time.Duration(keys)*transferLimit
		default:
			b += rpc
		}
	}
	return b + time.Second
}

func envMS(env map[string]string, k string, def time.Duration) time.Duration {
	v, ok := env[k]
	if !ok {
		return def
	}
	return time.Duration(mooncake.Atoll(v)) * time.Millisecond // atoll: "2s" is 2 ms, garbage 0
}

// checkData: a page is found (get true, or inside an exists prefix) only
// if a set of it was attempted before; and in a world where nothing can
// lose objects (no fault, each node initialised once, far below the
// eviction watermark), every page set successfully stays found.
func checkData(sc *scenarios.Scenario, res *scenarios.Result) string {
	attempted := map[string]bool{}
	stored := map[string]bool{}
	lossFree := len(sc.Faults) == 0
	inits := map[string]int{}
	for _, s := range sc.Steps {
		if s.Action == scenarios.StepInit {
			inits[s.Node]++
			if inits[s.Node] > 1 {
				lossFree = false // a re-init closes the old client: its segment goes
			}
		}
	}
	if sc.Topology.Master != nil && len(sc.Topology.Master.Flags) > 0 {
		lossFree = false // short leases/TTLs: Mooncake may drop objects
	}
	if len(inits) > 1 {
		// Every node reads the same config, so all share one
		// local_hostname: each resolves the others' transfer endpoint to
		// itself and cross-node transfers fail (-800), as Mooncake's do.
		lossFree = false
	}
	results := res.Observed.Steps
	ri := 0
	for i, s := range sc.Steps {
		if s.Action == scenarios.StepSleep || s.Action == scenarios.StepInit {
			continue
		}
		// Steps that returned something are recorded in order; an
		// exception ends the phase.
		if ri >= len(results) {
			break
		}
		r := results[ri]
		if r.Step != s.String() {
			return ""
		}
		ri++
		switch s.Action {
		case scenarios.StepSet:
			ok, _ := r.Result.([]any)
			for j, k := range s.Pages {
				attempted[k] = true
				if j < len(ok) && ok[j] == true {
					stored[k] = true
				}
			}
		case scenarios.StepGet:
			got, _ := r.Result.([]any)
			for j, k := range s.Pages {
				if j < len(got) {
					if c, bad := got[j].(string); bad {
						return fmt.Sprintf("step %d (%s): page %s: %s", i+1, s, k, c)
					}
				}
				hit := j < len(got) && got[j] == true
				if hit && !attempted[k] {
					return fmt.Sprintf("step %d (%s): page %s read back but never written", i+1, s, k)
				}
				if !hit && lossFree && stored[k] {
					return fmt.Sprintf("step %d (%s): page %s was stored and nothing that loses objects happened, but the get missed", i+1, s, k)
				}
			}
		case scenarios.StepExists:
			n, _ := r.Result.(int64)
			for j := 0; j < int(n) && j < len(s.Pages); j++ {
				if !attempted[s.Pages[j]] {
					return fmt.Sprintf("step %d (%s): page %s exists but was never written", i+1, s, s.Pages[j])
				}
			}
			if lossFree && n >= 0 && int(n) < len(s.Pages) && stored[s.Pages[n]] && res.Observed.Exception == nil {
				// every page up to the first never-stored one must count
				want := 0
				for want < len(s.Pages) && stored[s.Pages[want]] {
					want++
				}
				if int(n) < want {
					return fmt.Sprintf("step %d (%s): %d leading pages stored, batch_exists found %d", i+1, s, want, n)
				}
			}
		}
	}
	return ""
}

// checkRecovery: the remedy (faults cleared, fresh process) failed; that
// is allowed only when the same config fails in a world that never had a
// fault. The baseline runs the first init step alone on the same engine.
func checkRecovery(ctx context.Context, sc *scenarios.Scenario, eng engine.Engine, res *scenarios.Result) string {
	base := *sc
	base.Name = sc.Name + "/baseline"
	base.Faults = nil
	base.Steps = sc.Steps[:1]
	for _, s := range sc.Remedy.Steps {
		if s.Action == scenarios.StepInit {
			base.Steps = []scenarios.Step{s}
			break
		}
	}
	base.Remedy = nil
	ok := true
	base.Expect = scenarios.Expect{OK: &ok}
	base.ByVersion = nil
	if _, ok := knownNonRecovery(res); ok {
		return "" // Mooncake itself keeps the failure after the faults clear
	}
	br := scenarios.RunVersion(ctx, &base, eng, res.MooncakeVersion, scenarios.Options{Seed: res.Seed})
	if br.Verdict != scenarios.Pass {
		return "" // the config fails without faults too: invalid config
	}
	what := ""
	if e := res.Remedy.Exception; e != nil {
		what = fmt.Sprintf("%s: %s", e.Class, e.Message)
	} else {
		what = "process died: " + res.Remedy.Died.How()
	}
	return fmt.Sprintf("after the faults cleared a fresh SGLang process failed (%s), but the same config initialises in a world without faults", what)
}

// knownNonRecovery: failures that outlive their fault in Mooncake itself.
// Only a transfer engine's own freeEngine deletes its rpc_meta key
// (TransferMetadata::removeRpcMetaEntry, transfer_metadata.cpp at every tag;
// the master's cleanup on client timeout exists from v0.3.12 behind
// --enable_metadata_cleanup_on_timeout, default false). The key outlives
// the process when that DELETE fails — it exits while the metadata service
// is unreachable ("Failed to remove location of") — or never runs: the
// SGLang process died, or its MooncakeStore raised during init after setup
// had published the key (SGLang's scheduler then dies without the store's
// destructor; real 0.3.7.post2 and 0.3.9 runs, docs/REAL-FINDINGS.md §21).
// The HTTP metadata server then rejects a new engine at the same
// local_hostname (http_metadata_server.cpp / .py: an existing rpc_meta key
// → 400 "Duplicate rpc_meta key not allowed"; from v0.3.12 only an
// identical value passes, and a new engine's RPC port differs) until
// someone deletes the key.
//
// The opposite loss: a master restarted with its embedded metadata server
// forgets every rpc_meta key, and before v0.3.12 nothing writes them again
// (the remount restores the master's side only; client_service.cpp), so a
// process that had not yet read its own location fails every transfer
// (getRpcMetaEntry: "GET …rpc_meta… http=404", "Failed to find location
// of"; real 0.3.8.post1 standalone, explore seed 31222) for as long as it
// lives.
func knownNonRecovery(res *scenarios.Result) (string, bool) {
	if memcpyFromPeer(res) {
		return "memcpy from another process's replica", true
	}
	if res.Remedy.Exception == nil {
		return "", false
	}
	if lostRPCMeta(res) {
		return "rpc_meta lost with the master", true
	}
	if !leftRPCMeta(res.Observed) {
		return "", false
	}
	for _, l := range res.Remedy.Logs {
		if strings.Contains(l, "Duplicate rpc_meta key") || strings.Contains(l, "Failed to set location of") {
			return "stale rpc_meta key", true
		}
	}
	return "", false
}

// memcpyFromPeer: the remedy's process died reading another live
// process's replica by memcpy (0.3.10.x compares only the IP,
// docs/REAL-FINDINGS.md §83): the other process, not the fault, is the
// cause, and the baseline (one process alone) cannot show it.
func memcpyFromPeer(res *scenarios.Result) bool {
	p, err := mooncake.ProfileFor(res.MooncakeVersion)
	d := res.Remedy.Died
	return err == nil && p.LocalTransferIPOnly && d != nil && d.Signal == "SIGSEGV" && strings.Contains(d.Reason, "MemcpyWorkerPool")
}

// lostRPCMeta: the remedy's transfers found no rpc_meta key on a version
// whose remount does not re-publish it (see knownNonRecovery).
func lostRPCMeta(res *scenarios.Result) bool {
	p, err := mooncake.ProfileFor(res.MooncakeVersion)
	if err != nil || p.RemountRepublish {
		return false
	}
	missing := false
	for _, l := range res.Remedy.Logs {
		if strings.Contains(l, "rpc_meta") && strings.Contains(l, "http=404") {
			missing = true
		}
		if missing && strings.Contains(l, "Failed to find location of") {
			return true
		}
	}
	return false
}

// leftRPCMeta: the main phase ended with a published rpc_meta key that its
// process did not delete (see knownNonRecovery): the DELETE failed, or the
// transfer engine had published the key and an init step then raised or
// died (a scheduler that raises in init dies; one that raises later was
// started and is closed before the remedy). The key is published when
// setup returns 0, and also when setup fails mounting its segment: the
// mount comes after the transfer engine's install (seed 41528, real
// 0.3.12.post1 and 0.3.13.post1: MountSegment cut by limit_data, setup
// -900, the remedy's PUT of the key refused as a duplicate).
func leftRPCMeta(o scenarios.Observed) bool {
	mountFailed := false
	for _, l := range o.Logs {
		if strings.Contains(l, "Failed to remove location of") {
			return true
		}
		mountFailed = mountFailed || strings.Contains(l, "Failed to mount segment")
	}
	if (o.Exception == nil && o.Died == nil) || !strings.HasPrefix(o.EndedIn, scenarios.StepInit+" ") {
		return false
	}
	if mountFailed {
		return true
	}
	for _, c := range o.Calls {
		if c.Method == "setup" && c.Raised == nil && c.Code == 0 {
			return true
		}
	}
	return false
}
