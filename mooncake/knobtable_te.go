package mooncake

import (
	"fmt"
	"math"
	"strings"
)

// teConfigKnobs are the transfer engine's RDMA and handshake knobs
// (config.cpp loadGlobalConfig, once per process at the first
// globalConfig()) and the rest of 0.3.13's Environ constructor
// (main@3b5a594 mooncake-common/src/environ.cpp:11-14,160-204), appended
// to Knobs. Real 0.3.9, 0.3.12.post1, 0.3.13.post1 and 0.3.14 checked by
// hand (docs/REAL-FINDINGS.md §98): each "Ignore value …" line below is the
// wheel's, at WARNING; 0.3.13.post1's Environ also prints its stderr line
// (Rule.Environ) for text its strict reader rejects; 0.3.14's does not
// (but for MOONCAKE_STORE_CHECKSUM and the RPC I/O threads).
func init() { Knobs = append(Knobs, teConfigKnobs...) }

// Modelled: the model prints the lines below (models/te's configWarned,
// models/client's Environ list, the backlog's abort at import); MC_LOG_DIR,
// MC_REDIS_PASSWORD and the RPC I/O thread counts change nothing in sim.
//
// real014 is a 0.3.14 rule's source: the wheel, no source here.
func real014(line string) string {
	return "real 0.3.14 (no source here): " + line + "; REAL-FINDINGS §98"
}

// configIntKnob is a loadGlobalConfig knob read with atoi and a range
// check ("Ignore value from environment variable NAME", the default
// kept): the same rule at every release, 0.3.13 adding Environ's strict
// ReadInt and its stderr warning (environDef is Environ's default), 0.3.14
// without it (real).
func configIntKnob(name, doc, since, def string, lo, hi int64, src, src13, src14 string, valid, boundary, invalid []string) Knob {
	log := "Ignore value from environment variable " + name
	inv := fmt.Sprintf("atoi (\"4x\" is 4, \"abc\" and \"\" 0); outside %d..%d ignored with a WARNING, the default kept", lo, hi)
	if lo > 0 {
		inv += "; a negative number is out of range too"
	}
	base := Rule{Parse: ParseAtoi, Default: def, Min: lo, Max: hi, Invalid: inv, InvalidLog: log, Source: src}
	r13 := base
	r13.From, r13.Environ, r13.EnvironDefault, r13.Source = "0.3.13", "int", def, src13
	r13.Invalid = inv + "; Environ's ReadInt also reads it (a trimmed whole int): other text (\"4x\", \"abc\", \"\") prints \"[Mooncake] Warning: invalid value '<text>' for env " + name + ", using default " + def + "\" on stderr when the store client is built (real 0.3.13.post1)"
	r14 := base
	r14.From, r14.Source = "0.3.14", src14
	r14.Invalid = inv + " (real 0.3.14; no Environ line)"
	return Knob{
		Name: name, Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Doc: doc, Since: since, Modelled: true,
		Rules:   []Rule{base, r13, r14},
		Samples: map[string][]string{"valid": valid, "boundary": boundary, "invalid": invalid},
	}
}

