package mooncake

// RPCPortRangeNames are every environment variable any release reads for
// the transfer engine's random port range (findAvailableTcpPort's
// rpc_min_port..rpc_max_port): the misspelt MC_MIN_PRC_PORT/MC_MAX_PRC_PORT
// from v0.3.7, MC_MIN_RPC_PORT/MC_MAX_RPC_PORT from v0.3.11, which fall
// back to the misspelt ones.
var RPCPortRangeNames = []string{"MC_MIN_RPC_PORT", "MC_MAX_RPC_PORT", "MC_MIN_PRC_PORT", "MC_MAX_PRC_PORT"}

// RPCPortRangePairs are RPCPortRangeNames as (min, max) pairs.
var RPCPortRangePairs = [][2]string{{"MC_MIN_RPC_PORT", "MC_MAX_RPC_PORT"}, {"MC_MIN_PRC_PORT", "MC_MAX_PRC_PORT"}}

// DefaultRPCMinPort and DefaultRPCMaxPort are findAvailableTcpPort's range
// when no variable moves it (config.h rpc_min_port, rpc_max_port).
const DefaultRPCMinPort, DefaultRPCMaxPort = 15000, 17000

// RPCPortRangeEnv names the variables v reads for the lowest and highest
// port findAvailableTcpPort draws from (its RPC port, and from v0.3.5 its
// TCP transport's; default 15000..17000); "", "" before v0.3.7, whose
// range is fixed.
//
//   - up to v0.3.6.post1: const min_port = 15000, max_port = 17000
//     (transfer_metadata_plugin.cpp findAvailableTcpPort);
//   - v0.3.7 to v0.3.10.post2: MC_MIN_PRC_PORT, MC_MAX_PRC_PORT, each
//     taken when 0 < atoi < 65536 (else "Ignore value from environment
//     variable MC_PRC_MIN_PORT", sic) into config.rpc_min_port/rpc_max_port
//     (config.cpp v0.3.7:242-260, v0.3.10.post1:267-285);
//   - from v0.3.11: MC_MIN_RPC_PORT, else MC_MIN_PRC_PORT (and max alike),
//     the pair through ValidatePortRange(…, 15000, 17000): 1024..65535 and
//     outside 32768..60999, min <= max, else a warning and the default
//     (config.cpp v0.3.11:288-299, v0.3.12.post1:460-470; 3b5a594 alike).
//
// The wheels agree: 0.3.7.post2 to 0.3.10.post1 carry only the misspelt
// names, 0.3.11.post1 to 0.3.14 both, 0.3.6.post1 and older neither.
func RPCPortRangeEnv(v Version) (min, max string) {
	switch {
	case v.AtLeast("0.3.11"):
		return "MC_MIN_RPC_PORT", "MC_MAX_RPC_PORT"
	case v.AtLeast("0.3.7"):
		return "MC_MIN_PRC_PORT", "MC_MAX_PRC_PORT"
	}
	return "", ""
}
