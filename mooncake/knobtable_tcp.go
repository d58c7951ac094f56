package mooncake

import (
	"fmt"
	"math"
)

// tcpKnobs are the TCP transport's lane, admission, framing and I/O knobs
// (tcp_transport.cpp, tcp_transport_session_impl.h) and the engine side of
// the HTTP metadata token, appended to Knobs. Real 0.3.12.post1,
// 0.3.13.post1 and 0.3.14 checked by hand (two TransferEngines, tcp,
// P2PHANDSHAKE or HTTP metadata, a write and a read; notes/s108.md): each
// line below is the wheel's. The lane knobs are read by every TcpTransport
// constructor, so a process logs their line once per transfer engine,
// whatever MC_TCP_ENABLE_CONNECTION_POOL says. No model reads them yet.
func init() { Knobs = append(Knobs, tcpKnobs...) }

// No 0.3.13 or 0.3.14 source is stored (the mirror's newest is
// main@3b5a594, the code index has no 0.3.14 tcp_transport.cpp): a rule's
// line is the wheel's glog file:line, its defaults and ranges real's.
const (
	tcpCpp   = "mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp"
	tcpSessH = "mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport_session_impl.h"
	tcpMain  = "kvcache-ai/Mooncake main@3b5a594 tcp_transport.cpp:197-222 (parseBoundedTcpSetting), 239-291 read"
	tcpNo014 = "no 0.3.14 source stored; main@3b5a594 tcp_transport.cpp:197-222 read, the range and default are real's"
	tcpValid = "parseBoundedTcpSetting: the whole text decimal digits (no sign, space or unit; \"\" too is invalid)"
	tcpOnce  = "; the line once per transfer engine"
)

// tcpBounded is a parseBoundedTcpSetting rule: ParseFromChars over
// lo..hi, "Invalid NAME value: <text>, using default D" at WARNING.
func tcpBounded(from, name, def string, lo, hi uint64, src, note string) Rule {
	r := Rule{
		From: from, Parse: ParseFromChars, Default: def, Min: int64(lo), Max: int64(hi),
		Invalid:    fmt.Sprintf("%s within %d..%d; anything else logs a WARNING and keeps %s%s%s", tcpValid, lo, hi, def, tcpOnce, note),
		InvalidLog: "Invalid " + name + " value: {value}, using default {default}",
		Source:     src,
	}
	if hi == math.MaxUint64 {
		r.Min, r.Max = 0, 0 // the whole size_t: ParseUint's own limit
	}
	return r
}

// tcpQueueKnob is a per-peer queue bound: the queued transfers and the
// pending admissions, read and changed alike (real 0.3.13.post1: 1024 in
// 1..65535; 0.3.14: 65535 in 1..1048576).
func tcpQueueKnob(name, doc string) Knob {
	return Knob{
		Name: name, Scope: ScopeEnv, Reader: "transfer engine", Type: "int", Doc: doc, Since: "0.3.13",
		Rules: []Rule{
			tcpBounded("", name, "1024", 1, 65535, tcpSrc("v0.3.13.post1", tcpCpp, 267, tcpMain), " (real 0.3.13.post1: 65536, 0, abc)"),
			tcpBounded("0.3.14", name, "65535", 1, 1048576, tcpSrc("v0.3.14", tcpCpp, 295, tcpNo014), " (real 0.3.14: 65536 and 1048576 taken; 1048577, 0, abc not)"),
		},
		Samples: map[string][]string{"valid": {"1024"}, "boundary": {"1", "65535"}, "invalid": {"0", "abc", "1048577"}},
	}
}

func tcpSrc(ver, file string, line int, read string) string {
	return fmt.Sprintf("%s (wheel) %s:%d (%s)", ver, file, line, read)
}

