package master

import (
	"fmt"
	"strings"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// The environment mooncake_master reads (from 0.3.12) to find a separately
// deployed HTTP metadata server for --enable_metadata_cleanup_on_timeout
// (master.cpp v0.3.12.post1:67-108 ResolveMetadataServerForCleanup).
const (
	metadataServerEnv = "MOONCAKE_TE_META_DATA_SERVER"
	configPathEnv     = "MOONCAKE_CONFIG_PATH"
)

// metadataCleanupFrom is the first release with
// --enable_metadata_cleanup_on_timeout (an unknown flag before: gflags
// exits).
const metadataCleanupFrom = "0.3.12"

// CleanupEnv is what main() reads to resolve the cleanup's metadata
// server: the two variables, "" when unset (an empty one is skipped as an
// unset one is).
type CleanupEnv struct {
	MetadataServer string
	ConfigPath     string
}

// WithEnv is cfg with what mooncake_master reads from its environment
// env: MC_RPC_PROTOCOL (RPCProtocol) and the cleanup's variables.
// httpMetadata is whether the engine runs the master's own HTTP metadata
// server (topology metadata: master: --enable_http_metadata_server=true).
func WithEnv(cfg Config, p mooncake.Profile, env map[string]string, httpMetadata bool) Config {
	cfg.RPCProtocol = RPCProtocol(p, env)
	cfg.CleanupEnv = CleanupEnv{MetadataServer: env[metadataServerEnv], ConfigPath: env[configPathEnv]}
	cfg.EnableHTTPMetadataServer = cfg.EnableHTTPMetadataServer || httpMetadata
	return cfg
}

// logMetadataCleanup is main()'s check before "Master service started"
// (master.cpp v0.3.12.post1:1332-1363, 3b5a594:1488-1519): with
// --enable_metadata_cleanup_on_timeout and no embedded HTTP metadata
// server, the address comes from MOONCAKE_TE_META_DATA_SERVER (unless
// empty or P2PHANDSHAKE), else from MOONCAKE_CONFIG_PATH's JSON
// "metadata_server"; anything but http(s):// disables the cleanup with a
// WARNING. The model's master has no file system: a MOONCAKE_CONFIG_PATH
// given to it names no file (the harness writes SGLang's config file only),
// so reading it is the WARNING "Cannot open …" (std::ifstream fails).
func (m *Master) logMetadataCleanup() {
	c := m.cfg
	if !c.EnableMetadataCleanupOnTimeout || c.EnableHTTPMetadataServer {
		return
	}
	derived := ""
	if s := c.CleanupEnv.MetadataServer; s != "" && s != "P2PHANDSHAKE" {
		derived = s
	} else if p := c.CleanupEnv.ConfigPath; p != "" {
		m.log.Log(mlog.Warning, fmt.Sprintf("Cannot open MOONCAKE_CONFIG_PATH (%s): file does not exist or is not readable", p))
	}
	if strings.HasPrefix(derived, "http://") || strings.HasPrefix(derived, "https://") {
		m.log.Log(mlog.Info, "enable_metadata_cleanup_on_timeout: HTTP metadata server is deployed separately; cleanup will target "+derived)
		return
	}
	m.log.Log(mlog.Warning, "enable_metadata_cleanup_on_timeout is set to true but enable_http_metadata_server is false and no HTTP metadata server address could be derived from the cluster config (set MOONCAKE_TE_META_DATA_SERVER=http://host:port/metadata or MOONCAKE_CONFIG_PATH). Disabling metadata cleanup on timeout.")
	m.cfg.EnableMetadataCleanupOnTimeout = false
}
