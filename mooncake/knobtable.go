package mooncake

// Knobs is every setting the project knows Mooncake (and SGLang on its
// behalf) to read, with how each release parses it. Data only; the parse
// functions are in knobs.go. Sources: kvcache-ai/Mooncake at the tag named
// (0.3.13.x: main@3b5a59413, the mirror has no v0.3.13 tags), SGLang's
// python/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py.
// A version added to Versions later inherits each knob's last rule.
//
// Operators' knobs (the catalog and corpus set them) come first.
var Knobs = []Knob{
	{
		Name: "MC_MAX_MR_SIZE", Scope: ScopeEnv, Reader: "transfer engine", Type: "uint64", Modelled: true,
		Doc:   "largest memory region the transfer engine registers (default 1 TiB, clamped to the device's max_mr_size)",
		Since: "0.3.10.post1",
		Rules: []Rule{{
			Parse: ParseUAtol, Default: "1099511627776", Min: 1, Max: 1<<63 - 1,
			Invalid:    "atoll: a unit suffix is ignored (1GB is 1 byte); no leading digits (hex, words) reads 0, which is ignored with a warning and the default kept; a negative number wraps to a huge uint64, accepted silently",
			InvalidLog: "Ignore value from environment variable MC_MAX_MR_SIZE",
			Source:     "v0.3.10.post1 mooncake-transfer-engine/src/config.cpp:184; v0.3.12.post1 config.cpp:283",
		}},
		Samples: map[string][]string{
			"valid":    {"16777216", "1073741824"},
			"boundary": {"1", "1099511627776"},
			"invalid":  {"1GB", "0x1000000", "-1", "abc"},
		},
	},
	{
		Name: "MC_STORE_CLIENT_SETUP_RETRIES", Scope: ScopeEnv, Reader: "store client", Type: "int", Modelled: true,
		Doc:   "auto-port attempts of a port-less local_hostname (default 20)",
		Since: "0.3.9",
		Rules: []Rule{{
			Parse: ParseStoll, Default: "20",
			Invalid: "GetEnvOr: empty or no leading number → 20 silently; a leading number counts (\"3x\" is 3); 0 or less makes no attempt: \"Failed to create client after 0 retries\", setup -1",
			Source:  "v0.3.9 mooncake-store/src/real_client.cpp:201; v0.3.12.post1 real_client.cpp:703; GetEnvOr v0.3.9 include/utils.h:384",
		}},
		Samples: map[string][]string{
			"valid":    {"1", "3"},
			"boundary": {"0"},
			"invalid":  {"two", "2x", ""},
		},
	},
	{
		Name: "MC_STORE_CLIENT_MIN_PORT", Scope: ScopeEnv, Reader: "store client", Type: "port", Modelled: true,
		Doc:   "lowest auto-port of a port-less local_hostname (default 12300), checked with MC_STORE_CLIENT_MAX_PORT",
		Since: "0.3.11",
		Rules: []Rule{{
			Parse: ParseStoll, Default: "12300", Min: 1024, Max: 65535, ExcludeLo: 32768, ExcludeHi: 60999, PortRange: true,
			Invalid:    "ValidatePortRange: outside 1024..65535, inside 32768..60999 or above MAX → both ports fall back to 12300..14300 with a warning (real 0.3.11.post1, 0.3.13.post1)",
			InvalidLog: "falling back to default [12300, 14300]",
			Source:     "v0.3.11 mooncake-store/src/real_client.cpp:671; v0.3.11 mooncake-transfer-engine/src/config.cpp:435",
		}},
		Samples: map[string][]string{
			"valid":    {"13000"},
			"boundary": {"1024"},
			"invalid":  {"80", "40000", "70000", "port"},
		},
	},
	{
		Name: "MC_STORE_CLIENT_MAX_PORT", Scope: ScopeEnv, Reader: "store client", Type: "port", Modelled: true,
		Doc:   "highest auto-port of a port-less local_hostname (default 14300)",
		Since: "0.3.11",
		Rules: []Rule{{
			Parse: ParseStoll, Default: "14300", Min: 1024, Max: 65535, ExcludeLo: 32768, ExcludeHi: 60999, PortRange: true,
			Invalid:    "as MC_STORE_CLIENT_MIN_PORT",
			InvalidLog: "falling back to default [12300, 14300]",
			Source:     "v0.3.11 mooncake-store/src/real_client.cpp:672",
		}},
		Samples: map[string][]string{
			"valid":    {"14000"},
			"boundary": {"32767", "65535"},
			"invalid":  {"12000", "70000", "50000"},
		},
	},
	{
		Name: "MC_RPC_TIMEOUT_MS", Scope: ScopeEnv, Reader: "store client", Type: "int", Modelled: true,
		Doc:   "request timeout of every client→master RPC (default 30 s)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseAtoll, Default: "30000",
			Invalid: "atoll: a unit is ignored (\"2s\" is 2 ms), no digits is 0; a negative value arms no timer",
			Source:  "v0.3.12 mooncake-store/include/master_client.h:79; main master_client.h:55",
		}},
		Samples: map[string][]string{
			"valid":    {"1000", "2000"},
			"boundary": {"500"},
			"invalid":  {"1000ms", "2s"},
		},
	},
	{
		Name: "MC_RPC_CONNECT_TIMEOUT_MS", Scope: ScopeEnv, Reader: "store client", Type: "int", Modelled: true,
		Doc:   "connect timeout of client→master RPCs (default 30 s)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseAtoll, Default: "30000",
			Invalid: "as MC_RPC_TIMEOUT_MS",
			Source:  "v0.3.12 mooncake-store/include/master_client.h:84",
		}},
		Samples: map[string][]string{
			"valid":    {"1000", "2000"},
			"boundary": {"500"},
			"invalid":  {"1500ms"},
		},
	},
	{
		Name: "MC_MS_AUTO_DISC", Scope: ScopeEnv, Reader: "store client", Type: "bool", Modelled: true,
		Doc: "1/0 forces RDMA device auto-discovery on/off",
		Rules: []Rule{{
			Parse:   ParseStoi,
			Invalid: "std::stoi without a catch: a value with no leading number (\"true\") throws out of setup: ValueError \"stoi\"; any number but 1 is off, silently",
			Source:  "v0.3.0 mooncake-store/src/client.cpp:52; v0.3.5 client.cpp:82-90",
		}, {
			From: "0.3.6", Parse: ParseStoi, Min: 0, Max: 1,
			Invalid:    "std::stoi without a catch: a value with no leading number (\"true\") throws out of setup: ValueError \"stoi\" (real 0.3.11.post1); a number other than 0/1 warns and keeps the default",
			InvalidLog: "invalid MC_MS_AUTO_DISC value: {value}, should be 0 or 1, using default: auto discovery not set",
			Source:     "v0.3.6 mooncake-store/src/client.cpp:110; v0.3.9 client_service.cpp:115; v0.3.11.post1 client_service.cpp:186",
		}, {
			From: "0.3.12", Parse: ParseStoiCaught, Min: 0, Max: 1,
			Invalid:    "stoi's exception is caught: a warning and the default (real 0.3.12.post1)",
			InvalidLog: "invalid MC_MS_AUTO_DISC value: {value}, should be 0 or 1, using default: auto discovery not set",
			Source:     "v0.3.12 mooncake-store/src/client_service.cpp:404,421; main@3b5a594 client_service.cpp:560",
		}},
		Samples: map[string][]string{
			"valid":    {"0", "1"},
			"boundary": {"2"},
			"invalid":  {"true", "yes"},
		},
	},
	{
		Name: "MC_STORE_MEMCPY", Scope: ScopeEnv, Reader: "store client", Type: "bool", Modelled: true,
		Doc:   "a transfer to the process's own segment is a memcpy",
		Since: "0.3.4",
		Rules: []Rule{{
			Parse: ParseOnOff, Default: "version default (Profile.StoreMemcpy)",
			Invalid:    "false/0/no/off (any case) off, true/1/yes/on on; any other text (\"disable\", \"\") is on, with a warning that prints it lowercased (real 0.3.9 … 0.3.14)",
			InvalidLog: "Invalid value for MC_STORE_MEMCPY: {lower}, defaulting to enabled",
			Source:     "v0.3.4 mooncake-store/src/transfer_task.cpp:255,270; v0.3.5 :375; v0.3.6 :385; v0.3.7.post2 :379; v0.3.8 … v0.3.10.post1 :428; v0.3.10.post2 :455; v0.3.11 :482; v0.3.12.post1 :952,971; main@3b5a594 :981",
		}},
		Samples: map[string][]string{
			"valid":    {"1", "false"},
			"boundary": {"OFF"},
			"invalid":  {"disabled"},
		},
	},
	{
		Name: "MC_FORCE_TCP", Scope: ScopeEnv, Reader: "transfer engine", Type: "bool", Modelled: true,
		Doc:   "install TCP only, whatever the protocol",
		Since: "0.3.6",
		Rules: []Rule{{
			Parse:   ParsePresence,
			Invalid: "getenv presence: MC_FORCE_TCP=0 forces TCP too",
			Source:  "v0.3.6 mooncake-transfer-engine/src/transfer_engine.cpp:229; v0.3.12.post1 transfer_engine_impl.cpp:209",
		}, {
			// Environ ReadBools it too (its GetBool copy up to 0.3.12.post1
			// was silent and unused); the getenv still decides.
			From:         "0.3.13",
			Parse:        ParsePresenceReadBool,
			Default:      "0",
			Invalid:      "getenv presence still forces TCP (=0 too); Environ's ReadBool also warns on stderr for text it rejects (enabled, \"\", \" \"), once, when the store client is built",
			InvalidLog:   "[Mooncake] Warning: invalid value '{value}' for env MC_FORCE_TCP, using default 0",
			InvalidLevel: LevelStderr,
			Source:       "main@3b5a594 mooncake-common/src/environ.cpp:78-93,196 ReadBool(source, \"MC_FORCE_TCP\", false); transfer_engine_impl.cpp:209 getenv; real 0.3.13.post1",
		}, {
			From:    "0.3.14",
			Parse:   ParsePresence,
			Invalid: "getenv presence; no Environ warning (real 0.3.14: MC_FORCE_TCP=enabled prints none)",
			Source:  "real 0.3.14 (no source here)",
		}},
		Samples: map[string][]string{
			"valid":    {"1"},
			"boundary": {""},
			"invalid":  {"0"},
		},
	},
	{
		Name: "WITH_NVIDIA_PEERMEM", Scope: ScopeEnv, Reader: "transfer engine (CUDA build)", Type: "bool", Modelled: true, Build: "cuda",
		Doc:   "register GPU memory with plain ibv_reg_mr (needs the nvidia_peermem module) instead of dma-buf, and skip the RNICs' DMA-BUF check",
		Since: "0.3.11",
		// Unset, it is off at 0.3.11 only: #2192 (8906bdef8) made the
		// default true from 0.3.11.post1 (Mooncake's docs at 3b5a594 still
		// say unset is DMA-BUF; the code is what runs).
		Rules: []Rule{{
			Parse:   ParseGetBool,
			Default: "0",
			Invalid: "1/true/on/yes (any case) on, anything else off; read only by the CUDA build (a node with a gpu); unset: off (dma-buf, the RNICs' DMA-BUF check)",
			Source:  "v0.3.11 mooncake-common/src/environ.cpp:28-36,84 GetBool(\"WITH_NVIDIA_PEERMEM\", false); rdma_context.cpp:247-252,663; rdma_transport.cpp:388",
		}, {
			From:    "0.3.11.post1",
			Parse:   ParseGetBool,
			Default: "1",
			Invalid: "1/true/on/yes (any case) on, anything else (0, enabled) off; unset: ON (ibv_reg_mr, needs nvidia_peermem; no DMA-BUF check): set 0 for dma-buf",
			Source:  "v0.3.11.post1 mooncake-common/src/environ.cpp:84 GetBool(\"WITH_NVIDIA_PEERMEM\", true) (Mooncake#2192, 8906bdef8); rdma_context.cpp:259-261,675; v0.3.12.post1 environ.cpp:126, rdma_context.cpp:401-405,1233, rdma_transport.cpp:476",
		}, {
			From:         "0.3.13",
			Parse:        ParseReadBool,
			Default:      "1",
			Invalid:      "trimmed; 1/true/yes/on/enable on, 0/false/no/off/disable off (words in any case); anything else (enabled, \"\") keeps the default, ON, with a warning on stderr",
			InvalidLog:   "[Mooncake] Warning: invalid value '{value}' for env WITH_NVIDIA_PEERMEM, using default 1",
			InvalidLevel: LevelStderr,
			Source:       "main@3b5a594 mooncake-common/src/environ.cpp:78-93,201 ReadBool(source, \"WITH_NVIDIA_PEERMEM\", true), include/bool_parser.h TryParseBool; rdma_context.cpp:409,1260; rdma_transport.cpp:727",
		}, {
			// The default follows the host: real 0.3.14 keeps 1 with
			// /sys/module/nvidia_peermem or /sys/module/nv_peer_mem
			// present, else 0, and warns through glog when the transfer
			// engine loads its config (a bare TransferEngine too).
			From:        "0.3.14",
			Parse:       ParseReadBool,
			DefaultHost: HostPeermem,
			Invalid:     "trimmed; 1/true/yes/on/enable on, 0/false/no/off/disable off (words in any case); anything else (enabled, \"\", 2, y) keeps the default with a glog warning; unset: ON when the nvidia_peermem or nv_peer_mem module is loaded, else OFF (dma-buf)",
			InvalidLog:  "Invalid WITH_NVIDIA_PEERMEM environment value: {value}, keeping default {default}",
			Source:      "real 0.3.14 (no source here): config.cpp:773, the module paths in engine.so; REAL-FINDINGS §97",
		}},
		Samples: map[string][]string{
			"valid":    {"1", "Yes"},
			"boundary": {"0"},
			"invalid":  {"enabled"},
		},
	},
	{
		Name: "MC_FORCE_HCA", Scope: ScopeEnv, Reader: "transfer engine", Type: "bool", Modelled: true,
		Doc:   "RDMA auto-discovery finding no HCA fails instead of falling back to TCP",
		Since: "0.3.8",
		Rules: []Rule{{
			Parse:   ParsePresence,
			Invalid: "getenv presence: MC_FORCE_HCA=0 forces it too",
			Source:  "v0.3.8 mooncake-transfer-engine/src/transfer_engine.cpp:269; v0.3.12.post1 transfer_engine_impl.cpp:297",
		}, {
			From:         "0.3.13",
			Parse:        ParsePresenceReadBool,
			Default:      "0",
			Invalid:      "getenv presence still decides (=0 too); Environ's ReadBool also warns on stderr for text it rejects (enabled, \"\"), once, when the store client is built",
			InvalidLog:   "[Mooncake] Warning: invalid value '{value}' for env MC_FORCE_HCA, using default 0",
			InvalidLevel: LevelStderr,
			Source:       "main@3b5a594 mooncake-common/src/environ.cpp:78-93,197 ReadBool(source, \"MC_FORCE_HCA\", false); transfer_engine_impl.cpp:297,354 getenv; real 0.3.13.post1",
		}, {
			From:    "0.3.14",
			Parse:   ParsePresence,
			Invalid: "getenv presence; no Environ warning (real 0.3.14)",
			Source:  "real 0.3.14 (no source here)",
		}},
		Samples: map[string][]string{
			"valid":    {"1"},
			"boundary": {""},
			"invalid":  {"0"},
		},
	},
	{
		Name: "MC_MIN_RPC_PORT", Scope: ScopeEnv, Reader: "transfer engine", Type: "port", Modelled: true,
		Doc:   "lowest port findAvailableTcpPort picks for the TE's RPC (default 15000; also MC_MIN_PRC_PORT)",
		Since: "0.3.11",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "15000", Min: 1024, Max: 65535, ExcludeLo: 32768, ExcludeHi: 60999, PortRange: true,
			Invalid:    "atoi, then ValidatePortRange: an invalid pair falls back to 15000..17000 with a warning",
			InvalidLog: "falling back to default [15000, 17000]",
			Source:     "v0.3.11 mooncake-transfer-engine/src/config.cpp:288; v0.3.12.post1 config.cpp:460",
		}},
		Samples: map[string][]string{
			"valid":    {"15500"},
			"boundary": {"1024"},
			"invalid":  {"18000", "0", "abc"},
		},
	},
	{
		Name: "MC_MAX_RPC_PORT", Scope: ScopeEnv, Reader: "transfer engine", Type: "port", Modelled: true,
		Doc:   "highest TE RPC port (default 17000; also MC_MAX_PRC_PORT)",
		Since: "0.3.11",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "17000", Min: 1024, Max: 65535, ExcludeLo: 32768, ExcludeHi: 60999, PortRange: true,
			Invalid:    "as MC_MIN_RPC_PORT",
			InvalidLog: "falling back to default [15000, 17000]",
			Source:     "v0.3.11 mooncake-transfer-engine/src/config.cpp:290; v0.3.12.post1 config.cpp:462",
		}},
		Samples: map[string][]string{
			"valid":    {"16500"},
			"boundary": {"65535"},
			"invalid":  {"14000", "99999"},
		},
	},
	{
		Name: "MC_MIN_PRC_PORT", Scope: ScopeEnv, Reader: "transfer engine", Type: "port", Modelled: true,
		Doc:   "MC_MIN_RPC_PORT's misspelt first name (0.3.7 … 0.3.10.x), read as its fallback from 0.3.11",
		Since: "0.3.7",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "15000", Min: 1, Max: 65535,
			Invalid:    "atoi; 0 < value < 65536 is taken, else a warning (misspelt MC_PRC_MIN_PORT) and 15000 kept. The pair is never checked: a max one below the min divides by zero in findAvailableTcpPort (SIGFPE in setup), a max further below draws from min up (real 0.3.9)",
			InvalidLog: "Ignore value from environment variable MC_PRC_MIN_PORT",
			Source:     "v0.3.7 mooncake-transfer-engine/src/config.cpp:242; v0.3.10.post1 config.cpp:267; findAvailableTcpPort v0.3.9 transfer_metadata_plugin.cpp:1167",
		}, {
			From: "0.3.11", Parse: ParseAtoi, Default: "15000", Min: 1024, Max: 65535, ExcludeLo: 32768, ExcludeHi: 60999, PortRange: true,
			Invalid:    "read only when MC_MIN_RPC_PORT is unset, then as it: ValidatePortRange falls back to 15000..17000 with a warning",
			InvalidLog: "falling back to default [15000, 17000]",
			Source:     "v0.3.11 mooncake-transfer-engine/src/config.cpp:289",
		}},
		Samples: map[string][]string{
			"valid":    {"15500"},
			"boundary": {"1"},
			"invalid":  {"99999", "0", "abc"},
		},
	},
	{
		Name: "MC_MAX_PRC_PORT", Scope: ScopeEnv, Reader: "transfer engine", Type: "port", Modelled: true,
		Doc:   "MC_MAX_RPC_PORT's misspelt first name (0.3.7 … 0.3.10.x), read as its fallback from 0.3.11",
		Since: "0.3.7",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "17000", Min: 1, Max: 65535,
			Invalid:    "as MC_MIN_PRC_PORT (warning misspelt MC_PRC_MAX_PORT); one below the min is SIGFPE",
			InvalidLog: "Ignore value from environment variable MC_PRC_MAX_PORT",
			Source:     "v0.3.7 mooncake-transfer-engine/src/config.cpp:252; v0.3.10.post1 config.cpp:277",
		}, {
			From: "0.3.11", Parse: ParseAtoi, Default: "17000", Min: 1024, Max: 65535, ExcludeLo: 32768, ExcludeHi: 60999, PortRange: true,
			Invalid:    "as MC_MIN_PRC_PORT",
			InvalidLog: "falling back to default [15000, 17000]",
			Source:     "v0.3.11 mooncake-transfer-engine/src/config.cpp:291",
		}},
		Samples: map[string][]string{
			"valid":    {"16500"},
			"boundary": {"65535"},
			"invalid":  {"70000", "-1"},
		},
	},
	{
		Name: "MC_TCP_BIND_ADDRESS", Scope: ScopeEnv, Reader: "transfer engine", Type: "string", Modelled: true,
		Doc: "the address the TE publishes in its rpc_meta with HTTP/etcd metadata (new RPC mapping; not P2P, not MC_LEGACY_RPC_PORT_BINDING)",
		Rules: []Rule{{
			Parse:   ParseString,
			Invalid: "used as is, unchecked: a wrong address is published and peers fail to connect",
			Source:  "v0.3.0 mooncake-transfer-engine/src/transfer_engine.cpp:68; v0.3.12.post1 transfer_engine_impl.cpp:159",
		}},
		Samples: map[string][]string{
			"valid":    {"127.0.0.1"},
			"boundary": {"::1"},
			"invalid":  {"not-an-ip"},
		},
	},
	{
		Name: "MC_LEGACY_RPC_PORT_BINDING", Scope: ScopeEnv, Reader: "transfer engine", Type: "bool", Modelled: true,
		Doc: "publish local_hostname's own host:port as the rpc_meta instead of a random port",
		Rules: []Rule{{
			Parse: ParsePresence, Invalid: "getenv presence: =0 turns it on too",
			Source: "v0.3.0 mooncake-integration/transfer_engine/transfer_engine_py.cpp:96; v0.3.12.post1 transfer_engine_impl.cpp:120",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {""}, "invalid": {"0"}},
	},
	{
		Name: "MC_STORE_USE_HUGEPAGE", Scope: ScopeEnv, Reader: "store client", Type: "bool", Modelled: true,
		Doc:   "allocate segments and buffers on hugepages",
		Since: "0.3.8.post1",
		Rules: []Rule{{
			Parse: ParsePresence, Invalid: "getenv presence: =0 turns it on too",
			Source: "v0.3.8.post1 mooncake-store/include/utils.h:275; v0.3.12.post1 utils.h:332",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {""}, "invalid": {"0"}},
	},
	{
		Name: "MC_STORE_HUGEPAGE_SIZE", Scope: ScopeEnv, Reader: "store client", Type: "size",
		Doc:   "hugepage size with MC_STORE_USE_HUGEPAGE: 2MB or 1GB",
		Since: "0.3.8.post1",
		Rules: []Rule{{
			Parse: ParseString, Default: "2MB",
			Invalid:    "anything but 2 MiB or 1 GiB after string_to_byte_size: a warning and 2 MiB",
			InvalidLog: "Supported: 2MB, 1GB. Fallback to 2MB.",
			Source:     "v0.3.8.post1 mooncake-store/include/utils.h:285; v0.3.12.post1 utils.h:339",
		}},
		Samples: map[string][]string{"valid": {"2MB", "1GB"}, "boundary": {"2097152"}, "invalid": {"4MB"}},
	},
	{
		Name: "MC_HANDSHAKE_CONNECT_TIMEOUT", Scope: ScopeEnv, Reader: "transfer engine", Type: "int",
		Doc:   "seconds a P2P handshake connect waits (default 5)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "5", Min: 1, Max: 3599,
			Invalid:    "atoi; outside 1..3599 ignored with a warning",
			InvalidLog: "Ignore value from environment variable MC_HANDSHAKE_CONNECT_TIMEOUT",
			Source:     "v0.3.12 mooncake-transfer-engine/src/config.cpp:361",
		}},
		Samples: map[string][]string{"valid": {"5"}, "boundary": {"1", "3599"}, "invalid": {"0", "3600"}},
	},
	{
		Name: "MC_RETRY_CNT", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc: "tries of an RDMA slice before its transfer fails (default 9; a slice's max_retry_cnt)",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "9", Min: 1, Max: 127,
			Invalid:    "atoi; outside 1..127 ignored with a warning",
			InvalidLog: "Ignore value from environment variable MC_RETRY_CNT",
			Source:     "v0.3.0 mooncake-transfer-engine/src/config.cpp:167; v0.3.12.post1 config.cpp:294",
		}},
		Samples: map[string][]string{"valid": {"9"}, "boundary": {"1", "127"}, "invalid": {"128", "0"}},
	},
	{
		Name: "MC_GID_INDEX", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc: "RoCE GID index (default 0; from 0.3.8 -1, the transfer engine picks one; NCCL_IB_GID_INDEX as a fallback name)",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "0", Min: 0, Max: 255,
			Invalid:    "atoi; outside 0..255 ignored with a warning (at the process's first globalConfig(), whatever the protocol)",
			InvalidLog: "Ignore value from environment variable MC_GID_INDEX",
			Source:     "v0.3.0 mooncake-transfer-engine/src/config.cpp:49,58, include/config.h gid_index = 0",
		}, {
			From: "0.3.8", Parse: ParseAtoi, Default: "-1", Min: 0, Max: 255,
			Invalid:    "atoi; outside 0..255 ignored with a warning, leaving -1: auto-selection",
			InvalidLog: "Ignore value from environment variable MC_GID_INDEX",
			Source:     "v0.3.8.post1 include/config.h gid_index = -1 (auto-selection); v0.3.9 config.cpp:64; v0.3.11.post1 config.cpp:68; v0.3.12.post1 config.cpp:137,146",
		}},
		Samples: map[string][]string{"valid": {"3"}, "boundary": {"0", "255"}, "invalid": {"256", "-1"}},
	},
	{
		Name: "MC_IB_PORT", Scope: ScopeEnv, Reader: "transfer engine", Type: "int",
		Doc: "the RNIC port (default 1)",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "1", Min: 0, Max: 255,
			Invalid:    "atoi; outside 0..255 ignored with a warning",
			InvalidLog: "Ignore value from environment variable MC_IB_PORT",
			Source:     "v0.3.0 mooncake-transfer-engine/src/config.cpp:40; v0.3.12.post1 config.cpp:128",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"0", "255"}, "invalid": {"256"}},
	},
	{
		Name: "MC_MTU", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc: "RDMA path MTU: 512, 1024, 2048 or 4096 (default 4096)",
		// globalConfig() runs at import of mooncake.store (a static
		// initializer): real 0.3.4 … 0.3.11.post1 exit 1 on
		// `from mooncake.store import …` with MC_MTU=9000.
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "4096", OneOf: []int64{512, 1024, 2048, 4096}, ExitOnInvalid: true,
			Invalid:      "atoi; anything but 512|1024|2048|4096 logged at ERROR, then exit(EXIT_FAILURE): the process dies at import",
			InvalidLog:   "Ignore value from environment variable MC_MTU, it should be 512|1024|2048|4096",
			InvalidLevel: "ERROR",
			Source:       "v0.3.0 mooncake-transfer-engine/src/config.cpp:119; v0.3.11.post1 config.cpp:147-161",
		}, {
			From: "0.3.12", Parse: ParseAtoi, Default: "4096", OneOf: []int64{512, 1024, 2048, 4096},
			Invalid:      "atoi; anything but 512|1024|2048|4096 logged at ERROR and ignored",
			InvalidLog:   "Ignore value from environment variable MC_MTU, it should be 512|1024|2048|4096",
			InvalidLevel: "ERROR",
			Source:       "v0.3.12.post1 mooncake-transfer-engine/src/config.cpp:225,237",
		}},
		Samples: map[string][]string{"valid": {"4096", "1024"}, "boundary": {"512"}, "invalid": {"1500", "9000"}},
	},
	{
		Name: "MC_SLICE_SIZE", Scope: ScopeEnv, Reader: "transfer engine", Type: "uint64", Modelled: true,
		Doc: "bytes per transfer slice (default 65536)",
		Rules: []Rule{{
			// atoi into a size_t: a negative number wraps to a huge one.
			Parse: ParseUAtol, Default: "65536", Min: 1, Max: 1<<63 - 1,
			Invalid:    "atoi into a size_t: no leading digits reads 0, which is ignored with a warning; a negative number wraps to a huge size, accepted silently",
			InvalidLog: "Ignore value from environment variable MC_SLICE_SIZE",
			Source:     "v0.3.0 mooncake-transfer-engine/src/config.cpp:157; v0.3.12.post1 config.cpp:262",
		}},
		Samples: map[string][]string{"valid": {"65536"}, "boundary": {"1"}, "invalid": {"64KB", "0"}},
	},
	{
		Name: "MC_WORKERS_PER_CTX", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc: "RDMA worker threads per device context (default 2)",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "2", Min: 1, Max: 8,
			Invalid:    "atoi; outside 1..8 ignored with a warning",
			InvalidLog: "Ignore value from environment variable MC_WORKERS_PER_CTX",
			Source:     "v0.3.0 mooncake-transfer-engine/src/config.cpp:147; v0.3.12.post1 config.cpp:252",
		}},
		Samples: map[string][]string{"valid": {"2"}, "boundary": {"1", "8"}, "invalid": {"16"}},
	},
	{
		Name: "MC_HANDSHAKE_PORT", Scope: ScopeEnv, Reader: "transfer engine", Type: "port", Modelled: true,
		Doc: "the P2P handshake listener's port (default 12001)",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "12001", Min: 1, Max: 65535,
			Invalid:    "atoi; outside 1..65535 ignored with a warning (at the process's first globalConfig())",
			InvalidLog: "Ignore value from environment variable MC_HANDSHAKE_PORT",
			Source:     "v0.3.0 mooncake-transfer-engine/src/config.cpp:137,144; v0.3.9 config.cpp:150; v0.3.11.post1 config.cpp:172; v0.3.12.post1 config.cpp:242,249",
		}},
		Samples: map[string][]string{"valid": {"12001"}, "boundary": {"65535"}, "invalid": {"65536"}},
	},
	{
		Name: "MC_LOG_LEVEL", Scope: ScopeEnv, Reader: "transfer engine", Type: "string", Modelled: true,
		Doc: "TRACE, INFO, WARNING or ERROR",
		Rules: []Rule{{
			Parse: ParseString, Default: "INFO",
			Invalid: "exact, case-sensitive match; anything else (\"debug\", \"info\") silently keeps INFO. It is glog's minloglevel for the whole process: WARNING drops every INFO line of the store client and the transfer engine (real 0.3.9, 0.3.13.post1)",
			Source:  "v0.3.0 mooncake-transfer-engine/src/config.cpp:182; v0.3.12.post1 config.cpp:389",
		}},
		Samples: map[string][]string{"valid": {"INFO"}, "boundary": {"TRACE"}, "invalid": {"info"}},
	},
	{
		Name: "MC_USE_IPV6", Scope: ScopeEnv, Reader: "transfer engine", Type: "bool",
		Doc:   "resolve and publish IPv6 addresses",
		Since: "0.3.3",
		Rules: []Rule{{
			Parse: ParsePresence, Invalid: "getenv presence: =0 turns it on too",
			Source: "v0.3.3 mooncake-transfer-engine/src/config.cpp:242; v0.3.12.post1 config.cpp:473",
		}, {
			From:         "0.3.13",
			Parse:        ParsePresenceReadBool,
			Default:      "0",
			Invalid:      "getenv presence still decides (=0 too); Environ's ReadBool also warns on stderr for text it rejects (maybe, \"\"), once, when the store client is built",
			InvalidLog:   "[Mooncake] Warning: invalid value '{value}' for env MC_USE_IPV6, using default 0",
			InvalidLevel: LevelStderr,
			Source:       "main@3b5a594 mooncake-common/src/environ.cpp:78-93,188 ReadBool(source, \"MC_USE_IPV6\", false); config.cpp:477 getenv; real 0.3.13.post1",
		}, {
			From:    "0.3.14",
			Parse:   ParsePresence,
			Invalid: "getenv presence; no Environ warning (real 0.3.14)",
			Source:  "real 0.3.14 (no source here)",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {""}, "invalid": {"0"}},
	},
	{
		Name: "MC_METADATA_CLUSTER_ID", Scope: ScopeEnv, Reader: "transfer engine", Type: "string", Modelled: true,
		Doc:   "prefix of the TE's metadata keys (mooncake/<id>/…)",
		Since: "0.3.7.post1",
		Rules: []Rule{{
			Parse:   ParseString,
			Invalid: "used as is, a '/' appended; processes with different ids do not see each other's segments (real 0.3.9, 0.3.13.post1: 404, -800 at every put into the other's segment)",
			Source:  "v0.3.7.post1 mooncake-transfer-engine/src/transfer_metadata.cpp:81; v0.3.12.post1 transfer_metadata.cpp:153",
		}},
		Samples: map[string][]string{"valid": {"cluster-a"}, "boundary": {""}, "invalid": {"a/b"}},
	},
	{
		Name: "MC_RPC_PROTOCOL", Scope: ScopeEnv, Reader: "store client, mooncake_master", Type: "string", Modelled: true,
		Doc:   "\"rdma\" runs client→master RPCs over ibverbs (the master serves them over ibverbs); anything else TCP",
		Since: "0.3.6",
		Rules: []Rule{{
			Parse: ParseString, Default: "tcp", Invalid: "anything but exactly \"rdma\" is TCP; \"rdma\" on a host with no RDMA device crashes the store client's first master connect (SIGSEGV, real 0.3.7.post2 … 0.3.14); on mooncake_master up to 0.3.7.x a TCP client is not served (no RDMA device: the master exits 245 at its connect, real §85; with one: its calls time out), from 0.3.8 it is",
			Source: "v0.3.6 mooncake-store/include/master_client.h:26, master.cpp:424; v0.3.12.post1 master_client.h:68, master.cpp:1480",
		}},
		Samples: map[string][]string{"valid": {"tcp"}, "boundary": {"RDMA"}, "invalid": {"udp"}},
	},
	{
		Name: "MC_TCP_ENABLE_CONNECTION_POOL", Scope: ScopeEnv, Reader: "transfer engine", Type: "bool",
		Doc:   "reuse TCP transport connections",
		Since: "0.3.10",
		Rules: []Rule{{
			Parse: ParseWords, Invalid: "compared as text after getenv",
			Source: "v0.3.10 mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp:458; v0.3.12.post1 tcp_transport.cpp:844",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"0"}, "invalid": {"maybe"}},
	},
	{
		Name: "MC_TCP_STATUS_TIMEOUT_SEC", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "seconds the TCP transport waits for a peer's status frame before it drops the connection and fails the slice (default 30)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "30", Min: 1, Max: 2147483647,
			Invalid: "atoi; 0, negative and garbage are 30",
			Source:  "v0.3.12 mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp:422 (statusFrameTimeoutSec); v0.3.12.post1 tcp_transport.cpp:422",
		}},
		Samples: map[string][]string{"valid": {"3"}, "boundary": {"1"}, "invalid": {"0"}},
	},
	{
		Name: "MC_TRANSFER_TIMEOUT", Scope: ScopeEnv, Reader: "transfer engine (Python TransferEngine)", Type: "int", Modelled: true,
		Doc:   "seconds the Python TransferEngine waits for a transfer (default 30, at least 5)",
		Since: "0.3.2",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "30", Invalid: "atoi, then max(5, n): 0, garbage and anything under 5 are 5",
			Source: "v0.3.2 mooncake-integration/transfer_engine/transfer_engine_py.cpp:22; v0.3.12.post1 transfer_engine_py.cpp:107",
		}},
		Samples: map[string][]string{"valid": {"30"}, "boundary": {"5"}, "invalid": {"1"}},
	},
	// mooncake_master flags (gflags).
	{
		Name: "default_kv_lease_ttl", Scope: ScopeMasterFlag, Reader: "mooncake_master", Type: "duration", Modelled: true,
		Doc: "lease an object's readers hold (default 5 s; 10 s from 0.3.12)",
		Rules: []Rule{{
			Parse: ParseGflagUint64, Default: "5000",
			Invalid: "uint64 milliseconds only: \"5s\" makes mooncake_master exit 1 (checked on the 0.3.9 wheel)",
			Source:  "v0.3.9 mooncake-store/src/master.cpp:31; v0.3.10 master.cpp:31",
		}, {
			From: "0.3.10.post1", Parse: ParseDuration, Default: "5000",
			Invalid: "ParseDurationMs: digits then ms|s|m|h (any case, spaces allowed); anything else fails the flag's validator and mooncake_master exits 1",
			Source:  "v0.3.10.post1 mooncake-store/src/master.cpp:68,77; mooncake-common/include/duration_utils.h:23",
		}},
		Samples: map[string][]string{"valid": {"1000", "5000"}, "boundary": {"100", "5s"}, "invalid": {"5sec", "-1"}},
	},
	{
		Name: "client_ttl", Scope: ScopeMasterFlag, Reader: "mooncake_master", Type: "int", Modelled: true,
		Doc: "seconds without a ping before the master drops a client (default 10)",
		Rules: []Rule{{
			Parse: ParseGflagInt64, Default: "10",
			Invalid: "gflags int64: anything but a whole number makes mooncake_master exit 1",
			Source:  "v0.3.9 mooncake-store/src/master.cpp:70; v0.3.10.post1 master.cpp:116",
		}},
		Samples: map[string][]string{"valid": {"5", "10"}, "boundary": {"2"}, "invalid": {"10s"}},
	},
	{
		Name: "eviction_high_watermark_ratio", Scope: ScopeMasterFlag, Reader: "mooncake_master", Type: "float", Modelled: true,
		Doc: "pool use that starts eviction",
		Rules: []Rule{{
			Parse: ParseGflagDouble, Default: "0.95",
			Invalid: "gflags double: not a number makes mooncake_master exit 1",
			Source:  "v0.3.9 mooncake-store/src/master.cpp:40; v0.3.12.post1 master.cpp:134",
		}},
		Samples: map[string][]string{"valid": {"0.9"}, "boundary": {"1.0"}, "invalid": {"90%"}},
	},
	{
		Name: "eviction_ratio", Scope: ScopeMasterFlag, Reader: "mooncake_master", Type: "float", Modelled: true,
		Doc: "share of objects one eviction removes; the validator requires 0.0..1.0",
		Rules: []Rule{{
			Parse: ParseGflagDouble, Default: "0.05",
			Invalid: "gflags double; outside 0.0..1.0 the validator LOG(FATAL)s: mooncake_master aborts",
			Source:  "v0.3.9 mooncake-store/src/master.cpp:38,57; v0.3.12.post1 master.cpp:132,159",
		}},
		Samples: map[string][]string{"valid": {"0.05"}, "boundary": {"0.0"}, "invalid": {"five"}},
	},
	{
		Name: "put_start_discard_timeout_sec", Scope: ScopeMasterFlag, Reader: "mooncake_master", Type: "int", Modelled: true,
		Doc:   "seconds after which an unfinished put's space is reclaimed (default 30)",
		Since: "0.3.8",
		Rules: []Rule{{
			Parse: ParseGflagUint64, Default: "30",
			Invalid: "gflags uint64: a unit or a sign makes mooncake_master exit 1; before 0.3.8 the flag is unknown, also exit 1",
			Source:  "v0.3.8 mooncake-store/src/master.cpp:91; v0.3.12.post1 master.cpp:311",
		}},
		Samples: map[string][]string{"valid": {"30"}, "boundary": {"0"}, "invalid": {"30s", "-1"}},
	},
	{
		Name: "put_start_release_timeout_sec", Scope: ScopeMasterFlag, Reader: "mooncake_master", Type: "int", Modelled: true,
		Doc:   "seconds after which an unfinished put's space is released, and the SSD offloading tasks' TTL (default 600)",
		Since: "0.3.8",
		Rules: []Rule{{
			Parse: ParseGflagUint64, Default: "600",
			Invalid: "gflags uint64: a unit or a sign makes mooncake_master exit 1; before 0.3.8 the flag is unknown, also exit 1; not above put_start_discard_timeout_sec: \"put_start_release_timeout=N must be larger than put_start_discard_timeout_sec=M\" (ERROR) and std::invalid_argument, the master dies (real 0.3.11.post1; not modelled)",
			Source:  "v0.3.8 mooncake-store/src/master.cpp:94; v0.3.11.post1 master.cpp:186, master_service.cpp:195-202; v0.3.12.post1 master.cpp:314",
		}},
		Samples: map[string][]string{"valid": {"600"}, "boundary": {"31"}, "invalid": {"600s", "-1"}},
	},
	// SGLang's side: mooncake_store.py reads these (env, config file or
	// extra_config) and passes them to setup(); parsing in sglang/config.go.
	sglangKnob("MOONCAKE_GLOBAL_SEGMENT_SIZE", "size", "bytes this process contributes to the pool: an int, or \"<n>gb\"; anything else is a ValueError in SGLang",
		[]string{"16777216", "1gb"}, []string{"0", "1", "4gb", "64gb"}, []string{"64mb", "1.5gb", "abc", "-1"}),
	sglangKnob("MOONCAKE_LOCAL_HOSTNAME", "string", "host[:port] of this process's transfer engine (default localhost: auto-port)",
		[]string{"127.0.0.1", "127.0.0.1:20001"}, []string{"localhost", "[::1]"}, []string{"", "127.0.0.1:99999", "127.0.0.1:abc"}),
	sglangKnob("MOONCAKE_PROTOCOL", "string", "tcp or rdma (default rdma)",
		[]string{"tcp", "rdma"}, []string{"TCP"}, []string{"udp"}),
	sglangKnob("MOONCAKE_DEVICE", "string", "RDMA devices: a comma list or a per-rank JSON dict",
		[]string{"mlx5_0", "mlx5_0,mlx5_1"}, []string{""}, []string{`{"0": "mlx5_0"}`}),
	sglangKnob("MOONCAKE_MASTER", "string", "master_server_address: host:port or etcd://…",
		[]string{"{{master}}"}, []string{"etcd://{{etcd}}"}, []string{"127.0.0.1:59999"}),
	sglangKnob("MOONCAKE_TE_META_DATA_SERVER", "string", "metadata_server: P2PHANDSHAKE, http://… or etcd://…",
		[]string{"P2PHANDSHAKE", "{{metadata}}"}, []string{"p2phandshake"}, []string{"http://127.0.0.1:59998/metadata"}),
	sglangKnob("MOONCAKE_STANDALONE_STORAGE", "bool", "use a mooncake_client sidecar (dummy client); needs MOONCAKE_CLIENT",
		[]string{"true"}, []string{"false"}, []string{"maybe"}),
	sglangKnob("MOONCAKE_CLIENT", "string", "client_server_address: the mooncake_client sidecar (standalone storage)",
		[]string{"{{client}}"}, []string{"127.0.0.1:50099"}, []string{"no-port"}),
	sglangKnob("MOONCAKE_ENABLE_SSD_OFFLOAD", "bool", "enable_ssd_offload setup kwarg (0.3.10.post2+); true/1/yes/y, false/0/no/n, else a warning and the default",
		[]string{"false"}, []string{"1"}, []string{"on"}),
	sglangKnob("MOONCAKE_OFFLOAD_FILE_STORAGE_PATH", "string", "ssd_offload_path with MOONCAKE_ENABLE_SSD_OFFLOAD",
		[]string{"/tmp/faultlab-ssd"}, []string{""}, []string{"/nonexistent/dir"}),
	// SSD offload's FileStorage and bucket backend (FileStorageConfig and
	// BucketBackendConfig::FromEnvironment): GetEnvOr, checked by their
	// Validate when the store sets up with enable_ssd_offload.
	offloadKnob("MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS", "seconds between FileStorage heartbeats (the offload queue taken, buckets written)",
		"10", 0, 1<<32-1, "GetEnvOr<uint32_t>: a negative number or no leading digits → 10 silently; 0 fails FileStorageConfig::Validate: \"FileStorageConfig: heartbeat_interval_seconds must > 0\", setup raises ValueError \"Invalid FileStorage configuration\"",
		"v0.3.11.post1 mooncake-store/src/file_storage.cpp:57 (FromEnvironment), :136-151 (Validate); include/storage_backend.h:218",
		[]string{"1", "10"}, []string{"0"}, []string{"-1", "2x", "ten"}),
	offloadKnob("MOONCAKE_OFFLOAD_TOTAL_KEYS_LIMIT", "most keys FileStorage keeps on disk",
		"10000000", 0, 0, "0 or less fails FileStorageConfig::Validate (\"FileStorageConfig: total_keys_limit must > 0\"): ValueError \"Invalid FileStorage configuration\"",
		"v0.3.11.post1 mooncake-store/src/file_storage.cpp:50, :140-143; include/storage_backend.h:213",
		[]string{"1000"}, []string{"0"}, []string{"many"}),
	offloadKnob("MOONCAKE_OFFLOAD_TOTAL_SIZE_LIMIT_BYTES", "most bytes FileStorage keeps on disk (default 2 TiB)",
		"2199023255552", 0, 0, "exactly 0 fails FileStorageConfig::Validate (\"FileStorageConfig: total_size_limit should not be zero\"): ValueError \"Invalid FileStorage configuration\"",
		"v0.3.11.post1 mooncake-store/src/file_storage.cpp:53, :144-147; include/storage_backend.h:214",
		[]string{"1073741824"}, []string{"0"}, []string{"1TB"}),
	offloadKnob("MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT", "most keys a bucket file holds",
		"500", 0, 0, "0 or less fails BucketBackendConfig::Validate (\"BucketBackendConfig: bucket_keys_limit must > 0\"): ValueError \"Invalid StorageBackend configuration\" (real 0.3.11.post1, 0.3.14)",
		"v0.3.11.post1 mooncake-store/src/storage_backend.cpp:35-45 (Validate), :62 (FromEnvironment), :3203-3207 (CreateStorageBackend); include/storage_backend.h:184",
		[]string{"1", "500"}, []string{"0"}, []string{"-1", "all"}),
	offloadKnob("MOONCAKE_OFFLOAD_BUCKET_SIZE_LIMIT_BYTES", "most bytes a bucket file holds (default 256 MiB)",
		"268435456", 0, 0, "0 or less fails BucketBackendConfig::Validate (\"BucketBackendConfig: bucket_size_limit must > 0\"): ValueError \"Invalid StorageBackend configuration\"",
		"v0.3.11.post1 mooncake-store/src/storage_backend.cpp:40-43, :65; include/storage_backend.h:181",
		[]string{"16777216"}, []string{"0"}, []string{"256MB"}),
	offloadKnob("MOONCAKE_OFFLOAD_BUCKET_MAX_TOTAL_SIZE", "the bucket backend's cap: past it a bucket write evicts buckets (with an eviction policy); default MOONCAKE_BUCKET_MAX_TOTAL_SIZE, else 0 (90 % of the disk)",
		"0", 0, 0, "no leading digits → the older name's value or 0 silently; without MOONCAKE_OFFLOAD_BUCKET_EVICTION_POLICY nothing is evicted",
		"v0.3.11.post1 mooncake-store/src/storage_backend.cpp:68-71, :1725-1735, :2209-2262 (PrepareEviction)",
		[]string{"6291456", "1073741824"}, []string{"1"}, []string{"6MB"}).since("0.3.10.post2"),
	{
		Name: "MOONCAKE_OFFLOAD_BUCKET_EVICTION_POLICY", Scope: ScopeEnv, Reader: "store client", Type: "string", Modelled: true,
		Doc:   "the bucket backend's eviction: fifo (oldest bucket first) or lru (least recently read); default MOONCAKE_BUCKET_EVICTION_POLICY, else none",
		Since: "0.3.10.post2",
		Rules: []Rule{{
			Parse: ParseString, Default: "none",
			Invalid: "anything but fifo or lru (LRU, FIFO included: the case counts) is none, silently",
			Source:  "v0.3.11.post1 mooncake-store/src/storage_backend.cpp:73-82",
		}},
		Samples: map[string][]string{"valid": {"fifo", "lru"}, "boundary": {"none"}, "invalid": {"LRU", "random"}},
	},
	{
		Name: "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR", Scope: ScopeEnv, Reader: "store client", Type: "string", Modelled: true,
		Doc:   "FileStorage's backend: bucket_storage_backend (default), file_per_key_storage_backend (needs MOONCAKE_OFFLOAD_FSDIR) or offset_allocator_storage_backend; up to 0.3.11.post1 the two others log \"BatchQuerySlices failed with error: INVALID_REPLICA\" every heartbeat with nothing to offload (Mooncake#2138)",
		Since: "0.3.8.post1",
		Rules: []Rule{{
			Parse: ParseChoice, Default: "bucket_storage_backend",
			Choices:      []string{"bucket_storage_backend", "file_per_key_storage_backend", "offset_allocator_storage_backend"},
			Invalid:      "any other name (the case counts) logs \"Unknown storage backend.\" (ERROR) and keeps the bucket backend",
			InvalidLog:   "Unknown storage backend.",
			InvalidLevel: "ERROR",
			Source:       "v0.3.8.post1 mooncake-store/src/file_storage.cpp:17-26; v0.3.11.post1 file_storage.cpp:24-37, mooncake-store/src/storage_backend.cpp (CreateStorageBackend)",
		}, {
			From: "0.3.12", Parse: ParseChoice, Default: "bucket_storage_backend",
			Choices:      []string{"bucket_storage_backend", "file_per_key_storage_backend", "offset_allocator_storage_backend", "distributed_storage_backend"},
			Invalid:      "as before; distributed_storage_backend is known (the model runs it as the bucket backend)",
			InvalidLog:   "Unknown storage backend.",
			InvalidLevel: "ERROR",
			Source:       "v0.3.12.post1 mooncake-store/src/file_storage.cpp:94-107",
		}, {
			From: "0.3.13", Parse: ParseChoice, Default: "bucket_storage_backend",
			Choices:      []string{"bucket_storage_backend", "file_per_key_storage_backend", "offset_allocator_storage_backend", "distributed_storage_backend", "nvme_kv_storage_backend"},
			Invalid:      "as before; nvme_kv_storage_backend is known too (the model runs it as the bucket backend)",
			InvalidLog:   "Unknown storage backend.",
			InvalidLevel: "ERROR",
			Source:       "main@3b5a59413 mooncake-store/src/file_storage.cpp:94-107",
		}},
		// Not offset_allocator_storage_backend: it fallocates its data file
		// at the total size limit (2 TiB), the host's whole free disk
		// (REAL-FINDINGS §79); a draw on real must not.
		Samples: map[string][]string{"valid": {"bucket_storage_backend"}, "boundary": {"file_per_key_storage_backend"}, "invalid": {"bucket"}},
	},
	sglangKnob("MOONCAKE_MASTER_METRICS_PORT", "int", "the master's metrics port SGLang's health probe uses (default 9003)",
		[]string{"9003"}, []string{"65535"}, []string{"http"}),
	sglangKnob("MOONCAKE_CHECK_SERVER", "bool", "probe the master before setup; true/1/yes/y, false/0/no/n, else a warning and the default",
		[]string{"false"}, []string{"0"}, []string{"maybe"}),
	sglangKnob("MOONCAKE_TENANT_ID", "string", "tenant of the store client (0.3.12+ setup kwarg)",
		[]string{"default", "tenant-a"}, []string{""}, []string{"a b"}),
}

