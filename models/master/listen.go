package master

import (
	"net/netip"
	"strings"
)

// RPCListens says which address families mooncake_master's RPC listener
// accepts, given --rpc_address (Config.RPCAddress) at the master's
// release. The address goes unparsed to coro_rpc_server (master.cpp
// v0.3.8.post1:560-564, the same call at every tag), so the bundled
// yalantinglibs decides (mooncake.Profile.MasterBindsIPv6,
// MasterBindsBracketed):
//
//   - an IPv4 address (the default 0.0.0.0, 127.0.0.1) or a host name:
//     IPv4 only. A client dialling the master's IPv6 address is refused
//     (Ascend/TransferQueue#136; real 0.3.4 … 0.3.14, docs/REAL-FINDINGS.md §34).
//   - "::": a dual-stack socket (ss shows *:port or [::]:port), both, at
//     every release with the flag.
//   - "::1": IPv6 loopback only, where the release binds it.
//   - "[::]" / "[::1]": as without brackets where the release strips them
//     (0.3.13+), else no listener at all and every connect is refused
//     (up to 0.3.10.post1 the master stays up; 0.3.11.post1 and
//     0.3.12.post1 exit 1, which the model does not play).
//
// Where the release cannot bind the address, neither family listens.
func (c Config) RPCListens() (v4, v6 bool) {
	return listens(c.RPCAddress, c.Version.MasterBindsIPv6, c.Version.MasterBindsBracketed)
}

// MetadataListens is RPCListens for the embedded HTTP metadata server
// (--enable_http_metadata_server) and --http_metadata_server_host. Up to
// 0.3.13.post1 the host is only logged: coro_http_server(4, port) binds
// 0.0.0.0 (http_metadata_server.cpp v0.3.12.post1:15), so an IPv6
// metadata URL is refused whatever the flag says; 0.3.14 binds the host
// (Profile.MetadataServerBindsHost; real: "::" dual-stack, "::1" IPv6
// only, docs/REAL-FINDINGS.md §34).
func (c Config) MetadataListens() (v4, v6 bool) {
	if !c.Version.MetadataServerBindsHost {
		return true, false
	}
	return listens(c.HTTPMetadataHost, true, true)
}

func listens(host string, bindsIPv6, bracketed bool) (v4, v6 bool) {
	if host == "" {
		host = "0.0.0.0"
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		if !bracketed {
			return false, false
		}
		host = host[1 : len(host)-1]
	}
	a, err := netip.ParseAddr(host)
	if err != nil || a.Is4() || a.Is4In6() {
		return true, false
	}
	if a.IsUnspecified() {
		// "::" is a dual-stack socket at every release with the flag,
		// also where "::1" cannot bind (real 0.3.8.post1 … 0.3.10.post1:
		// ss shows *:port).
		return true, true
	}
	if !bindsIPv6 {
		return false, false
	}
	return false, true
}
