package te

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/netip"
	"slices"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// v0.3.12's RDMA worker pool (Profile.RDMAWorkerPool RDMAPoolRails): rail
// failover instead of the error counters of the releases before it.

// railState is WorkerPool's state of one peer NIC path, its rail
// (worker_pool.h v0.3.12.post1:71-76).
type railState struct {
	errors      int
	pausedUntil time.Duration // 0: not paused
}

// railErrorThreshold is kRailErrorThreshold (worker_pool.h
// v0.3.12.post1:168): errors before a rail is paused.
const railErrorThreshold = 5

// railAvailable is isRailAvailable (worker_pool.cpp v0.3.12.post1:
// 1320-1334): a pause that has run out is cleared on the look.
func (cx *rdmaContext) railAvailable(now time.Duration, path string) bool {
	st := cx.rails[path]
	if st == nil || st.pausedUntil == 0 {
		return true
	}
	if now >= st.pausedUntil {
		st.errors, st.pausedUntil = 0, 0
		return true
	}
	return false
}

// pauseRail is markRailFailed(path, immediate_pause=true)
// (worker_pool.cpp v0.3.12.post1:1301-1318): the rail is paused for
// MC_RDMA_RAIL_PAUSE_SECONDS at once.
func (e *Engine) pauseRail(now time.Duration, cx *rdmaContext, path string) {
	if cx.rails == nil {
		cx.rails = map[string]*railState{}
	}
	st := cx.rails[path]
	if st == nil {
		st = &railState{}
		cx.rails[path] = st
	}
	st.errors = max(st.errors+1, railErrorThreshold)
	pause := e.railPause()
	st.pausedUntil = now + pause
	e.logf(mlog.Warning, "Rail paused: peer=%s error_count=%d pause_ms=%d", path, st.errors, pause.Milliseconds())
}

// railPause is globalConfig().rdma_rail_pause_seconds:
// MC_RDMA_RAIL_PAUSE_SECONDS, default 30 (config.cpp v0.3.12.post1:371-391).
func (e *Engine) railPause() time.Duration {
	v, set := e.env("MC_RDMA_RAIL_PAUSE_SECONDS")
	if !set {
		return 30 * time.Second
	}
	return time.Duration(mooncake.ParseKnob(e.cfg.Profile.Version, "MC_RDMA_RAIL_PAUSE_SECONDS", v, set).Int) * time.Second
}

// connPauseTTL is globalConfig().conn_pause_ttl_ms: MC_CONN_PAUSE_TTL_MS,
// default 0, off (config.h v0.3.12.post1:81, config.cpp :415-440).
func (e *Engine) connPauseTTL() time.Duration {
	v, set := e.env("MC_CONN_PAUSE_TTL_MS")
	if !set {
		return 0
	}
	return time.Duration(mooncake.ParseKnob(e.cfg.Profile.Version, "MC_CONN_PAUSE_TTL_MS", v, set).Int) * time.Millisecond
}

// deleteEndpoint is RdmaContext::deleteEndpointByPtr (rdma_context.cpp
// v0.3.12.post1:727-742): the endpoint goes, and with MC_CONN_PAUSE_TTL_MS
// set the peer's server is not connected to again for that long
// (pauseConnect, :744-751).
func (e *Engine) deleteEndpoint(now time.Duration, cx *rdmaContext, peer, path string) {
	delete(cx.endpoints, path)
	if ttl := e.connPauseTTL(); ttl > 0 {
		if cx.connPaused == nil {
			cx.connPaused = map[string]time.Duration{}
		}
		cx.connPaused[peer] = now + ttl
	}
}

// contextRecoveryDelay is kContextRecoveryDelayNs (worker_pool.h
// v0.3.12.post1:169): how long after a port came back its context is
// used again.
const contextRecoveryDelay = 30 * time.Second

