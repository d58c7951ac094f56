package client

import (
	"strings"

	"github.com/mooncake-faultlab/faultlab/models/master"
)

// ownEndpoint reports whether replica r lives in this process: its
// transport endpoint is this engine's or this client's local_hostname.
func (c *RealClient) ownEndpoint(r master.Replica) bool {
	return sameProcessEndpoint(r.TEEndpoint, c.te.ServerName(), c.hostname)
}

// isLocalTransfer is TransferSubmitter::isLocalTransfer for a replica at
// endpoint: this process's own endpoint (local, the engine's
// getLocalIpAndPort, or its local_hostname), or where the release
// compares IPs only (Profile.LocalTransferIPOnly, transfer_task.cpp
// v0.3.10 … v0.3.10.post2) any endpoint of the same host, whatever its
// port.
func isLocalTransfer(ipOnly bool, endpoint, local, hostname string) bool {
	return sameProcessEndpoint(endpoint, local, hostname) || ipOnly && sameIP(endpoint, local)
}

// sameProcessEndpoint: endpoint is local's or hostname's, whole.
func sameProcessEndpoint(endpoint, local, hostname string) bool {
	return endpoint != "" && (endpoint == local || endpoint == hostname)
}

// sameIP: the two endpoints' extractIpAddress agree (and are not empty).
func sameIP(endpoint, local string) bool {
	ip := extractIPAddress(local)
	return endpoint != "" && ip != "" && extractIPAddress(endpoint) == ip
}

// memcpyCrossProcess reports whether the store memcpys replica r although
// another process on this host holds it: its buffer address is that
// process's, and the copy in MemcpyWorkerPool::workerThread faults (real
// 0.3.10.post1 with MC_STORE_MEMCPY=1 and 0.3.10.post2 unset: the reader
// dies with SIGSEGV before any line; docs/REAL-FINDINGS.md §83).
func (c *RealClient) memcpyCrossProcess(r master.Replica) bool {
	return !c.ownEndpoint(r) && c.localMemcpy(r)
}

// memcpyCrossProcessDied marks the process dead by memcpyCrossProcess.
func (c *RealClient) memcpyCrossProcessDied(r master.Replica) {
	c.died = segfault("Segmentation fault in MemcpyWorkerPool::workerThread: memcpy from " + r.TEEndpoint + "'s buffer address, another process's")
}

// extractIPAddress is transfer_task.cpp's extractIpAddress: "[v6]:port" →
// v6 ("" when the bracket is not closed), "host:port" → host (the last
// colon), anything else as it is.
func extractIPAddress(endpoint string) string {
	if strings.HasPrefix(endpoint, "[") {
		i := strings.Index(endpoint, "]")
		if i < 0 {
			return ""
		}
		return endpoint[1:i]
	}
	if i := strings.LastIndex(endpoint, ":"); i >= 0 {
		return endpoint[:i]
	}
	return endpoint
}
