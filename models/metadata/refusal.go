package metadata

import (
	"fmt"
	"net"
	"strings"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// AllowInsecureEnv keeps 0.3.14's server open on an address that is not
// the loopback, without a token (http_metadata_server.py, #4444).
const AllowInsecureEnv = "MC_METADATA_HTTP_ALLOW_INSECURE"

// StartRefusal is the exception the wheel's Python server of the release
// with profile p raises at start on host:port with env, "" when it
// starts. From 0.3.14 KVBootstrapServer.run() refuses a host that is not
// the loopback ("localhost" or a loopback IP; 0.0.0.0, its default, is
// not) unless MC_METADATA_HTTP_TOKEN is set (non-empty) or
// MC_METADATA_HTTP_ALLOW_INSECURE is 1, true or yes (any case); the
// process exits 1 with this RuntimeError as its traceback's last line
// (real 0.3.14, docs/REAL-FINDINGS.md §106, §126).
func StartRefusal(p mooncake.Profile, host string, port int, env map[string]string) string {
	if !p.MetadataHTTPToken || env[TokenEnv] != "" || loopback(host) {
		return ""
	}
	switch strings.ToLower(env[AllowInsecureEnv]) {
	case "1", "true", "yes":
		return ""
	}
	return fmt.Sprintf("RuntimeError: HTTP Metadata Server refuses to bind %s:%d without an authentication token: "+
		"anyone who can reach this port could read and rewrite cluster metadata. Set MC_METADATA_HTTP_TOKEN here "+
		"and on every engine, bind a loopback address, or export MC_METADATA_HTTP_ALLOW_INSECURE=1 to keep the "+
		"legacy open behavior.", host, port)
}

// StartLines are the lines the server of the release with profile p
// prints when it refuses to start on host:port with env (its traceback's
// head and last line), nil when it starts. host "" is the loopback the
// engines bind it to.
func StartLines(p mooncake.Profile, host string, port int, env map[string]string) []string {
	if host == "" {
		host = "127.0.0.1"
	}
	if line := StartRefusal(p, host, port, env); line != "" {
		return []string{"Traceback (most recent call last):", line}
	}
	return nil
}

// loopback is http_metadata_server.py's _is_loopback: "localhost" or an
// IP literal in the loopback range (a name is not resolved).
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