// railsPortEvents is v0.3.12's handleContextEvent for the port events not
// handled yet (worker_pool.cpp v0.3.12.post1:986-1050): a port error makes
// the context inactive and drops its endpoints; a port active schedules
// the recovery probe 30 s on, which the monitor runs
// (maybeActivateRecoveredContext, :1052-1085): the GID read again
// (unchanged: the model's GIDs do not move), the context active. The
// model runs the probe at the first transfer past its time.
func (e *Engine) railsPortEvents(now time.Duration, cx *rdmaContext, dev string) {
	for _, ev := range e.cfg.Host.RDMAFaults.eventsFrom(e.portSeen) {
		e.portSeen++
		if ev.down {
			e.logf(mlog.Warning, "Worker: Received context async event port error for context %s", dev)
			cx.inactive, cx.recoverAt = true, 0
			clear(cx.endpoints)
			// The event type as a number: IBV_EVENT_PORT_ERR.
			e.logf(mlog.Info, "Worker: Context %s is now inactive due to fatal event: 10", dev)
			continue
		}
		e.logf(mlog.Warning, "Worker: Received context async event port active for context %s", dev)
		cx.recoverAt = ev.at + contextRecoveryDelay
		e.logf(mlog.Info, "Worker: Context %s scheduled recovery probe after %d seconds", dev, int(contextRecoveryDelay/time.Second))
	}
	if cx.recoverAt != 0 && now >= cx.recoverAt {
		cx.recoverAt = 0
		e.logf(mlog.Info, "Worker: received GID change event for %s, current GID is unchanged", dev)
		cx.inactive, cx.failedPolls = false, 0
		e.logf(mlog.Info, "Worker: Context %s is now active after recovery delay", dev)
	}
}

// peerPaths are the peer segment's NIC paths in its device order; a
// loopback or unknown peer: the local NIC (peerNICAt).
func (e *Engine) peerPaths(peer string, devs []engine.RDMADevice, cx *rdmaContext) []string {
	if len(devs) == 0 {
		return []string{peer + "@" + cx.dev.Name}
	}
	out := make([]string, len(devs))
	for i, d := range devs {
		out[i] = peer + "@" + d.Name
	}
	return out
}