// presenceEnvironKnob is a getenv-presence switch that 0.3.13's Environ
// ReadBools too (a stderr warning for words it rejects), silent again at
// 0.3.14 (real).
func presenceEnvironKnob(name, reader, doc, since, src, src13, src14 string) Knob {
	return Knob{
		Name: name, Scope: ScopeEnv, Reader: reader, Type: "bool", Doc: doc, Since: since, Modelled: true,
		Rules: []Rule{{
			Parse: ParsePresence, Invalid: "getenv presence: any value, =0 and =false included, turns it on", Source: src,
		}, {
			From: "0.3.13", Parse: ParsePresenceReadBool, Default: "0",
			Invalid:      "getenv presence still decides (=0 too); Environ's ReadBool also warns on stderr for text it rejects (maybe, enabled, \"\"), once, when the store client is built (real 0.3.13.post1)",
			InvalidLog:   "[Mooncake] Warning: invalid value '{value}' for env " + name + ", using default 0",
			InvalidLevel: LevelStderr,
			Source:       src13,
		}, {
			From: "0.3.14", Parse: ParsePresence, Invalid: "getenv presence; no Environ warning (real 0.3.14: =maybe prints none)", Source: src14,
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {""}, "invalid": {"0", "maybe"}},
	}
}

// rpcIOThreadsKnob is one of 0.3.13's RPC client I/O thread counts.
func rpcIOThreadsKnob(name, doc, fallback string, line int) Knob {
	return Knob{
		Name: name, Scope: ScopeEnv, Reader: "store client, transfer engine", Type: "int", Doc: doc, Since: "0.3.13",
		Rules: []Rule{{
			Parse: ParseReadInt,
			Invalid: "Environ's ReadInt (a trimmed whole int); 0 or negative keeps " + fallback + " silently; other text prints \"[Mooncake] Warning: invalid value '<text>' for env " + name +
				", using default <n>\" on stderr, n = " + fallback + " (real 0.3.13.post1 and 0.3.14 on a 2-CPU host: \"using default 2\"; the default follows the host, so the model does not print it)",
			Source: fmt.Sprintf("main@3b5a594 mooncake-common/src/environ.cpp:%d,101-106,149-158; real 0.3.13.post1, 0.3.14 (§98)", line),
		}},
		Samples: map[string][]string{"valid": {"4"}, "boundary": {"1", "0"}, "invalid": {"x"}},
	}
}

// awsKnob is one of the S3 backend's client settings Environ reads from
// 0.3.12 (v0.3.12.post1 environ.cpp:130-147, consumed by
// mooncake-store/src/utils/s3_helper.cpp:84-117; main@3b5a594
// environ.cpp:207-225). kind: "string", "bool" (default true) or "int64".
func awsKnob(name, kind, def, doc string, line12, line13 int, valid, boundary, invalid []string) Knob {
	src12 := fmt.Sprintf("v0.3.12.post1 mooncake-common/src/environ.cpp:%d, mooncake-store/src/utils/s3_helper.cpp:84-117", line12)
	src13 := fmt.Sprintf("main@3b5a594 mooncake-common/src/environ.cpp:%d; real 0.3.13.post1 (§98)", line13)
	k := Knob{
		Name: name, Scope: ScopeEnv, Reader: "store client (S3 backend)", Type: kind, Doc: doc, Since: "0.3.12",
		Samples: map[string][]string{"valid": valid, "boundary": boundary, "invalid": invalid},
	}
	warn := "[Mooncake] Warning: invalid value '{value}' for env " + name + ", using default " + def
	switch kind {
	case "string":
		k.Type = "string"
		k.Rules = []Rule{{Parse: ParseString, Invalid: "used as is by the S3 backend's client; read at no other place", Source: src12 + "; " + src13}}
	case "bool":
		k.Modelled = true
		k.Rules = []Rule{{
			Parse: ParseGetBool, Default: def,
			Invalid: "Environ::GetBool: 1/true/on/yes (any case) on, anything else (0, maybe) off, silently",
			Source:  src12,
		}, {
			From: "0.3.13", Parse: ParseReadBool, Default: def,
			Invalid:    "ReadBool: words it rejects (maybe, \"\") keep on with a warning on stderr when the store client is built, whatever the backend (real 0.3.13.post1)",
			InvalidLog: warn, InvalidLevel: LevelStderr, Source: src13,
		}, {
			From: "0.3.14", Parse: ParseReadBool, Default: def,
			Invalid: "silent (real 0.3.14: maybe prints nothing at setup)",
			Source:  real014("no line for maybe"),
		}}
	default:
		k.Type, k.Modelled = "int", true
		k.Rules = []Rule{{
			Parse: ParseReadInt, Default: def,
			Invalid: "Environ::GetInt64: strtoll over the whole text, else a stderr warning and the default — printed only where Environ is built (the S3 backend's client); a tcp store setup does not build it (real 0.3.12.post1: 10s and x print nothing)",
			Source:  src12 + "; v0.3.12.post1 environ.cpp:34-45 GetInt64; real 0.3.12.post1",
		}, {
			From: "0.3.13", Parse: ParseReadInt, Default: def,
			Invalid:    "ReadInt64 (a trimmed whole integer): other text (10s, x) keeps the default with a warning on stderr when the store client is built (real 0.3.13.post1)",
			InvalidLog: warn, InvalidLevel: LevelStderr, Source: src13,
		}, {
			From: "0.3.14", Parse: ParseReadInt, Default: def,
			Invalid: "silent (real 0.3.14: 10s and x print nothing at setup)",
			Source:  real014("no line for 10s or x"),
		}}
	}
	return k
}

var teConfigKnobs = []Knob{
	configIntKnob("MC_NUM_CQ_PER_CTX", "completion queues per RDMA device context (default 1)", "", "1", 1, 255,
		"v0.3.4 mooncake-transfer-engine/src/config.cpp:22-30; v0.3.7.post2 :22-30; v0.3.9 :25-33 (real: config.cpp:31); v0.3.11 :25-36; v0.3.12.post1 :104-114 (real :113)",
		"main@3b5a594 config.cpp:104-115, mooncake-common/src/environ.cpp:160 ReadInt(…, 1); real 0.3.13.post1 config.cpp:113 and Environ's line for 2x",
		real014("config.cpp:130"), []string{"2"}, []string{"1", "255"}, []string{"0", "256"}),
	configIntKnob("MC_NUM_COMP_CHANNELS_PER_CTX", "completion channels per RDMA device context (default 1)", "", "1", 1, 255,
		"v0.3.4 config.cpp:32-41; v0.3.7.post2 :32-41; v0.3.9 :35-44 (real :42); v0.3.11 :38-47; v0.3.12.post1 :117-126 (real :124)",
		"main@3b5a594 config.cpp:117-126, environ.cpp:161-162 ReadInt(…, 1); real 0.3.13.post1 config.cpp:124",
		real014("config.cpp:141"), []string{"2"}, []string{"1", "255"}, []string{"256", "0"}),
	configIntKnob("MC_MAX_CQE_PER_CTX", "completion queue entries per RDMA device context (default 4096)", "", "4096", 1, 65535,
		"v0.3.4 config.cpp:64-72 (size_t val = atoi: a negative number wraps past UINT16_MAX); v0.3.7.post2 :64-72; v0.3.9 :67-75 (real :73); v0.3.11 :88-96; v0.3.12.post1 :167-175 (real :173)",
		"main@3b5a594 config.cpp:169-177, environ.cpp:167 ReadInt(…, 4096); real 0.3.13.post1 config.cpp:175",
		real014("config.cpp:192"), []string{"4096"}, []string{"1", "65535"}, []string{"65536", "-1"}),
	{
		Name: "MC_MAX_EP_PER_CTX", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc: "RDMA endpoints (QP sets) cached per device context (default 256; 65536 from 0.3.7.post1, which the env cannot set: 65535 is the most it takes)",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "256", Min: 1, Max: 65535,
			Invalid:    "atoi into a size_t; 0, a negative number and anything past 65535 ignored with a WARNING",
			InvalidLog: "Ignore value from environment variable MC_MAX_EP_PER_CTX",
			Source:     "v0.3.4 config.cpp:74-82, include/config.h:33 max_ep_per_ctx = 256",
		}, {
			From: "0.3.7.post1", Parse: ParseAtoi, Default: "65536", Min: 1, Max: 65535,
			Invalid:    "as before; the default is now 65536, above what the env may set",
			InvalidLog: "Ignore value from environment variable MC_MAX_EP_PER_CTX",
			Source:     "v0.3.7.post1 include/config.h max_ep_per_ctx = 65536; v0.3.7.post2 config.cpp:74-82; v0.3.9 :77-85 (real :83); v0.3.11 :98-106; v0.3.12.post1 :177-185 (real :183)",
		}, {
			From: "0.3.13", Parse: ParseAtoi, Default: "65536", Min: 1, Max: 65535, Environ: "int", EnvironDefault: "65536",
			Invalid:    "as before; Environ's ReadInt also warns on stderr for text that is not a whole int (real 0.3.13.post1)",
			InvalidLog: "Ignore value from environment variable MC_MAX_EP_PER_CTX",
			Source:     "main@3b5a594 config.cpp:179-187, environ.cpp:168 ReadInt(…, 65536); real 0.3.13.post1 config.cpp:185",
		}, {
			From: "0.3.14", Parse: ParseAtoi, Default: "65536", Min: 1, Max: 65535,
			Invalid:    "as before, no Environ line (real 0.3.14)",
			InvalidLog: "Ignore value from environment variable MC_MAX_EP_PER_CTX",
			Source:     real014("config.cpp:208"),
		}},
		Samples: map[string][]string{"valid": {"256"}, "boundary": {"65535"}, "invalid": {"0", "65536"}},
	},
	configIntKnob("MC_NUM_QP_PER_EP", "queue pairs per RDMA endpoint (default 2)", "", "2", 1, 255,
		"v0.3.4 config.cpp:84-92; v0.3.7.post2 :84-92; v0.3.9 :87-95 (real :93); v0.3.11 :108-116; v0.3.12.post1 :187-195 (real :193)",
		"main@3b5a594 config.cpp:189-197, environ.cpp:169 ReadInt(…, 2); real 0.3.13.post1 config.cpp:195",
		real014("config.cpp:218"), []string{"2"}, []string{"1", "255"}, []string{"256", "0"}),
	configIntKnob("MC_MAX_SGE", "scatter/gather entries per RDMA work request (default 4)", "", "4", 1, 65535,
		"v0.3.4 config.cpp:94-101 (size_t: a negative number wraps and is ignored); v0.3.7.post2 :94-101; v0.3.9 :97-104 (real :103); v0.3.11 :118-125; v0.3.12.post1 :197-204 (real :203)",
		"main@3b5a594 config.cpp:199-206, environ.cpp:170 ReadInt(…, 4); real 0.3.13.post1 config.cpp:205 and Environ's line for abc",
		real014("config.cpp:228"), []string{"4"}, []string{"1", "65535"}, []string{"0", "abc"}),
	configIntKnob("MC_MAX_WR", "outstanding work requests per RDMA queue pair (default 256)", "", "256", 1, 65535,
		"v0.3.4 config.cpp:103-110 (size_t: a negative number wraps and is ignored); v0.3.7.post2 :103-110; v0.3.9 :106-113 (real :112); v0.3.11 :127-134; v0.3.12.post1 :206-213 (real :212)",
		"main@3b5a594 config.cpp:208-217 (max_wr_from_env: EFA follows it), environ.cpp:171 ReadInt(…, 256); real 0.3.13.post1 config.cpp:215",
		real014("config.cpp:238"), []string{"256"}, []string{"1", "65535"}, []string{"-1", "0"}),
	configIntKnob("MC_MAX_INLINE", "bytes of inline data per RDMA send (default 64)", "", "64", 0, 65535,
		"v0.3.4 config.cpp:112-120 (size_t val <= UINT16_MAX: 0 is taken, a negative number wraps and is ignored); v0.3.7.post2 :112-120; v0.3.9 :115-123 (real :121); v0.3.11 :136-144; v0.3.12.post1 :215-223 (real :221)",
		"main@3b5a594 config.cpp:219-227, environ.cpp:172 ReadInt(…, 64); real 0.3.13.post1 config.cpp:225",
		real014("config.cpp:258"), []string{"64"}, []string{"0", "65535"}, []string{"70000", "-1"}),
	presenceEnvironKnob("MC_DISABLE_METACACHE", "transfer engine", "turn off the transfer engine's segment metadata cache (every transfer re-reads the peer's descriptor)", "",
		"v0.3.0 config.cpp (getenv presence: metacache = false); v0.3.4 config.cpp:180-183; v0.3.9 :194-197; v0.3.11 :226-229; v0.3.12.post1 :316-319",
		"main@3b5a594 config.cpp:320-323 getenv; environ.cpp:178 ReadBool(…, false); real 0.3.13.post1 (§96: ' Yes ' accepted; §98: maybe warns)",
		real014("no line for maybe, §96")),
	{
		Name: "MC_HANDSHAKE_LISTEN_BACKLOG", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "listen() backlog of the P2P handshake socket (default 128)",
		Since: "0.3.3",
		Rules: []Rule{{
			Parse: ParseStoiAbort, Default: "128", Min: 1, Max: 2147483647,
			Invalid:    "std::stoi without a catch, in globalConfig() (a static initializer: at import of mooncake.engine or mooncake.store): a value with no leading number (abc, \"\") aborts the process, \"terminate called after throwing an instance of 'std::invalid_argument'\" (real 0.3.9: SIGABRT, exit 134); 0 or less ignored with a WARNING; \"64x\" is 64",
			InvalidLog: "Ignore value from environment variable MC_HANDSHAKE_LISTEN_BACKLOG",
			Source:     "v0.3.3 config.cpp; v0.3.4 config.cpp:185-195; v0.3.7.post2 :185-195; v0.3.9 :199-209 (real :206, and the abort for abc); v0.3.11 :231-241; v0.3.11.post1 :233-236",
		}, {
			From: "0.3.12", Parse: ParseStoiCaught, Default: "128", Min: 1, Max: 2147483647,
			Invalid:     "std::stoi, caught: no leading number logs the exception and keeps 128; 0 or less ignored with a WARNING",
			InvalidLog:  "Ignore value from environment variable MC_HANDSHAKE_LISTEN_BACKLOG",
			UnparsedLog: "Invalid MC_HANDSHAKE_LISTEN_BACKLOG environment value: {value}. Error: stoi",
			Source:      "v0.3.12 config.cpp:342-356; v0.3.12.post1 :342-356 (real :350, :354)",
		}, {
			From: "0.3.13", Parse: ParseStoiCaught, Default: "128", Min: 1, Max: 2147483647, Environ: "int", EnvironDefault: "128",
			Invalid:     "as 0.3.12; Environ's ReadInt also warns on stderr for text that is not a whole int",
			InvalidLog:  "Ignore value from environment variable MC_HANDSHAKE_LISTEN_BACKLOG",
			UnparsedLog: "Invalid MC_HANDSHAKE_LISTEN_BACKLOG environment value: {value}. Error: stoi",
			Source:      "main@3b5a594 config.cpp:346-362, environ.cpp:179-180 ReadInt(…, 128); real 0.3.13.post1 config.cpp:354, :358",
		}, {
			From: "0.3.14", Parse: ParseStoiCaught, Default: "128", Min: 1, Max: 2147483647,
			Invalid:     "as 0.3.12, no Environ line (real 0.3.14)",
			InvalidLog:  "Ignore value from environment variable MC_HANDSHAKE_LISTEN_BACKLOG",
			UnparsedLog: "Invalid MC_HANDSHAKE_LISTEN_BACKLOG environment value: {value}. Error: stoi",
			Source:      real014("config.cpp:387, :391"),
		}},
		Samples: map[string][]string{"valid": {"128"}, "boundary": {"1"}, "invalid": {"0", "-5"}},
	},
	{
		Name: "MC_HANDSHAKE_MAX_LENGTH", Scope: ScopeEnv, Reader: "transfer engine", Type: "size", Modelled: true,
		Doc:   "largest P2P handshake message in bytes (default and minimum 1 MiB, at most 128 MiB)",
		Since: "0.3.9",
		Rules: []Rule{{
			Parse: ParseFromChars, Default: "1048576", Min: 1048576, Max: 134217728,
			Invalid:    "std::from_chars over the whole text, at the first handshake (not at config load): units (1MB), a sign, a space, or a value outside 1 MiB..128 MiB log a WARNING and keep 1 MiB",
			InvalidLog: "Invalid MC_HANDSHAKE_MAX_LENGTH value: {value}, valid range: 1048576 to 134217728, using default 1MB",
			Source:     "v0.3.9 mooncake-transfer-engine/include/common.h:372-397; v0.3.11 common.h:388-413; main@3b5a594 common.h:436-460",
		}, {
			From: "0.3.13", Parse: ParseFromChars, Default: "1048576", Min: 1048576, Max: 134217728, Environ: "int", EnvironDefault: "1048576",
			Invalid:    "as before; Environ's ReadInt also warns on stderr, at store setup, for text that is not a whole int (1MB: real 0.3.13.post1)",
			InvalidLog: "Invalid MC_HANDSHAKE_MAX_LENGTH value: {value}, valid range: 1048576 to 134217728, using default 1MB",
			Source:     "main@3b5a594 common.h:436-460, environ.cpp:181 ReadInt(…, 1048576); real 0.3.13.post1",
		}, {
			From: "0.3.14", Parse: ParseFromChars, Default: "1048576", Min: 1048576, Max: 134217728,
			Invalid:    "as before, no Environ line (real 0.3.14: 1MB prints nothing at setup)",
			InvalidLog: "Invalid MC_HANDSHAKE_MAX_LENGTH value: {value}, valid range: 1048576 to 134217728, using default 1MB",
			Source:     real014("no line at setup for 1MB"),
		}},
		Samples: map[string][]string{"valid": {"4194304"}, "boundary": {"1048576", "134217728"}, "invalid": {"1MB", "1024"}},
	},
	{
		Name: "MC_LOG_DIR", Scope: ScopeEnv, Reader: "transfer engine", Type: "string",
		Doc:   "directory for the transfer engine's glog files",
		Since: "0.3.2.post1",
		Rules: []Rule{{
			Parse: ParseString,
			Invalid: "any value calls InitGoogleLogging: from then on glog writes its files (the directory, else /tmp/mooncake-transfer-engine.*) and stderr keeps only ERROR and FATAL, so every later WARNING and INFO line leaves the console; a path that is not a writable directory logs \"Path [X] is not a valid directory path. Still logging to stderr.\" into the file only (real 0.3.9, 0.3.12.post1). " +
				"A process that imports both mooncake.engine and mooncake.store aborts at the second import: \"Check failed: !IsGoogleLoggingInitialized() You called InitGoogleLogging() twice!\", SIGABRT (real 0.3.9, 0.3.12.post1; the store alone sets up); at 0.3.12.post1 importing mooncake.engine alone already does, its package init importing the store (real, §104)",
			Source: "v0.3.2.post1 config.cpp; v0.3.4 config.cpp:223-240; v0.3.9 :237-254; v0.3.11 :269-286; v0.3.12.post1 :440-457; real 0.3.9, 0.3.12.post1 (§98)",
		}, {
			From: "0.3.13", Parse: ParseString,
			Invalid: "as before (std::filesystem::is_directory); at 0.3.13.post1, as at 0.3.12.post1, importing mooncake.engine alone aborts (its package init imports the store, and the two modules each load the config: \"You called InitGoogleLogging() twice!\", SIGABRT, exit 134), the store client alone sets up (real, §104)",
			Source:  "main@3b5a594 config.cpp:444-462, environ.cpp:182 ReadString; real 0.3.13.post1 (§98)",
		}, {
			From: "0.3.14", Parse: ParseString,
			Invalid: "files and ERROR-only stderr as before; importing mooncake.engine and mooncake.store together no longer aborts (real 0.3.14)",
			Source:  real014("config.cpp:529"),
		}},
		Samples: map[string][]string{"valid": {"/tmp"}, "boundary": {""}, "invalid": {"/nonexistent-dir"}},
	},
	{
		Name: "MC_FRAGMENT_RATIO", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "a slice's fragment limit is slice_size / ratio (default 4)",
		Since: "0.3.5",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "4", Min: 1, Max: 65535,
			Invalid:    "atoi into a size_t; 0, a negative number, or not below MC_SLICE_SIZE (65536 by default) logs a WARNING and keeps 4",
			InvalidLog: "Ignore value from environment variable MC_FRAGMENT_RATIO and set it to 4 as default",
			Source:     "v0.3.5 config.cpp; v0.3.7.post2 config.cpp:266-276; v0.3.9 :280-290 (real :286); v0.3.11 :305-315; v0.3.12.post1 :477-487 (real :483)",
		}, {
			From: "0.3.13", Parse: ParseAtoi, Default: "4", Min: 1, Max: 65535, Environ: "int", EnvironDefault: "4",
			Invalid:    "as before; Environ's ReadInt also warns on stderr for text that is not a whole int (4x: Environ's line, config.cpp takes 4 silently; real 0.3.13.post1)",
			InvalidLog: "Ignore value from environment variable MC_FRAGMENT_RATIO and set it to 4 as default",
			Source:     "main@3b5a594 config.cpp:481-491, environ.cpp:185 ReadInt(…, 4); real 0.3.13.post1 config.cpp:487",
		}, {
			From: "0.3.14", Parse: ParseAtoi, Default: "4", Min: 1, Max: 65535,
			Invalid:    "as before, no Environ line (real 0.3.14)",
			InvalidLog: "Ignore value from environment variable MC_FRAGMENT_RATIO and set it to 4 as default",
			Source:     real014("config.cpp:567"),
		}},
		Samples: map[string][]string{"valid": {"4"}, "boundary": {"1", "65535"}, "invalid": {"0", "65536"}},
	},
	presenceEnvironKnob("MC_ENABLE_DEST_DEVICE_AFFINITY", "transfer engine", "pick the local RNIC with the peer's device name", "0.3.5",
		"v0.3.5 config.cpp; v0.3.7.post2 config.cpp:278; v0.3.9 :292; v0.3.11 :317; v0.3.12.post1 :489",
		"main@3b5a594 config.cpp:493-495 getenv (and :508-515: with MC_ENABLE_HCA_PEER_AFFINITY both are dropped at ERROR), environ.cpp:186-187 ReadBool(…, false); real 0.3.13.post1",
		real014("no line for maybe")),
	{
		Name: "MC_ENABLE_PARALLEL_REG_MR", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "register memory with the RNICs in parallel: -1 auto (default), 0 off, 1 on",
		Since: "0.3.8",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "-1", Min: -1, Max: 1,
			Invalid:    "atoi (on, off and garbage are 0: off); outside -1..1 ignored with a WARNING",
			InvalidLog: "Ignore value from environment variable MC_ENABLE_PARALLEL_REG_MR",
			Source:     "v0.3.8 config.cpp; v0.3.9 config.cpp:296-306 (real :303); v0.3.11 :321-331; v0.3.12.post1 :529-539 (real :536)",
		}, {
			From: "0.3.13", Parse: ParseAtoi, Default: "-1", Min: -1, Max: 1, Environ: "int", EnvironDefault: "-1",
			Invalid:    "as before; Environ's ReadInt also warns on stderr for text that is not a whole int (on: Environ's line, config.cpp takes 0; real 0.3.13.post1)",
			InvalidLog: "Ignore value from environment variable MC_ENABLE_PARALLEL_REG_MR",
			Source:     "main@3b5a594 config.cpp:533-543, environ.cpp:193 ReadInt(…, -1); real 0.3.13.post1 config.cpp:599",
		}, {
			From: "0.3.14", Parse: ParseAtoi, Default: "-1", Min: -1, Max: 1,
			Invalid:    "as before, no Environ line (real 0.3.14)",
			InvalidLog: "Ignore value from environment variable MC_ENABLE_PARALLEL_REG_MR",
			Source:     real014("config.cpp:698"),
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"-1", "0"}, "invalid": {"2"}},
	},
	{
		Name: "MC_ENDPOINT_STORE_TYPE", Scope: ScopeEnv, Reader: "transfer engine", Type: "string", Modelled: true,
		Doc:   "RDMA endpoint cache eviction: FIFO or SIEVE (default)",
		Since: "0.3.8",
		Rules: []Rule{{
			Parse: ParseChoice, Default: "SIEVE", Choices: []string{"FIFO", "SIEVE"},
			Invalid:    "strcmp, case-sensitive: anything but FIFO or SIEVE (fifo, LRU, \"\") logs a WARNING and keeps SIEVE",
			InvalidLog: "Ignore value from environment variable MC_ENDPOINT_STORE_TYPE, it should be FIFO|SIEVE",
			Source:     "v0.3.8 config.cpp; v0.3.9 config.cpp:308-318 (real :315); v0.3.11 :333-343; v0.3.12.post1 :541-551 (real :548); main@3b5a594 :577-587, environ.cpp:194-195 ReadString; real 0.3.13.post1 :643; real 0.3.14 :786",
		}},
		Samples: map[string][]string{"valid": {"SIEVE"}, "boundary": {"FIFO"}, "invalid": {"LRU", "fifo"}},
	},
	{
		Name: "MC_IB_TC", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "RDMA traffic class of the transfer engine's QPs (default -1: the device's)",
		Since: "0.3.8",
		Rules: []Rule{{
			Parse: ParseStoiCaught, Default: "-1", Min: 0, Max: 255,
			Invalid:     "std::stoi, caught: no leading number logs the exception, outside 0..255 the range; either keeps -1 (\"3x\" is 3)",
			InvalidLog:  "Ignore value from environment variable MC_IB_TC, value {value} out of range (should be 0-255)",
			UnparsedLog: "Invalid MC_IB_TC environment value: {value}. Error: stoi",
			Source:      "v0.3.8 config.cpp; v0.3.9 config.cpp:320-336 (real :327, :333); v0.3.11 :345-361; v0.3.12.post1 :553-569 (real :560, :566)",
		}, {
			From: "0.3.13", Parse: ParseStoiCaught, Default: "-1", Min: 0, Max: 255, Environ: "int", EnvironDefault: "-1",
			Invalid:     "as before; Environ's ReadInt also warns on stderr for text that is not a whole int (real 0.3.13.post1)",
			InvalidLog:  "Ignore value from environment variable MC_IB_TC, value {value} out of range (should be 0-255)",
			UnparsedLog: "Invalid MC_IB_TC environment value: {value}. Error: stoi",
			Source:      "main@3b5a594 config.cpp:589-605, environ.cpp:164 ReadInt(…, -1); real 0.3.13.post1 config.cpp:655, :661",
		}, {
			From: "0.3.14", Parse: ParseStoiCaught, Default: "-1", Min: 0, Max: 255,
			Invalid:     "as before, no Environ line (real 0.3.14)",
			InvalidLog:  "Ignore value from environment variable MC_IB_TC, value {value} out of range (should be 0-255)",
			UnparsedLog: "Invalid MC_IB_TC environment value: {value}. Error: stoi",
			Source:      real014("config.cpp:798, :804"),
		}},
		Samples: map[string][]string{"valid": {"106"}, "boundary": {"0", "255"}, "invalid": {"300", "abc"}},
	},
	{
		Name: "MC_IB_PCI_RELAXED_ORDERING", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "PCIe relaxed ordering of memory registrations: 0 off, 1 on where supported, 2 auto (default 0; 1 from 0.3.13)",
		Since: "0.3.8",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "0", Min: 0, Max: 2,
			Invalid:    "atoi (garbage is 0: off); outside 0..2 ignored with a WARNING",
			InvalidLog: "Ignore value from environment variable MC_IB_PCI_RELAXED_ORDERING, it should be 0|1|2",
			Source:     "v0.3.8 config.cpp; v0.3.9 config.cpp:338-347 (real :345), include/config.h:65 = 0; v0.3.11 :363-372; v0.3.12.post1 :589-598 (real :596)",
		}, {
			From: "0.3.13", Parse: ParseAtoi, Default: "1", Min: 0, Max: 2, Environ: "int", EnvironDefault: "0",
			Invalid:    "as before, the default now 1 (Mooncake#3205); Environ's ReadInt (its default still 0) also warns on stderr for text that is not a whole int",
			InvalidLog: "Ignore value from environment variable MC_IB_PCI_RELAXED_ORDERING, it should be 0|1|2",
			Source:     "main@3b5a594 config.cpp:625-634, include/config.h:132 = 1 (66f1930b6), environ.cpp:165 ReadInt(…, 0); real 0.3.13.post1 config.cpp:691",
		}, {
			From: "0.3.14", Parse: ParseAtoi, Default: "1", Min: 0, Max: 2,
			Invalid:    "as before, no Environ line (real 0.3.14; the default not checked on real)",
			InvalidLog: "Ignore value from environment variable MC_IB_PCI_RELAXED_ORDERING, it should be 0|1|2",
			Source:     real014("config.cpp:834"),
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"0", "2"}, "invalid": {"3"}},
	},
	presenceEnvironKnob("MC_FORCE_MNNVL", "transfer engine (CUDA/MNNVL build)", "install the NVLink (MNNVL) transport instead of RDMA", "0.3.5",
		"v0.3.5 transfer_engine.cpp; v0.3.7.post2 transfer_engine.cpp:212; v0.3.9 transfer_engine_impl.cpp:244; v0.3.12.post1 transfer_engine_impl.cpp:331 (GetBool copy in environ.cpp v0.3.10:81, unused)",
		"main@3b5a594 transfer_engine_impl.cpp:331 getenv, environ.cpp:198 ReadBool(…, false); real 0.3.13.post1",
		real014("no line for maybe")),
	{
		Name: "MC_INTRA_NVLINK", Scope: ScopeEnv, Reader: "Environ (no reader uses it)", Type: "bool", Modelled: true,
		Doc:   "read into Environ and never used (the transfer engine reads MC_INTRANODE_NVLINK)",
		Since: "0.3.10",
		Rules: []Rule{{
			Parse: ParseGetBool, Default: "0",
			Invalid: "Environ::GetBool, silent; no code reads the value",
			Source:  "v0.3.10 mooncake-common/src/environ.cpp:82 GetBool(…, false); v0.3.11 :82; v0.3.12.post1 :124",
		}, {
			From: "0.3.13", Parse: ParseReadBool, Default: "0",
			Invalid:      "ReadBool: words it rejects (maybe, \"\") print a warning on stderr at store setup; still unused",
			InvalidLog:   "[Mooncake] Warning: invalid value '{value}' for env MC_INTRA_NVLINK, using default 0",
			InvalidLevel: LevelStderr,
			Source:       "main@3b5a594 environ.cpp:199 ReadBool(…, false); real 0.3.13.post1",
		}, {
			From: "0.3.14", Parse: ParseReadBool, Default: "0",
			Invalid: "silent (real 0.3.14: maybe prints nothing)",
			Source:  real014("no line for maybe"),
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"0"}, "invalid": {"maybe"}},
	},
	{
		Name: "MC_PATH_ROUNDROBIN", Scope: ScopeEnv, Reader: "transfer engine", Type: "bool", Modelled: true,
		Doc:   "spread slices over the RNICs round-robin instead of by topology",
		Since: "0.3.7.post1",
		Rules: []Rule{{
			Parse:   ParseOneOrTrue,
			Invalid: "1, or true in any case, is on; anything else (yes, on) is off, silently",
			Source:  "v0.3.7.post1 topology.cpp; v0.3.7.post2 topology.cpp:215-220; v0.3.9 :339-344; v0.3.12.post1 :596-601",
		}, {
			From: "0.3.13", Parse: ParseOneOrTrue, Environ: "bool", EnvironDefault: "0",
			Invalid: "as before; Environ's ReadBool also warns on stderr for words it rejects (maybe, enabled, \"\"; real 0.3.13.post1)",
			Source:  "main@3b5a594 topology.cpp:598-603, environ.cpp:200 ReadBool(…, false); real 0.3.13.post1",
		}, {
			From: "0.3.14", Parse: ParseOneOrTrue,
			Invalid: "as before, no Environ line (real 0.3.14)",
			Source:  real014("no line for maybe"),
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"TRUE"}, "invalid": {"yes", "maybe"}},
	},
	{
		Name: "MC_EFA_CQ_THREADS", Scope: ScopeEnv, Reader: "transfer engine (EFA transport)", Type: "int", Modelled: true,
		Doc:   "cap on the EFA transport's CQ poller threads (default 1; 0 or less: no cap)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "1",
			Invalid: "Environ::GetInt, atoi (garbage is 0: no cap), silent",
			Source:  "v0.3.12 mooncake-common/src/environ.cpp GetInt(\"MC_EFA_CQ_THREADS\", 1), efa_transport.cpp:100-105; v0.3.12.post1 environ.cpp:127",
		}, {
			From: "0.3.13", Parse: ParseReadInt, Default: "1",
			Invalid:      "ReadInt: text that is not a whole int keeps 1 with a warning on stderr at store setup (real 0.3.13.post1)",
			InvalidLog:   "[Mooncake] Warning: invalid value '{value}' for env MC_EFA_CQ_THREADS, using default 1",
			InvalidLevel: LevelStderr,
			Source:       "main@3b5a594 environ.cpp:202 ReadInt(…, 1), efa_transport.cpp:103-108; real 0.3.13.post1",
		}, {
			From: "0.3.14", Parse: ParseReadInt, Default: "1",
			Invalid:    "read by the transfer engine's config load: text that is not a whole int keeps 1 with a glog WARNING; -1 is taken silently (real 0.3.14)",
			InvalidLog: "Invalid MC_EFA_CQ_THREADS environment value: {value}, keeping default 1",
			Source:     real014("config.cpp:754"),
		}},
		Samples: map[string][]string{"valid": {"2"}, "boundary": {"0"}, "invalid": {"x"}},
	},
	{
		Name: "MOONCAKE_STORE_CHECKSUM", Scope: ScopeEnv, Reader: "store client", Type: "bool", Modelled: true,
		Doc:   "checksum objects in the store client (diagnostics)",
		Since: "0.3.13",
		Rules: []Rule{{
			Parse: ParseReadBool, Default: "0",
			Invalid:      "ReadBool: 1/true/yes/on/enable, 0/false/no/off/disable (trimmed, words in any case); anything else keeps off with a warning on stderr when the store client is built (real 0.3.13.post1, 0.3.14)",
			InvalidLog:   "[Mooncake] Warning: invalid value '{value}' for env MOONCAKE_STORE_CHECKSUM, using default 0",
			InvalidLevel: LevelStderr,
			Source:       "main@3b5a594 environ.cpp:203-204 ReadBool(…, false), client_service.cpp:419 (Mooncake#3003); real 0.3.13.post1, 0.3.14 (§96, §98)",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {" Yes "}, "invalid": {"maybe"}},
	},
	{
		Name: "MC_REDIS_PASSWORD", Scope: ScopeEnv, Reader: "transfer engine (redis:// metadata)", Type: "string",
		Doc:   "password of the redis metadata server",
		Since: "0.3.4.post2",
		Rules: []Rule{{
			Parse: ParseString, Invalid: "used as is, only with redis:// metadata (a wrong one fails the metadata connection)",
			Source: "v0.3.4.post2 transfer_metadata_plugin.cpp:473; v0.3.9 :545; v0.3.12.post1 :558; main@3b5a594 :558, environ.cpp:183",
		}},
		Samples: map[string][]string{"valid": {"secret"}, "boundary": {""}, "invalid": {"wrong password"}},
	},
	{
		Name: "MC_REDIS_DB_INDEX", Scope: ScopeEnv, Reader: "transfer engine (redis:// metadata)", Type: "int", Modelled: true,
		Doc:   "redis database of the metadata (default 0)",
		Since: "0.3.4.post2",
		Rules: []Rule{{
			Parse: ParseStoiCaught, Default: "0", Min: 0, Max: 255,
			Invalid:     "std::stoi, caught, only with redis:// metadata: outside 0..255 or no number keeps 0 with a WARNING",
			InvalidLog:  "Invalid Redis DB index: {value}, using default 0",
			UnparsedLog: "Failed to parse MC_REDIS_DB_INDEX: stoi, using default 0",
			Source:      "v0.3.4.post2 transfer_metadata_plugin.cpp:477-492; v0.3.9 :549-563; v0.3.12.post1 :562-576",
		}, {
			From: "0.3.13", Parse: ParseStoiCaught, Default: "0", Min: 0, Max: 255, Environ: "int", EnvironDefault: "0",
			Invalid:     "as before; Environ's ReadInt also warns on stderr at store setup for text that is not a whole int, whatever the metadata (real 0.3.13.post1)",
			InvalidLog:  "Invalid Redis DB index: {value}, using default 0",
			UnparsedLog: "Failed to parse MC_REDIS_DB_INDEX: stoi, using default 0",
			Source:      "main@3b5a594 transfer_metadata_plugin.cpp:562-576, environ.cpp:184 ReadInt(…, 0); real 0.3.13.post1",
		}, {
			From: "0.3.14", Parse: ParseStoiCaught, Default: "0", Min: 0, Max: 255,
			Invalid:     "as before, no Environ line (real 0.3.14)",
			InvalidLog:  "Invalid Redis DB index: {value}, using default 0",
			UnparsedLog: "Failed to parse MC_REDIS_DB_INDEX: stoi, using default 0",
			Source:      real014("no line at setup for x"),
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"0", "255"}, "invalid": {"256", "x"}},
	},
	rpcIOThreadsKnob("MC_RPC_CLIENT_IO_THREADS", "I/O threads of the RPC clients (default min(16, CPUs))", "min(16, CPUs)", 11),
	rpcIOThreadsKnob("MC_STORE_RPC_CLIENT_IO_THREADS", "I/O threads of the store's RPC client (default MC_RPC_CLIENT_IO_THREADS)", "MC_RPC_CLIENT_IO_THREADS's value", 12),
	rpcIOThreadsKnob("MC_TE_RPC_CLIENT_IO_THREADS", "I/O threads of the transfer engine's RPC client (default MC_RPC_CLIENT_IO_THREADS)", "MC_RPC_CLIENT_IO_THREADS's value", 13),
	awsKnob("MOONCAKE_AWS_REGION", "string", "", "the S3 backend's region", 130, 207, []string{"us-east-1"}, []string{""}, []string{"nowhere"}),
	awsKnob("MOONCAKE_AWS_S3_ENDPOINT", "string", "", "the S3 backend's endpoint override", 131, 208, []string{"http://127.0.0.1:9000"}, []string{""}, []string{"not a url"}),
	awsKnob("MOONCAKE_AWS_BUCKET_NAME", "string", "", "the S3 backend's bucket", 132, 209, []string{"mooncake"}, []string{""}, []string{"Bad_Bucket"}),
	awsKnob("MOONCAKE_AWS_ACCESS_KEY_ID", "string", "", "the S3 backend's access key", 133, 210, []string{"AKIAEXAMPLE"}, []string{""}, []string{"wrong"}),
	awsKnob("MOONCAKE_AWS_SECRET_ACCESS_KEY", "string", "", "the S3 backend's secret key", 134, 211, []string{"secret"}, []string{""}, []string{"wrong"}),
	awsKnob("MOONCAKE_AWS_USE_VIRTUAL_ADDRESSING", "bool", "1", "virtual-hosted bucket addressing (default on)", 136, 214, []string{"1"}, []string{"false"}, []string{"maybe"}),
	awsKnob("MOONCAKE_AWS_USE_HTTPS", "bool", "1", "HTTPS to the S3 endpoint (default on)", 137, 215, []string{"1"}, []string{"0"}, []string{"maybe"}),
	awsKnob("MOONCAKE_AWS_REQUEST_CHECKSUM_CALCULATION", "string", "", "the AWS SDK's request checksum mode (\"\" keeps the SDK's)", 141, 219, []string{"WHEN_REQUIRED"}, []string{""}, []string{"sometimes"}),
	awsKnob("MOONCAKE_AWS_RESPONSE_CHECKSUM_VALIDATION", "string", "", "the AWS SDK's response checksum mode (\"\" keeps the SDK's)", 143, 221, []string{"WHEN_REQUIRED"}, []string{""}, []string{"sometimes"}),
	awsKnob("MOONCAKE_AWS_CONNECT_TIMEOUT_MS", "int64", "10000", "the S3 client's connect timeout in ms (default 10000)", 145, 223, []string{"5000"}, []string{"0"}, []string{"10s", "x"}),
	awsKnob("MOONCAKE_AWS_REQUEST_TIMEOUT_MS", "int64", "30000", "the S3 client's request timeout in ms (default 30000)", 147, 225, []string{"30000"}, []string{"1"}, []string{"10s"}),
	// Knobs only recent releases read (config.cpp; real 0.3.12.post1,
	// 0.3.13.post1, 0.3.14 by hand, REAL-FINDINGS §100).
	{
		Name: "MC_PKEY_INDEX", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "the RDMA QPs' partition key index (default 0)",
		Since: "0.3.11",
		Rules: []Rule{{
			Parse: ParseStoiCaught, Default: "0", Min: 0, Max: 65535,
			Invalid:     "std::stoi, caught: no leading number logs the exception, outside 0..65535 the range; either keeps 0",
			InvalidLog:  "Ignore value from environment variable MC_PKEY_INDEX, value {value} out of range (should be 0-65535)",
			UnparsedLog: "Invalid MC_PKEY_INDEX environment value: {value}. Error: stoi",
			Source:      "v0.3.11 config.cpp:70-86; v0.3.12.post1 :149-165 (real :162); main@3b5a594 :151-167, include/config.h:47; real 0.3.13.post1 :158, :164; real 0.3.14 :175, :181",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"0", "65535"}, "invalid": {"70000", "abc"}},
	},
	{
		Name: "MC_MLX5_QP_LAG_PORT_BALANCE", Scope: ScopeEnv, Reader: "transfer engine", Type: "bool", Modelled: true,
		Doc:   "spread an mlx5 LAG device's QPs over its ports (default off)",
		Since: "0.3.11.post1",
		Rules: []Rule{{
			Parse: ParseChoice, Default: "0", Choices: []string{"1", "true", "0", "false", ""},
			Invalid:    "trimmed of spaces and tabs, then exactly 1/true or 0/false; anything else is ignored with a WARNING (the text trimmed; empty: silent)",
			InvalidLog: "Ignore MC_MLX5_QP_LAG_PORT_BALANCE: expected 0/1/true/false, got: {value}",
			Source:     "v0.3.11.post1 config.cpp:410-428; v0.3.12.post1 :637-655 (real :650); main@3b5a594 :672-690; real 0.3.13.post1 :745; real 0.3.14 :888",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"false"}, "invalid": {"yes"}},
	},
	{
		Name: "MC_IB_SL", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "RDMA service level of the transfer engine's QPs (default -1: the device's)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseStoiCaught, Default: "-1", Min: 0, Max: 15,
			Invalid:     "std::stoi, caught: no leading number logs the exception, outside 0..15 the range; either keeps -1",
			InvalidLog:  "Ignore value from environment variable MC_IB_SL, value {value} out of range (should be 0-15)",
			UnparsedLog: "Invalid MC_IB_SL environment value: {value}. Error: stoi",
			Source:      "v0.3.12.post1 config.cpp:571-587 (real :578); main@3b5a594 :607-623, include/config.h:120; real 0.3.13.post1 :673, :679; real 0.3.14 :816, :822",
		}},
		Samples: map[string][]string{"valid": {"3"}, "boundary": {"0", "15"}, "invalid": {"16", "abc"}},
	},
	{
		Name: "MC_TE_METADATA_REFRESH_INTERVAL_SECONDS", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "how often the transfer engine re-reads peers' metadata, in seconds (default 0: never)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseStoiCaught, Default: "0", Min: 0, Max: 2147483647,
			Invalid:     "std::stoi, caught: no leading number logs the exception, a negative number is ignored; either keeps 0",
			InvalidLog:  "Ignore value from environment variable MC_TE_METADATA_REFRESH_INTERVAL_SECONDS",
			UnparsedLog: "Invalid MC_TE_METADATA_REFRESH_INTERVAL_SECONDS environment value: {value}. Error: stoi",
			Source:      "v0.3.12.post1 config.cpp:321-342 (real :330); main@3b5a594 :325-346, include/config.h:82; real 0.3.13.post1 :334, :338; real 0.3.14 :367, :371",
		}},
		Samples: map[string][]string{"valid": {"30"}, "boundary": {"0"}, "invalid": {"-1", "abc"}},
	},
	{
		Name: "MC_RDMA_RAIL_PAUSE_SECONDS", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "how long an RDMA rail that failed is left out, in seconds (default 30)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseStoiCaught, Default: "30", Min: 1, Max: 3599,
			Invalid:     "std::stoi, caught: no leading number logs the exception, outside 1..3599 is ignored; either keeps 30",
			InvalidLog:  "Ignore value from environment variable MC_RDMA_RAIL_PAUSE_SECONDS",
			UnparsedLog: "Invalid MC_RDMA_RAIL_PAUSE_SECONDS environment value: {value}. Error: stoi",
			Source:      "v0.3.12.post1 config.cpp:371-391 (real :379); main@3b5a594 :375-392, include/config.h:76; real 0.3.13.post1 :383, :387; real 0.3.14 :416, :420",
		}},
		Samples: map[string][]string{"valid": {"10"}, "boundary": {"1", "3599"}, "invalid": {"-1", "3600", "abc"}},
	},
	{
		Name: "MC_CONN_PAUSE_TTL_MS", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "how long a failed peer connection is paused, in ms (default 0: off)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseFromCharsInt, Default: "0", Min: 0, Max: 600000,
			Invalid:     "std::from_chars into an int over the whole text (no space, '+' or unit); outside 0..600000 the range line; either keeps 0",
			InvalidLog:  "Ignore value from environment variable MC_CONN_PAUSE_TTL_MS, value {value} out of range (should be 0-600000)",
			UnparsedLog: "Invalid MC_CONN_PAUSE_TTL_MS environment value: {value}. Expected an integer in range 0-600000",
			Source:      "v0.3.12.post1 config.cpp:415-440 (real :434); main@3b5a594 :419-442, include/config.h:93; real 0.3.13.post1 :432, :438; real 0.3.14 :485, :491",
		}},
		Samples: map[string][]string{"valid": {"1000"}, "boundary": {"0", "600000"}, "invalid": {"700000", "abc"}},
	},
	{
		Name: "MC_CONTEXT_PAUSE_TTL_MS", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "how long a failed RDMA context is paused, in ms (0.3.14; its default is not in any source here)",
		Since: "0.3.14",
		Rules: []Rule{{
			Parse: ParseFromCharsInt, Min: 1, Max: 600000,
			Invalid:     "as MC_CONN_PAUSE_TTL_MS, range 1..600000 (real 0.3.14)",
			InvalidLog:  "Ignore value from environment variable MC_CONTEXT_PAUSE_TTL_MS, value {value} out of range (should be 1-600000)",
			UnparsedLog: "Invalid MC_CONTEXT_PAUSE_TTL_MS environment value: {value}. Expected an integer in range 1-600000",
			Source:      "real 0.3.14 (no source here): config.cpp:509, :515; REAL-FINDINGS §100",
		}},
		Samples: map[string][]string{"valid": {"1000"}, "boundary": {"1", "600000"}, "invalid": {"700000", "abc"}},
	},
	{
		Name: "MC_MAX_CONCURRENT_REG_MR", Scope: ScopeEnv, Reader: "transfer engine", Type: "uint64", Modelled: true,
		Doc:   "cap on memory registrations in flight at once (default 0: no cap)",
		Since: "0.3.13",
		Rules: []Rule{{
			Parse: ParseFromChars, Default: "0",
			Invalid:    "std::from_chars into a size_t over the whole text: a sign, space or unit is rejected with a WARNING and keeps 0",
			InvalidLog: "Invalid MC_MAX_CONCURRENT_REG_MR environment value: {value}, keeping default",
			Source:     "main@3b5a594 config.cpp:545-562, include/config.h:108; real 0.3.13.post1 :617; real 0.3.14 :716; not read at v0.3.12.post1 (real: silent)",
		}},
		Samples: map[string][]string{"valid": {"4"}, "boundary": {"0"}, "invalid": {"-1", "abc"}},
	},
	{
		Name: "MC_EFA_NIC_SELECTION", Scope: ScopeEnv, Reader: "transfer engine (EFA)", Type: "string", Modelled: true,
		Doc:   "which EFA NICs a process uses: all or the ones local to its GPU (default all)",
		Since: "0.3.13",
		Rules: []Rule{{
			Parse: ParseChoice, Default: "all", Choices: []string{"all", "local"}, FoldCase: true,
			Invalid:    "all or local in any case (strcasecmp); anything else is a WARNING and keeps all",
			InvalidLog: "Invalid MC_EFA_NIC_SELECTION environment value: {value}, expected all|local, keeping default",
			Source:     "main@3b5a594 config.cpp:564-575, include/config.h:113; real 0.3.13.post1 :630; real 0.3.14 :729; not read at v0.3.12.post1 (real: silent)",
		}},
		Samples: map[string][]string{"valid": {"local"}, "boundary": {"ALL"}, "invalid": {"some"}},
	},
	{
		Name: "MC_HIP_KFD_PIN_FIX", Scope: ScopeEnv, Reader: "transfer engine (HIP)", Type: "string", Modelled: true,
		Doc:   "the HIP build's KFD pinning workaround: 0, 1 or force (0.3.14; its default is not in any source here)",
		Since: "0.3.14",
		Rules: []Rule{{
			Parse: ParseChoice, Choices: []string{"0", "1", "force"},
			Invalid:    "0, 1 or force; anything else is a WARNING and keeps the default (real 0.3.14; the case rule not probed)",
			InvalidLog: "Invalid MC_HIP_KFD_PIN_FIX environment value: {value}, expected 0|1|force, keeping default",
			Source:     "real 0.3.14 (no source here): config.cpp:743; REAL-FINDINGS §100",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"0"}, "invalid": {"2"}},
	},
	// The last seven config.cpp knobs the wheels read (real 0.3.9,
	// 0.3.12.post1, 0.3.13.post1, 0.3.14 by hand, REAL-FINDINGS §102).
	// Each prints its line at TE init (loadGlobalConfig), so models/te
	// prints it (configWarned); what the value then changes is on paths
	// the model does not run (the barex transport, RDMA handshakes and
	// completions, the slice-timeout check of getTransferStatus).
	{
		Name: "MC_MIN_REG_SIZE", Scope: ScopeEnv, Reader: "transfer engine (barex transport)", Type: "size", Modelled: true,
		Doc:   "the barex transport's largest registration block in bytes (eic_max_block_size, default 64 MiB); read by every build, used only by barex",
		Since: "0.3.8",
		Rules: []Rule{{
			Parse: ParseUAtol, Default: "67108864", Min: 1, Max: math.MaxInt64,
			Invalid:    "atoll into a size_t: \"1MB\" is 1, \"abc\" and 0 log the WARNING and keep 64 MiB, a negative number wraps and is taken; a taken value logs INFO \"Barex set MC_MIN_REG_SIZE=<size_t>\" (-1: 18446744073709551615), which models/te prints too (real 0.3.9, 0.3.13.post1, 0.3.14)",
			InvalidLog: "Ignore value from environment variable MC_MIN_REG_SIZE",
			Source:     "v0.3.8 mooncake-transfer-engine/src/config.cpp:173-182; v0.3.9 :173-182, include/config.h:61 = 64 MiB (real :178, :180); v0.3.11 :194-203; v0.3.12.post1 :272-281 (real :279); main@3b5a594 :276-285, include/config.h:114, barex_transport.cpp:148,357; real 0.3.13.post1 :281, :283; real 0.3.14 :314, :316",
		}},
		Samples: map[string][]string{"valid": {"1048576"}, "boundary": {"1", "-1"}, "invalid": {"0", "abc"}},
	},
	{
		Name: "MC_SLICE_TIMEOUT", Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Modelled: true,
		Doc:   "seconds after which getTransferStatus fails a transfer whose slices have not completed (default -1: never)",
		Since: "0.3.2",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "-1", Min: 1, Max: 65535,
			Invalid:    "atoi (\"30s\" is 30); 0, a negative number, a word or anything past 65535 logs the WARNING and keeps -1 (real 0.3.9: 65536, -1, abc, 0). Read after MC_LOG_LEVEL sets glog's level, so MC_LOG_LEVEL=ERROR hides this line on real (not modelled); the timeout itself (multi_transport.cpp:264) is not modelled",
			InvalidLog: "Ignore value from environment variable MC_SLICE_TIMEOUT",
			Source:     "v0.3.2 config.cpp:198-206; v0.3.4 :213-221; v0.3.9 :227-235, include/config.h:54 = -1 (real :233); v0.3.11 :259-267; v0.3.12.post1 :405-413 (real :411); main@3b5a594 :409-417, include/config.h:85, multi_transport.cpp:264-267; real 0.3.13.post1 :415; real 0.3.14 :468",
		}},
		Samples: map[string][]string{"valid": {"30"}, "boundary": {"1", "65535"}, "invalid": {"0", "65536"}},
	},
	{
		Name: "MC_AUTO_GID_MAX_RETRIES", Scope: ScopeEnv, Reader: "transfer engine (RDMA)", Type: "int", Modelled: true,
		Doc:   "how many times a classic RDMA handshake re-probes the local GID when it fails (default 2; 0: never)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "2", Min: 0, Max: 16,
			Invalid:    "atoi (\"abc\" is 0: taken silently, no retry); outside 0..16 logs the WARNING and keeps 2 (real 0.3.12.post1, 0.3.13.post1, 0.3.14: 17). The retries run in an RDMA handshake (rdma_endpoint.cpp), which the model does not take",
			InvalidLog: "Ignore value from environment variable MC_AUTO_GID_MAX_RETRIES",
			Source:     "v0.3.12.post1 config.cpp:304-314 (real :311); main@3b5a594 :308-318, include/config.h:66 = 2, rdma_endpoint.cpp:575,759; real 0.3.13.post1 :315; real 0.3.14 :348",
		}},
		Samples: map[string][]string{"valid": {"4"}, "boundary": {"0", "16"}, "invalid": {"17", "-1"}},
	},
	hcaBoolKnob("MC_ENABLE_HCA_PEER_AFFINITY", "transfer engine (RDMA)",
		"pick the peer's RNIC from MC_NIC_PEER_AFFINITY's mapping (default off). With MC_ENABLE_DEST_DEVICE_AFFINITY set too, both are dropped with an ERROR at config load; on, with no valid mapping, topology discovery warns",
		"v0.3.12.post1 config.cpp:47-59 parseBoolConfigEnv, :493-511 (real :56, :505), topology.cpp:304-316 (real :313); main@3b5a594 :497-515; real 0.3.13.post1 :56, :509, topology.cpp:313; real 0.3.14 :61, :589, topology.cpp:415",
		"the mapping is used when the RDMA transport picks a peer device, which the model does not"),
	{
		Name: "MC_NIC_PEER_AFFINITY", Scope: ScopeEnv, Reader: "transfer engine (RDMA)", Type: "string", Modelled: true,
		Doc:   "local_hca=peer_hca[,peer_hca];… — which peer RNICs each local RNIC prefers, with MC_ENABLE_HCA_PEER_AFFINITY",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse:   ParseNicPeerAffinity,
			Invalid: "read whether or not MC_ENABLE_HCA_PEER_AFFINITY is on: rules split at ';' and trimmed; a rule without '=', with an empty local HCA or with no peer HCA logs its own WARNING (three texts) and is dropped, the rest kept (real 0.3.12.post1, 0.3.13.post1, 0.3.14). The mappings steer the RDMA transport's peer device choice, which the model does not take",
			Source:  "v0.3.12.post1 config.cpp:61-101, :501-502 (real :73, :80, :92); main@3b5a594 :61-101, :505-506; real 0.3.13.post1 :73, :80, :92; real 0.3.14 :78, :85, :97",
		}},
		Samples: map[string][]string{"valid": {"mlx5_0=mlx5_1,mlx5_2"}, "boundary": {"", " mlx5_0 = mlx5_1 ;"}, "invalid": {"mlx5_0", "=mlx5_1", "mlx5_0="}},
	},
	hcaBoolKnob("MC_LOG_RDMA_SLICE_AFFINITY", "transfer engine (RDMA)",
		"log each RDMA slice's local and peer device choice (default off)",
		"v0.3.12.post1 config.cpp:513-519 (real :56); main@3b5a594 :517-523, rdma_transport.cpp:972, worker_pool.cpp:261,836; real 0.3.13.post1 :56; real 0.3.14 :61",
		"the lines it turns on are an RDMA data path's, which the model does not run"),
	hcaBoolKnob("MC_TRACK_RDMA_POSTED_SLICES", "transfer engine (RDMA)",
		"track posted RDMA slices so a CQ timeout names the stuck ones (default off; adds locking on the RDMA post and poll paths)",
		"v0.3.12.post1 config.cpp:521-527 (real :56); main@3b5a594 :525-531, worker_pool.cpp:340-350,605,1309; real 0.3.13.post1 :56; real 0.3.14 :61",
		"the tracking is an RDMA data path's, which the model does not run"),
}