func sglangKnob(name, typ, doc string, valid, boundary, invalid []string) Knob {
	return Knob{
		Name: name, Scope: ScopeSGLang, Reader: "SGLang", Type: typ, Doc: doc, Modelled: true,
		Rules: []Rule{{
			Parse: ParseSGLang, Invalid: "SGLang's own parsing and errors (sglang/config.go)",
			Source: "sgl-project/sglang python/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py (MooncakeStoreConfig)",
		}},
		Samples: map[string][]string{"valid": valid, "boundary": boundary, "invalid": invalid},
	}
}

// offloadKnob is a GetEnvOr number of SSD offload's configuration
// (FileStorageConfig and BucketBackendConfig::FromEnvironment): read by
// mooncake_client --enable_offload from v0.3.8 (file_storage.cpp,
// storage_backend.cpp), by the Python setup's enable_ssd_offload from
// v0.3.10.post2.
func offloadKnob(name, doc, def string, lo, hi int64, invalid, source string, valid, boundary, bad []string) Knob {
	return Knob{
		Name: name, Scope: ScopeEnv, Reader: "store client", Type: "int", Modelled: true, Doc: doc,
		Since:   "0.3.8",
		Rules:   []Rule{{Parse: ParseStoll, Default: def, Min: lo, Max: hi, Invalid: invalid, Source: source}},
		Samples: map[string][]string{"valid": valid, "boundary": boundary, "invalid": bad},
	}
}

// since is k read from release v on.
func (k Knob) since(v string) Knob {
	k.Since = v
	return k
}