// rdmaRails is a transfer through v0.3.12's worker pool. Each round is one
// performPostSend and performPollCq pass (worker_pool.cpp
// v0.3.12.post1:328-521, :523-672) over the slices queued for each peer
// NIC path.
//
// performPostSend: a paused rail's slices fail the round (:407-419), as
// do a paused peer's (MC_CONN_PAUSE_TTL_MS after an endpoint of it was
// deleted) and those whose new endpoint's ibv_create_qp fails (:424-430);
// an endpoint not connected hand-shakes with the peer first. Off the peer
// NIC's subnet the peer's RTR fails after 1 s (rtrResolveTimeout; no
// auto-GID retry: that is for EINVAL only, rdma_gid_probe.h:206-211), its
// callback's reply_msg goes back in a structured reply (transfer_metadata.cpp
// v0.3.12.post1:1408-1425), and the active side logs "Rejected handshake
// request by peer <path>" (rdma_endpoint.cpp :513-518); the worker warns
// that it cannot make the connection and, when another peer rail is
// available, pauses this one (:431-466). Its slices go round again.
//
// performPollCq: the first failed completion is logged with its
// max_retry_cnt (:606-616). A local status (isLocalWcFailure) makes
// handleLocalFailure count a context failure, retire the endpoint and warn
// "Local-side RDMA failure detected on context <dev>, peer=<peer nic>"
// (:1370-1386), once per pass; its slice goes to redispatch's local
// handoff (:699-711), which with no other local RNIC
// (tryHandoffToAnotherLocalWorker, :812-818) fails it at once. A remote or
// other status keeps the context (:628-637): the rail is paused when
// another is available, the endpoint deleted, and the slice goes round
// again. The rest of the QP's chain is flushed without a line and goes
// round again too (:562-596). A pass with no success leaves the failure
// count; at 32 markContextFailure marks the context inactive
// (worker_pool.h v0.3.12.post1:113-127) and submitTransferTask then finds
// no active device for the source buffer (rdma_transport.cpp
// v0.3.12.post1:634-660). Only a port-active event's recovery probe
// re-activates it (railsPortEvents).
//
// Going round again is shouldRetrySlice (retry_cnt+1, up to
// max_retry_cnt) and redispatch (:714-790): the peer NIC the retry count
// selects (peerNICAt), or, when its rail is paused, the first other one
// that is not.
func (e *Engine) rdmaRails(ctx context.Context, clock engine.Clock, cx *rdmaContext, ci int, write bool, src, dst uint64, length int64, peer string, peerDevs []engine.RDMADevice) RDMAOutcome {
	dev := cx.dev.Name
	if cx.inactive {
		return RDMANoActiveDevice
	}
	opcode := 0
	if write {
		opcode = 1
	}
	maxRetry := e.rdmaMaxRetry()
	paths := e.peerPaths(peer, peerDevs, cx)
	// peerSubnet is the subnet of the peer NIC at path; ok false for a
	// loopback or unknown peer, which the local NIC always reaches.
	peerSubnet := func(path string) (string, bool) {
		if i := slices.Index(paths, path); i >= 0 && len(peerDevs) > 0 {
			return peerDevs[i].Subnet, true
		}
		return "", false
	}
	reachable := func(path string) bool {
		sub, ok := peerSubnet(path)
		return !ok || sub == cx.dev.Subnet
	}
	// hasAlternative is hasAvailablePeerRailAlternative (:1088-1120).
	hasAlternative := func(failed string) bool {
		for _, p := range paths {
			if p != failed && cx.railAvailable(clock.Now(), p) {
				return true
			}
		}
		return false
	}
	failed := false
	// again is shouldRetrySlice, then redispatch: false when the slice
	// failed for good.
	again := func(s *rdmaSlice) bool {
		s.retry++
		if s.retry >= maxRetry {
			failed = true
			return false
		}
		path, _ := e.peerNICAt(peer, peerDevs, ci, s.retry)
		if !cx.railAvailable(clock.Now(), path) {
			// The first other rail not paused. One is: this pool pauses a
			// rail only when another is available, and the model's
			// transfers do not overlap ("Cannot redispatch slice because
			// all peer rails are paused" needs concurrent ones).
			for _, p := range paths {
				if p != path && cx.railAvailable(clock.Now(), p) {
					path = p
					break
				}
			}
		}
		s.nic = path
		return true
	}
	pending := rdmaSlices(length)
	first, _ := e.peerNICAt(peer, peerDevs, ci, 0)
	for _, s := range pending {
		s.nic = first
	}
	if cx.endpoints == nil {
		cx.endpoints = map[string]*rdmaEndpoint{}
	}
	for len(pending) > 0 && !cx.inactive {
		var next []*rdmaSlice
		succeeded := false
		for _, group := range byPeerNIC(pending) {
			path := group[0].nic
			if !cx.railAvailable(clock.Now(), path) || clock.Now() < cx.connPaused[peer] {
				for _, s := range group {
					if again(s) {
						next = append(next, s)
					}
				}
				continue
			}
			if cx.endpoints[path] == nil && (cx.dev.NoRC || !e.cfg.Host.RDMAFaults.createQP()) {
				// RdmaContext::endpoint → insertEndpoint → construct: the
				// first ibv_create_qp fails (PLOG), the endpoint is dropped
				// (its unset QPs skipped, rdma_endpoint.cpp
				// v0.3.12.post1:111-149, :191-230) and the slices go round
				// again (worker_pool.cpp :424-430).
				errno := faults.MustErrno("ENOMEM")
				if cx.dev.NoRC {
					errno = faults.MustErrno("EOPNOTSUPP")
				}
				e.logf(mlog.Error, "Failed to create QP: %s", errno.PLOG())
				for _, s := range group {
					if again(s) {
						next = append(next, s)
					}
				}
				continue
			}
			if cx.endpoints[path] == nil && !reachable(path) {
				if err := clock.Sleep(ctx, rtrResolveTimeout); err != nil {
					return RDMAFailed
				}
				if e.peerLog != nil {
					sub, _ := peerSubnet(path)
					e.peerLog.Log(mlog.Error, railsRTRLine(path, sub, e.serverName+"@"+dev, cx.dev.Subnet))
				}
				e.logf(mlog.Error, "Rejected handshake request by peer %s", path)
				reason := ", no alternate peer RNIC is available; retrying without pausing peer rail"
				alt := hasAlternative(path)
				if alt {
					reason = ", pausing peer rail and retrying through an alternate peer RNIC"
				}
				e.logf(mlog.Warning, "Worker: Cannot make connection for endpoint: %s%s", path, reason)
				if alt {
					e.pauseRail(clock.Now(), cx, path)
				}
				e.deleteEndpoint(clock.Now(), cx, peer, path)
				for _, s := range group {
					if again(s) {
						next = append(next, s)
					}
				}
				continue
			}
			cx.endpoints[path] = &rdmaEndpoint{}
			errored := false
			for _, s := range group {
				if errored {
					// Flushed (IBV_WC_WR_FLUSH_ERR, a line only with
					// MC_TRACE); one out of retries counts as processed.
					if again(s) {
						next = append(next, s)
					} else {
						succeeded = true
					}
					continue
				}
				st, ok := e.cfg.Host.RDMAFaults.complete()
				if ok {
					succeeded = true
					continue
				}
				errored = true
				if completionWait(ctx, clock, st) != nil {
					return RDMAFailed
				}
				e.logf(mlog.Error, "Worker: Process failed for slice (opcode: %d, source_addr: %#x, length: %d, dest_addr: %#x, local_nic: %s, peer_nic: %s, dest_rkey: %d, retry_cnt: %d, max_retry_cnt: %d): %s",
					opcode, src+uint64(s.off), s.n, dst+uint64(s.off), dev, path, rdmaRKey(dst), s.retry, maxRetry, st.Text)
				if !localWCFailure(st) {
					if hasAlternative(path) {
						e.pauseRail(clock.Now(), cx, path)
					}
					e.deleteEndpoint(clock.Now(), cx, peer, path)
					if again(s) {
						next = append(next, s)
					}
					continue
				}
				e.deleteEndpoint(clock.Now(), cx, peer, path)
				cx.failedPolls++
				if cx.failedPolls >= rdmaContextFailureThreshold {
					e.logf(mlog.Warning, "All rails failed for context %s for %d consecutive attempts, marking inactive", dev, cx.failedPolls)
					cx.inactive = true
				}
				e.logf(mlog.Warning, "Local-side RDMA failure detected on context %s, peer=%s", dev, path)
				// The local handoff finds no other local RNIC: failed.
				failed = true
			}
		}
		if succeeded {
			// markContextSuccess: a pass that counted a slice processed
			// (a success, or a flushed slice out of retries) clears the
			// count (:654-665).
			cx.failedPolls = 0
		}
		pending = next
	}
	if len(pending) > 0 {
		// The context went inactive: performPostSend's local handoff
		// fails the slices still queued.
		failed = true
	}
	if failed {
		return RDMAFailed
	}
	return RDMADone
}

