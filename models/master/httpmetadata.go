package master

import (
	"fmt"
	"strconv"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// metadataBindCheckedFrom is the first release whose
// HttpMetadataServer::start() reads the future async_start() hands back,
// already resolved when the bind failed (#2942, f05492d62;
// http_metadata_server.cpp v0.3.12.post1:115-124). Up to 0.3.11.post1 the
// result is ignored (v0.3.11.post1:107-109) and the server counts as
// running.
const metadataBindCheckedFrom = "0.3.12"

// CheckFailureTrace is what glog writes to stderr before it aborts the
// process after a LOG(FATAL) (real 0.3.12.post1 … 0.3.14, REAL-FINDINGS
// §90).
const CheckFailureTrace = "*** Check failure stack trace: ***"

// MetadataStart is what mooncake_master's main() makes of its embedded
// HTTP metadata server's start (--enable_http_metadata_server).
type MetadataStart int

const (
	// MetadataServes: the server listens; the master serves on.
	MetadataServes MetadataStart = iota
	// MetadataAborts: the bind failed and start() said so: main()'s
	// LOG(FATAL) aborts the master (SIGABRT) before its RPC server starts.
	MetadataAborts
	// MetadataUnchecked: the bind failed unseen: the master serves on,
	// and whatever holds the port answers the metadata URL.
	MetadataUnchecked
)

// MetadataBindChecked reports whether mooncake_master of release p
// notices a failed bind of its embedded HTTP metadata server (0.3.12+).
func MetadataBindChecked(p mooncake.Profile) bool {
	return p.Version.AtLeast(metadataBindCheckedFrom)
}

// MetadataBindChecked is MetadataBindChecked at the release of c.
func (c Config) MetadataBindChecked() bool { return MetadataBindChecked(c.Version) }

// StartHTTPMetadata plays main()'s StartHttpMetadataServer and the check
// after it (master.cpp v0.3.12.post1:1224-1245, 1441-1454; 3b5a594
// 1373-1393, 1604-1613) on port, which another process holds when taken:
// the lines a taken port makes it print, and how the start ends. The
// lines name --http_metadata_server_host as given, whatever it binds. A
// start on a free port prints nothing here (its INFO lines are not
// modelled).
func StartHTTPMetadata(cfg Config, port int, taken bool, log mlog.Logger) MetadataStart {
	if !taken {
		return MetadataServes
	}
	if log == nil {
		log = mlog.Discard{}
	}
	at := cfg.HTTPMetadataHost + ":" + strconv.Itoa(port)
	log.Log(mlog.Info, "Starting C++ HTTP metadata server on "+at)
	if !cfg.MetadataBindChecked() {
		log.Log(mlog.Info, "HTTP metadata server started on "+at)
		log.Log(mlog.Info, "C++ HTTP metadata server started successfully")
		return MetadataUnchecked
	}
	log.Log(mlog.Error, "Failed to start HTTP metadata server on "+at)
	log.Log(mlog.Error, "Failed to start C++ HTTP metadata server")
	log.Log(mlog.Fatal, "Failed to start HTTP metadata server")
	// glog's abort after a FATAL line (not a glog line: the real engine
	// records it at INFO).
	log.Log(mlog.Info, CheckFailureTrace)
	return MetadataAborts
}

// String names a start's end for messages.
func (s MetadataStart) String() string {
	switch s {
	case MetadataServes:
		return "serves"
	case MetadataAborts:
		return "aborts"
	case MetadataUnchecked:
		return "unchecked"
	}
	return fmt.Sprintf("MetadataStart(%d)", int(s))
}
