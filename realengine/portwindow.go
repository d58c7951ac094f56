package realengine

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/netport"
)

// portWindowEnv is env, the environment of a process that runs a transfer
// engine (an SGLang or integration driver, mooncake_client, the bench),
// with a port window of its own (netport.TakeWindow) in the variables the
// release reads for findAvailableTcpPort's range: its RPC port and its TCP
// transport's are then no other process's, in this world or another
// running beside it — no bind race (Mooncake#601) and no departed peer's
// port bound by a neighbour. Every start takes a fresh window, held until
// the world closes, so a restarted process never draws a port a stale
// segment still names either.
//
// env is returned as it is when the release reads no such variable (up to
// 0.3.6.post1: 15000..17000 fixed; scenarios.interference is the backstop
// there), when env names one already (the scenario's own range, kept), in
// a container world (each party has its own network namespace), or when
// every window is claimed (logged).
func (w *World) portWindowEnv(env []string) []string {
	if w.ctr != nil {
		return env
	}
	lo, hi, ok := windowNames(w.spec.Version, env)
	if !ok {
		return env
	}
	win, err := netport.TakeWindow()
	if err != nil {
		w.log.Warn("real engine: no port window: the transfer engine draws from Mooncake's default range", "err", err)
		return env
	}
	w.mu.Lock()
	w.windows = append(w.windows, win)
	w.mu.Unlock()
	w.log.Debug("real engine: port window", lo, win.Lo, hi, win.Hi)
	return withWindow(env, lo, hi, win.Lo, win.Hi)
}

// windowNames are the variables version reads for the transfer engine's
// port range, ok = false when it reads none or env sets any name a release
// reads (MC_MIN_PRC_PORT too at 0.3.11+, its fallback).
func windowNames(version string, env []string) (lo, hi string, ok bool) {
	v, err := mooncake.ParseVersion(version)
	if err != nil {
		return "", "", false
	}
	lo, hi = mooncake.RPCPortRangeEnv(v)
	if lo == "" {
		return "", "", false
	}
	if slices.ContainsFunc(env, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(mooncake.RPCPortRangeNames, k)
	}) {
		return "", "", false
	}
	return lo, hi, true
}

// withWindow is env with loName=first and hiName=last.
func withWindow(env []string, loName, hiName string, first, last int) []string {
	return append(slices.Clip(env), loName+"="+strconv.Itoa(first), hiName+"="+strconv.Itoa(last))
}

// releaseWindows gives the world's windows back (Close, once its
// processes are gone).
func (w *World) releaseWindows() {
	w.mu.Lock()
	wins := w.windows
	w.windows = nil
	w.mu.Unlock()
	for _, win := range wins {
		win.Release()
	}
}
