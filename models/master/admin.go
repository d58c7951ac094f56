package master

import (
	"fmt"
	"strconv"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// adminBindCheckedFrom is the first release whose main() stops when its
// admin HTTP server (--metrics_port: metrics, health) cannot bind: real
// 0.3.10.post2 … 0.3.14 exit 1, 0.3.7.post2 … 0.3.10.post1 serve on
// (docs/REAL-FINDINGS.md §135; MasterAdminServer::Start, rpc_service.cpp
// v0.3.11:225-238 and master.cpp v0.3.11:1100-1106; up to v0.3.10.post1
// rpc_service.cpp ignores async_start's result, v0.3.9:250).
const adminBindCheckedFrom = "0.3.10.post2"

// adminErrorTextFrom: from 0.3.13 the failed start names the host
// (--metrics_host, 0.3.13+) and the bind's error (master_admin_service.cpp
// 3b5a594:267-271; real 0.3.13.post1, 0.3.14).
const adminErrorTextFrom = "0.3.13"

// AdminStart is how mooncake_master's admin HTTP server started.
type AdminStart int

const (
	// AdminServes: the server listens; the master serves on.
	AdminServes AdminStart = iota
	// AdminExits: the bind failed and main() returned 1 before its RPC
	// server started: nothing listens.
	AdminExits
	// AdminUnchecked: the bind failed unseen: the master serves its RPCs
	// and whatever holds the port answers its metrics URL.
	AdminUnchecked
)

// StartAdmin plays main()'s start of the admin HTTP server on port, which
// another process holds when taken: the lines a taken port makes it
// print, and how the start ends. A start on a free port prints nothing
// here (its INFO line is not modelled).
func StartAdmin(cfg Config, port int, taken bool, log mlog.Logger) AdminStart {
	if !taken {
		return AdminServes
	}
	if log == nil {
		log = mlog.Discard{}
	}
	p := strconv.Itoa(port)
	v := cfg.Version.Version
	if !v.AtLeast(adminBindCheckedFrom) {
		// yalantinglibs' coro_http_server logs the failed bind through
		// its easylog (coro_http_server.hpp), then main() carries on.
		log.Log(mlog.Error, "bind port: "+p+" error: Address already in use")
		log.Log(mlog.Info, "HTTP metrics server started on port "+p)
		return AdminUnchecked
	}
	if v.AtLeast(adminErrorTextFrom) {
		log.Log(mlog.Error, "Failed to start master admin server on "+cfg.MetricsHost+":"+p+": Address already in use")
	} else {
		log.Log(mlog.Error, "Failed to start master admin server on port "+p)
	}
	log.Log(mlog.Error, "Failed to start master admin server")
	return AdminExits
}

// String names a start's end for messages.
func (s AdminStart) String() string {
	switch s {
	case AdminServes:
		return "serves"
	case AdminExits:
		return "exits"
	case AdminUnchecked:
		return "unchecked"
	}
	return fmt.Sprintf("AdminStart(%d)", int(s))
}