// hcaBoolKnob is a 0.3.12 config.cpp switch read with parseBoolConfigEnv
// (v0.3.12.post1 config.cpp:47-59): "1" or "0" exactly, true or false in
// any case (strcasecmp), no trimming; anything else, "" included, logs
// "Ignore value from environment variable X, it should be 0|1|true|false"
// and keeps off.
func hcaBoolKnob(name, reader, doc, src, unmodelled string) Knob {
	return Knob{
		Name: name, Scope: ScopeEnv, Reader: reader, Type: "bool", Doc: doc, Since: "0.3.12", Modelled: true,
		Rules: []Rule{{
			Parse: ParseChoice, Default: "0", Choices: []string{"1", "true", "0", "false"}, FoldCase: true,
			Invalid:    "1/0, or true/false in any case, untrimmed; anything else (yes, on, maybe, \" 1\", \"\") logs the WARNING at TE init and keeps off (real 0.3.12.post1, 0.3.13.post1, 0.3.14); " + unmodelled,
			InvalidLog: "Ignore value from environment variable " + name + ", it should be 0|1|true|false",
			Source:     src,
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {"TRUE", "0"}, "invalid": {"yes", ""}},
	}
}

// HCAPeerAffinityOn is whether version v's loadGlobalConfig leaves
// enable_hca_peer_affinity on for env: MC_ENABLE_HCA_PEER_AFFINITY 1 or
// true, and MC_ENABLE_DEST_DEVICE_AFFINITY unset (both set: both dropped,
// HCAPeerAffinityConflict's ERROR).
func HCAPeerAffinityOn(v Version, env map[string]string) bool {
	return hcaPeerAffinityWanted(v, env) && !destDeviceAffinitySet(v, env)
}

// HCAPeerAffinityConflict is config.cpp's ERROR when both peer-device
// affinities are asked for (v0.3.12.post1 config.cpp:504-511; real
// 0.3.12.post1, 0.3.13.post1, 0.3.14), "" when it does not print.
func HCAPeerAffinityConflict(v Version, env map[string]string) string {
	if !hcaPeerAffinityWanted(v, env) || !destDeviceAffinitySet(v, env) {
		return ""
	}
	return "MC_ENABLE_HCA_PEER_AFFINITY and MC_ENABLE_DEST_DEVICE_AFFINITY cannot be enabled at the same time; falling back to default peer device selection."
}

// HCAPeerAffinityUnmapped is topology.cpp's WARNING at each topology
// discovery when the affinity is on but MC_NIC_PEER_AFFINITY kept no
// mapping (v0.3.12.post1 topology.cpp:310-316; real 0.3.12.post1,
// 0.3.13.post1 :313, 0.3.14 :415, after "No RDMA devices found"), "" when
// it does not print.
func HCAPeerAffinityUnmapped(v Version, env map[string]string) string {
	if !HCAPeerAffinityOn(v, env) {
		return ""
	}
	raw, set := env["MC_NIC_PEER_AFFINITY"]
	if set && ParseKnob(v, "MC_NIC_PEER_AFFINITY", raw, true).Int > 0 {
		return ""
	}
	return "MC_ENABLE_HCA_PEER_AFFINITY is set, but MC_NIC_PEER_AFFINITY has no valid mappings."
}

func hcaPeerAffinityWanted(v Version, env map[string]string) bool {
	raw, set := env["MC_ENABLE_HCA_PEER_AFFINITY"]
	pv := ParseKnob(v, "MC_ENABLE_HCA_PEER_AFFINITY", raw, set)
	return pv.Read && !pv.Fallback && (raw == "1" || strings.EqualFold(raw, "true"))
}

func destDeviceAffinitySet(v Version, env map[string]string) bool {
	_, set := env["MC_ENABLE_DEST_DEVICE_AFFINITY"]
	k, ok := KnobByName("MC_ENABLE_DEST_DEVICE_AFFINITY")
	return set && ok && k.ReadAt(v)
}