// byPeerNIC groups slices by the peer NIC path they are queued for, in
// the order of their first slice (performPostSend's slice queue).
func byPeerNIC(slices []*rdmaSlice) [][]*rdmaSlice {
	var out [][]*rdmaSlice
	at := map[string]int{}
	for _, s := range slices {
		i, ok := at[s.nic]
		if !ok {
			i = len(out)
			at[s.nic] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	return out
}

// railsRTRLine is v0.3.12's passive side's failed INIT→RTR (rdma_endpoint.cpp
// v0.3.12.post1:1190-1208, LOG with strerror): local is the peer's NIC
// path, peer the initiator's. The QP numbers, GIDs and MTU are the model's
// stand-ins, as its rkeys are: one QP per endpoint numbered from the NIC
// path, GID index 3 holding the RoCE v2 GID of the subnet's first host
// address, IBV_MTU_4096.
func railsRTRLine(local, localSubnet, peer, peerSubnet string) string {
	return fmt.Sprintf("[Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: local=%s, peer=%s, qp_index=0, local_qp=%d, peer_qp=%d, local_gid=%s, local_gid_index=3, peer_gid=%s, peer_lid=0, path_mtu=5, port_num=1: Connection timed out",
		local, peer, standInQP(local), standInQP(peer), standInGID(localSubnet), standInGID(peerSubnet))
}

// standInQP is a QP number for the NIC path (FNV-1a, in the 24 bits a QP
// number has).
func standInQP(path string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(path))
	return h.Sum32()&0xffff | 0x100
}

// standInGID is the RoCE v2 GID (::ffff:a.b.c.d, as gidToString prints
// it) of the subnet's first host address; the default subnet's: 10.0.0.1.
func standInGID(subnet string) string {
	ip := netip.MustParseAddr("10.0.0.1")
	if p, err := netip.ParsePrefix(subnet); err == nil && p.Addr().Is4() {
		ip = p.Masked().Addr().Next()
	}
	b := ip.As4()
	return fmt.Sprintf("00:00:00:00:00:00:00:00:00:00:ff:ff:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3])
}