var tcpKnobs = []Knob{
	{
		Name: "MC_TCP_LANES_PER_PEER", Scope: ScopeEnv, Reader: "transfer engine", Type: "int",
		Doc:   "TCP connections (lanes) per peer (default 4, 1..16)",
		Since: "0.3.13",
		Rules: []Rule{
			tcpBounded("", "MC_TCP_LANES_PER_PEER", "4", 1, 16, tcpSrc("v0.3.13.post1", tcpCpp, 267, tcpMain), " (real 0.3.13.post1)"),
			tcpBounded("0.3.14", "MC_TCP_LANES_PER_PEER", "4", 1, 16, tcpSrc("v0.3.14", tcpCpp, 295, tcpNo014), " (real 0.3.14: 17, 0, abc, \"\", \" 2\", +2, -1, 99999999999999999999999)"),
		},
		Samples: map[string][]string{"valid": {"4"}, "boundary": {"1", "16"}, "invalid": {"17", "0", "abc"}},
	},
	{
		Name: "MC_TCP_MAX_CONNECTIONS_PER_PEER", Scope: ScopeEnv, Reader: "transfer engine", Type: "int",
		Doc:   "deprecated alias of MC_TCP_LANES_PER_PEER, read only when that is unset",
		Since: "0.3.13",
		Rules: []Rule{{
			Parse: ParseTcpLanesAlias, Default: "4", Min: 1, Max: 16,
			Invalid:    "any value first logs \"MC_TCP_MAX_CONNECTIONS_PER_PEER is deprecated; use MC_TCP_LANES_PER_PEER\" (WARNING), then " + tcpValid + " within 1..16, else a second WARNING and 4; ignored silently when MC_TCP_LANES_PER_PEER is set (real 0.3.13.post1, 0.3.14)",
			InvalidLog: "Invalid MC_TCP_MAX_CONNECTIONS_PER_PEER value: {value}, using default {default}",
			Source:     tcpSrc("v0.3.13.post1", tcpCpp, 318, "deprecation line; :267 the invalid one; "+tcpMain),
		}, {
			From: "0.3.14", Parse: ParseTcpLanesAlias, Default: "4", Min: 1, Max: 16,
			Invalid:    "as 0.3.13 (real 0.3.14: 8, 16, 1 log the deprecation only; 17, abc both lines)",
			InvalidLog: "Invalid MC_TCP_MAX_CONNECTIONS_PER_PEER value: {value}, using default {default}",
			Source:     tcpSrc("v0.3.14", tcpCpp, 346, "deprecation line; :295 the invalid one; "+tcpNo014),
		}},
		Samples: map[string][]string{"valid": {"8"}, "boundary": {"1", "16"}, "invalid": {"17", "abc"}},
	},
	tcpQueueKnob("MC_TCP_MAX_QUEUED_TRANSFERS_PER_PEER", "transfers queued per peer's lanes (default 1024; 65535 from 0.3.14)"),
	tcpQueueKnob("MC_TCP_MAX_PENDING_ADMISSIONS_PER_PEER", "transfers waiting for admission per peer (default 1024; 65535 from 0.3.14)"),
	{
		Name: "MC_TCP_ADMISSION_TIMEOUT_MS", Scope: ScopeEnv, Reader: "transfer engine", Type: "int",
		Doc:   "ms a transfer waits for admission to a peer's lanes (default 1000)",
		Since: "0.3.13",
		Rules: []Rule{
			tcpBounded("", "MC_TCP_ADMISSION_TIMEOUT_MS", "1000", 1, 600000, tcpSrc("v0.3.13.post1", tcpCpp, 267, tcpMain), " (real 0.3.13.post1: 600001, 0, abc)"),
			tcpBounded("0.3.14", "MC_TCP_ADMISSION_TIMEOUT_MS", "1000", 1, 600000, tcpSrc("v0.3.14", tcpCpp, 295, tcpNo014), " (real 0.3.14: 600001, 0, abc)"),
		},
		Samples: map[string][]string{"valid": {"1000"}, "boundary": {"1", "600000"}, "invalid": {"600001", "0", "abc"}},
	},
	{
		Name: "MC_TCP_MAX_QUEUED_BYTES_PER_PEER", Scope: ScopeEnv, Reader: "transfer engine", Type: "size",
		Doc:   "bytes queued per peer (default 0: no cap); a transfer longer than the cap fails",
		Since: "0.3.14",
		Rules: []Rule{
			tcpBounded("", "MC_TCP_MAX_QUEUED_BYTES_PER_PEER", "0", 0, math.MaxUint64, tcpSrc("v0.3.14", tcpCpp, 295, "no source stored: not in main@3b5a594; the range and default are real's"),
				"; a cap below a transfer's length rejects it: the transfer returns -1 with \"TCP lane queue-full rejection count: N\" (WARNING, tcp_transport_lane_impl.h:1437) (real 0.3.14: =1048575 fails a 1 MiB write, =1048576 and 18446744073709551615 do not; 18446744073709551616, -1, abc invalid)"),
		},
		Samples: map[string][]string{"valid": {"0", "1099511627776"}, "boundary": {"1", "18446744073709551615"}, "invalid": {"abc", "-1", "18446744073709551616"}},
	},
	{
		Name: "MC_NUM_TCP_IO_THREADS", Scope: ScopeEnv, Reader: "transfer engine", Type: "int",
		Doc:   "threads of the TCP transport's I/O pool (default 1, 1..32)",
		Since: "0.3.14",
		Rules: []Rule{
			tcpBounded("", "MC_NUM_TCP_IO_THREADS", "1", 1, 32, tcpSrc("v0.3.14", tcpCpp, 295, "no source stored: not in main@3b5a594; the range and default are real's on a 2-CPU host"),
				"; the pool's size is logged at INFO, \"TcpTransport: I/O pool started with N thread(s)\" (tcp_transport.cpp:448) (real 0.3.14: 33, 64, 0, -1, \" 2\", abc invalid)"),
		},
		Samples: map[string][]string{"valid": {"4"}, "boundary": {"1", "32"}, "invalid": {"33", "0", "abc"}},
	},
	{
		Name: "MC_TCP_PROGRESS_TIMEOUT_SEC", Scope: ScopeEnv, Reader: "transfer engine", Type: "int",
		Doc:   "seconds without payload progress before the TCP transport drops the connection and fails the transfer (default 30)",
		Since: "0.3.13",
		Rules: []Rule{{
			Parse: ParseAtoi, Default: "30", Min: 1, Max: 2147483647,
			Invalid: "atoi, silent: 0, negative and garbage are 30, \"3x\" is 3; a stalled peer fails the write after that long with \"ClientSession: no transfer progress within Ns; dropping connection\" (ERROR) (real 0.3.13.post1: =2 2 s, =0 30 s)",
			Source:  tcpSrc("v0.3.13.post1", tcpSessH, 518, "the timeout's line; no 0.3.13 source stored: not in main@3b5a594; a later tree's tcp_wire.h parseTimeoutSecEnv (atoi, > 0, else 30) agrees"),
		}, {
			From: "0.3.14", Parse: ParseAtoi, Default: "30", Min: 1, Max: 2147483647,
			Invalid: "as 0.3.13 (real 0.3.14: =2 2 s, =3x 3 s, =abc 30 s)",
			Source:  tcpSrc("v0.3.14", tcpSessH, 546, "the timeout's line; no 0.3.14 source stored"),
		}},
		Samples: map[string][]string{"valid": {"2"}, "boundary": {"3x"}, "invalid": {"abc", "0"}},
	},
	{
		Name: "MC_TCP_SLICE_SIZE", Scope: ScopeEnv, Reader: "transfer engine", Type: "size",
		Doc:   "bytes the TCP transport reads and writes per chunk (default 65536); read once per process, at its first transfer",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseStoullCaught, Default: "65536", Min: 1, Max: math.MaxInt64,
			Invalid:     "std::stoull: \"4k\" is 4, \" 10\" 10, -1 wraps to 2⁶⁴−1 and is taken, silently; 0 logs InvalidLog, no digits (abc, \"\") or past 2⁶⁴−1 UnparsedLog; 65536 kept (real 0.3.12.post1: 0, abc, \"\", -1)",
			InvalidLog:  "Ignore non-positive MC_TCP_SLICE_SIZE value: {value}, using default 65536",
			UnparsedLog: "Invalid MC_TCP_SLICE_SIZE value: {value}. Error: stoull, using default 65536",
			Source:      "v0.3.12.post1 " + tcpCpp + ":43-66 (kvcache-ai/Mooncake v0.3.12.post1; real 0.3.12.post1 logs at :50 and :58)",
		}, {
			From: "0.3.13", Parse: ParseStoullCaught, Default: "65536", Min: 1, Max: math.MaxInt64,
			Invalid:     "as 0.3.12, moved to the session header (real 0.3.13.post1: 0, abc, \"\", -1; real 0.3.14 also 99999999999999999999, and =1 takes 4.6 s for a 1 MiB write)",
			InvalidLog:  "Ignore non-positive MC_TCP_SLICE_SIZE value: {value}, using default 65536",
			UnparsedLog: "Invalid MC_TCP_SLICE_SIZE value: {value}. Error: stoull, using default 65536",
			Source:      tcpSrc("v0.3.14", tcpSessH, 27, "and :35; v0.3.13.post1 the same lines; kvcache-ai/Mooncake main@3b5a594 tcp_transport_session_impl.h:20-42 read"),
		}},
		Samples: map[string][]string{"valid": {"65536"}, "boundary": {"-1"}, "invalid": {"0", "abc", ""}},
	},
	{
		Name: "MC_TCP_PROTO", Scope: ScopeEnv, Reader: "transfer engine", Type: "string",
		Doc:   "\"1\" makes initiators speak the legacy unacknowledged TCP framing (v1)",
		Since: "0.3.12",
		Rules: []Rule{{
			Parse: ParseChoice, Choices: []string{"1"},
			Invalid: "read per transfer: exactly \"1\" is v1; anything else (2, true, x, \"\") is v2 where the peer advertises it, silently (real 0.3.12.post1, 0.3.13.post1, 0.3.14: no line, transfers 0)",
			Source:  "v0.3.12.post1 " + tcpCpp + ":144-152 (kvcache-ai/Mooncake v0.3.12.post1); main@3b5a594 " + tcpSessH + ":114-122",
		}},
		Samples: map[string][]string{"valid": {"1"}, "boundary": {""}, "invalid": {"2", "true"}},
	},
	{
		Name: "MC_METADATA_HTTP_TOKEN", Scope: ScopeEnv, Reader: "transfer engine (HTTP metadata plugin)", Type: "string",
		Doc:   "bearer token the engine sends to the HTTP metadata server (which reads the same variable)",
		Since: "0.3.14",
		Rules: []Rule{{
			Parse: ParseString,
			Invalid: "sent as \"Authorization: Bearer <token>\"; a server holding another token (the engine's unset or \"\" too) answers 401: \"GET <url> http=401 body: unauthorized\", \"PUT … http=401 body: unauthorized\", \"Failed to set location of <name>\" (ERROR), initialize -1; " +
				"a server without a token ignores it (real 0.3.14)",
			Source: "v0.3.14 (wheel) mooncake-transfer-engine/src/transfer_metadata_plugin.cpp:379,489,530 (the 401 lines; no source stored: the wheel's strings hold \"Authorization: Bearer \"; http_metadata_server.py:74-148 the server's side)",
		}},
		Samples: map[string][]string{"valid": {"s3cret"}, "boundary": {""}, "invalid": {"wrong"}},
	},
}
