package scenarios

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

const validScenario = `name: t/ok
steps:
  - init: tp0
expect:
  ok: true
`

func TestParseValid(t *testing.T) {
	sc, err := Parse("ok.yaml", []byte(validScenario))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "t/ok" || len(sc.Steps) != 1 || sc.Steps[0].Action != StepInit || sc.Steps[0].Node != "tp0" {
		t.Fatalf("parsed %+v", sc)
	}
	// Defaults.
	if sc.Topology.Metadata != "P2PHANDSHAKE" || len(sc.Topology.Nodes) != 1 || sc.Topology.Nodes[0].HostPool.Allocator != "mooncake" ||
		sc.Topology.Nodes[0].HostPool.Size != 1<<30 || sc.Storage.TPSize != 1 || *sc.Storage.IsMLA {
		t.Fatalf("defaults: %+v", sc.Topology)
	}
	if vs, ok := sc.Versions(""); !ok || !slices.Equal(vs, mooncake.Defaults) || vs[1] != mooncake.Latest {
		t.Fatalf("versions %v", vs)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // every error line, exactly
	}{
		{"unknown key", "nmae: x\n" + validScenario,
			[]string{`f.yaml:1:1: unknown key "nmae" (did you mean "name"?); valid keys: by_sglang, by_version, config, engines, expect, faults, labels, mooncake, name, refs, remedy, sglang, steps, storage, summary, topology`}},
		{"skewed master of an unknown release", validScenario + "topology:\n  master: {mooncake_version: \"9.9.9\"}\n",
			[]string{`f.yaml:7:11: topology.master.mooncake_version: unknown Mooncake version "9.9.9": known versions are ` + strings.Join(mooncake.Versions, ", ")}},
		{"skewed HA master", validScenario + "topology:\n  metadata: etcd\n  master: {ha: true, mooncake_version: \"0.3.9\"}\n",
			[]string{`f.yaml:8:11: topology.master.mooncake_version: with ha or present: false; a skewed master is one plain mooncake_master`}},
		{"remedy master of an unknown release", validScenario + "remedy:\n  master_version: \"9.9.9\"\n  expect: {ok: true}\n",
			[]string{`f.yaml:7:3: remedy.master_version: unknown Mooncake version "9.9.9": known versions are ` + strings.Join(mooncake.Versions, ", ") + ` (or "run": the run's version)`}},
		{"remedy master_flags without a master", validScenario + "topology: {master: {present: false}}\nremedy:\n  master_flags: {rpc_address: \"::\"}\n  expect: {ok: true}\n",
			[]string{`f.yaml:8:3: remedy.master_flags needs one plain mooncake_master (not ha, not present: false)`}},
		{"nested unknown key", validScenario + "topology:\n  nodes:\n    - name: tp0\n      nic: {rdma: [{name: mlx5_0, max_mrs: 3}]}\n",
			[]string{`f.yaml:9:35: topology.nodes[0].nic.rdma[0]: unknown key "max_mrs" (did you mean "max_mr"?); valid keys: broken, driver, gid_index, gid_tbl_len, gids, leaked_mrs, max_mr, max_mr_size, max_reg_bytes, name, no_auto_gid, port_state, subnet`}},
		{"RNIC port state not an ibv_port_state", validScenario + "topology:\n  nodes:\n    - name: tp0\n      nic: {rdma: [{name: mlx5_0, port_state: dwon}]}\n",
			[]string{`f.yaml:9:47: topology.nodes[0].nic.rdma[0].port_state: "dwon" is not one of active, down, init, armed (did you mean "down"?)`}},
		{"ip_local_port_range reversed", validScenario + "topology:\n  nodes:\n    - {name: tp0, ip_local_port_range: \"61015 61000\"}\n",
			[]string{`f.yaml:8:7: topology.nodes.tp0.ip_local_port_range: "61015 61000": Linux takes 1 ≤ low ≤ high ≤ 65535`}},
		{"RNIC subnet not a CIDR", validScenario + "topology:\n  nodes:\n    - name: tp0\n      nic: {rdma: [{name: mlx5_0, subnet: 10.0.1.0}]}\n",
			[]string{`f.yaml:9:20: nic.rdma mlx5_0: subnet "10.0.1.0": want an IPv4 CIDR (e.g. 10.0.1.0/24)`}},
		{"RNIC subnet IPv6", validScenario + "topology:\n  mooncake_client: {nic: {rdma: [{name: mlx5_0, subnet: \"fe80::/64\"}]}}\n",
			[]string{`f.yaml:7:34: nic.rdma mlx5_0: subnet "fe80::/64": want an IPv4 CIDR (e.g. 10.0.1.0/24)`}},
		{"mooncake_client RNIC without a name", validScenario + "topology:\n  mooncake_client: {nic: {rdma: [{max_mr: 3}]}}\n",
			[]string{`f.yaml:7:34: nic.rdma: name is required (e.g. mlx5_0)`}},
		{"offset-allocator offload without a size limit", validScenario + "config:\n  env: {MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR: offset_allocator_storage_backend}\n",
			[]string{`f.yaml:7:3: MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR=offset_allocator_storage_backend reserves its data file at MOONCAKE_OFFLOAD_TOTAL_SIZE_LIMIT_BYTES (2 TiB when unset): set MOONCAKE_OFFLOAD_TOTAL_SIZE_LIMIT_BYTES (e.g. "67108864")`}},
		{"node env placeholder", validScenario + "topology:\n  nodes:\n    - name: tp0\n      env: {MOONCAKE_MASTER: \"{{mastr}}\"}\n",
			[]string{`f.yaml:8:7: unknown placeholder {{mastr}}; valid placeholders: {{master}}, {{metadata}}, {{client}}, {{master_metrics}}, {{etcd}}, {{master_ip}}, {{master_ipv6}}, {{metadata_ipv6}}, {{offload_dir}}, {{s3}}`}},
		{"unknown fault kind", validScenario + "faults:\n  - {at: 0s, kind: master-crash}\n",
			[]string{`f.yaml:7:5: faults: unknown fault kind "master-crash": valid kinds are ` + strings.Join(faults.KindNames(), ", ")}},
		{"bad mode", validScenario + "faults:\n  - {at: 0s, kind: master-down, mode: drop}\n",
			[]string{`f.yaml:7:5: faults: master-down "drop": mode must be one of refuse, blackhole`}},
		{"bad link mode lists the registry", validScenario + "faults:\n  - {at: 0s, kind: link, target: master, mode: jam}\n",
			[]string{`f.yaml:7:5: faults: link "jam": mode must be one of ` + strings.Join(faults.LinkModes(), ", ")}},
		{"a parameter another mode owns", validScenario + "faults:\n  - {at: 0s, kind: link, target: master, mode: latency, latency: 1s, bytes: 10}\n",
			[]string{`f.yaml:7:70: faults[0]: unknown key "bytes" for link mode latency; valid keys: action, after, at, for, jitter, kind, latency, mode, stream, target`}},
		{"a misspelt parameter", validScenario + "faults:\n  - {at: 0s, kind: link, target: master, mode: drop_every, evry: 2}\n",
			[]string{
				"f.yaml:7:5: faults: link drop_every: every must be ≥ 1",
				`f.yaml:7:60: faults[0]: unknown key "evry" for link mode drop_every (did you mean "every"?); valid keys: action, after, at, every, for, kind, mode, stream, target`,
			}},
		{"a parameter of the wrong type", validScenario + "faults:\n  - {at: 0s, kind: link, target: master, mode: drop_every, every: often}\n",
			[]string{"f.yaml:7:5: faults: link drop_every: every must be ≥ 1", `f.yaml:7:67: faults[0].every: want an integer, got "often"`}},
		{"a duration parameter without a unit", validScenario + "faults:\n  - {at: 0s, kind: link, target: master, mode: latency, latency: 30}\n",
			[]string{"f.yaml:7:5: faults: link latency: latency must be > 0", `f.yaml:7:66: bad duration "30": want a number with a unit, one of ns, us, ms, s, m, h (e.g. 30s, 100ms)`}},
		{"a parameter the owner checks", validScenario + "faults:\n  - {at: 0s, kind: link, target: master, mode: drop_every, every: 0}\n",
			[]string{`f.yaml:7:5: faults: link drop_every: every must be ≥ 1`}},
		{"a parameter on a kind with none", validScenario + "faults:\n  - {at: 0s, kind: master-down, mode: refuse, delay: 1s}\n",
			[]string{`f.yaml:7:47: faults[0]: unknown key "delay" for master-down mode refuse; valid keys: action, after, at, for, kind, mode, stream, target`}},
		{"process on embedded metadata", validScenario + "topology: {metadata: master}\nfaults:\n  - {at: 0s, kind: process, target: metadata, action: stop}\n",
			[]string{`f.yaml:8:5: faults: process stop: metadata is embedded in the master here (topology.metadata master); target the master`}},
		{"process on absent client", validScenario + "faults:\n  - {at: 0s, kind: process, target: client, action: pause}\n",
			[]string{`f.yaml:7:5: faults: process pause: the topology has no mooncake_client (topology.mooncake_client)`}},
		{"master-down without master", validScenario + "topology: {master: {present: false}}\nfaults:\n  - {at: 0s, kind: master-down, mode: refuse}\n",
			[]string{`f.yaml:8:5: faults: master-down: the topology has no mooncake_master (topology.master.present false)`}},
		{"metadata env without its server", validScenario + "topology: {metadata_env: {MC_METADATA_HTTP_TOKEN: s3cret}}\n",
			[]string{`f.yaml:6:11: topology.metadata_env: the standalone HTTP metadata server's environment; needs metadata: http`}},
		{"metadata host without its server", validScenario + "topology: {metadata_host: 0.0.0.0}\n",
			[]string{`f.yaml:6:11: topology.metadata_host: the standalone HTTP metadata server's --host; needs metadata: http`}},
		{"metadata host of one machine", validScenario + "topology: {metadata: http, metadata_host: 10.0.0.7}\n",
			[]string{`f.yaml:6:11: topology.metadata_host: "10.0.0.7": give 0.0.0.0 or :: (every address, the server's default), or a loopback address`}},
		{"remedy metadata env without its server", validScenario + "remedy: {metadata_env: {MC_METADATA_HTTP_TOKEN: s3cret}, expect: {ok: true}}\n",
			[]string{`f.yaml:6:9: remedy.metadata_env: restarts the standalone HTTP metadata server; needs metadata: http`}},
		{"metadata port without the embedded server", validScenario + "topology: {master: {http_metadata_port: 18780}}\n",
			[]string{`f.yaml:6:20: topology.master.http_metadata_port: the master's embedded HTTP metadata server's port; needs metadata: master`}},
		{"metadata port out of range", validScenario + "topology: {metadata: master, master: {http_metadata_port: 80}}\n",
			[]string{`f.yaml:6:38: topology.master.http_metadata_port: 80: give a TCP port, 1024-65535`}},
		{"metadata port twice", validScenario + "topology: {metadata: master, master: {http_metadata_port: 18780, flags: {http_metadata_server_port: \"18781\"}}}\n",
			[]string{`f.yaml:6:38: topology.master.http_metadata_port and flags.http_metadata_server_port: give the port once, as http_metadata_port`}},
		{"metrics port out of range", validScenario + "topology: {master: {metrics_port: 9}}\n",
			[]string{`f.yaml:6:20: topology.master.metrics_port: 9: give a TCP port, 1024-65535`}},
		{"metrics port twice", validScenario + "topology: {master: {metrics_port: 18790, flags: {metrics_port: \"18791\"}}}\n",
			[]string{`f.yaml:6:20: topology.master.metrics_port and flags.metrics_port: give the port once, as metrics_port`}},
		{"metrics port is the metadata port", validScenario + "topology: {metadata: master, master: {metrics_port: 18790, http_metadata_port: 18790}}\n",
			[]string{`f.yaml:6:38: topology.master.metrics_port: 18790 is http_metadata_port too; the master's two HTTP servers need two ports`}},
		{"ha master without etcd", validScenario + "topology: {master: {ha: true}}\n",
			[]string{`f.yaml:6:20: topology.master: ha: true needs metadata: etcd (the masters elect their leader in etcd)`}},
		{"ha master absent", validScenario + "topology: {metadata: etcd, master: {ha: true, present: false}}\n",
			[]string{`f.yaml:6:36: topology.master: ha: true with present: false; drop one`}},
		{"master-leader without ha", validScenario + "topology: {metadata: etcd}\nfaults:\n  - {at: 0s, kind: process, target: master-leader, action: stop}\n",
			[]string{`f.yaml:8:5: faults: process stop: the topology has no HA master leader (topology.master.ha: true)`}},
		{"rdma on a node without an RNIC", validScenario + "faults:\n  - {at: 0s, kind: rdma, target: tp0, mode: local_protection}\n",
			[]string{`f.yaml:7:5: faults: rdma: target "tp0" is not a topology node with an RNIC (nodes: - name: tp0, nic: {rdma: [{name: mlx5_0}]})`}},
		{"metadata link on P2PHANDSHAKE", validScenario + "faults:\n  - {at: 0s, kind: link, target: metadata, mode: latency, latency: 1ms}\n",
			[]string{`f.yaml:7:5: faults: link: the topology has no metadata server (topology.metadata P2PHANDSHAKE)`}},
		{"bad size unit", validScenario + "topology:\n  nodes:\n    - name: tp0\n      hostpool: {size: 1GX}\n",
			[]string{`f.yaml:9:24: bad size "1GX": want an integer with a unit, one of B, KiB, MiB, GiB, TiB, KB, MB, GB, TB (e.g. 1GiB)`}},
		// Beyond int64: a load error at the value, never a run that skips.
		{"segment size beyond int64", validScenario + "config:\n  env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: \"99999999999999999999999\", MOONCAKE_MASTER_METRICS_PORT: \"9_223_372_036_854_775_808\"}\n",
			[]string{
				`f.yaml:7:39: env.MOONCAKE_GLOBAL_SEGMENT_SIZE: "99999999999999999999999": ` + beyondInt64,
				`f.yaml:7:96: env.MOONCAKE_MASTER_METRICS_PORT: "9_223_372_036_854_775_808": ` + beyondInt64,
			}},
		{"segment size beyond int64 in GB", validScenario + "remedy:\n  env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: 9999999999gb}\n  expect: {ok: true}\n",
			[]string{`f.yaml:7:39: env.MOONCAKE_GLOBAL_SEGMENT_SIZE: "9999999999gb": ` + beyondInt64}},
		{"integers beyond int64 in extra_config and file", validScenario + "config:\n  extra_config: {global_segment_size: 99999999999999999999999}\n  file: {a: [18446744073709551615], global_segment_size: \"9999999999 GB\", master_metrics_port: 9223372036854775807}\n",
			[]string{
				`f.yaml:7:39: config.extra_config.global_segment_size: 99999999999999999999999: ` + beyondInt64,
				`f.yaml:8:14: config.file.a[0]: 18446744073709551615: ` + beyondInt64,
				`f.yaml:8:58: config.file.global_segment_size: "9999999999 GB": ` + beyondInt64,
			}},
		{"duration without unit", validScenario + "  within: 30\n",
			[]string{`f.yaml:6:11: bad duration "30": want a number with a unit, one of ns, us, ms, s, m, h (e.g. 30s, 100ms)`}},
		{"unknown version", validScenario + "mooncake: {versions: [\"0.3.99\"]}\n",
			[]string{`f.yaml:6:11: mooncake.versions: unknown Mooncake version "0.3.99": known versions are ` + knownVersions()}},
		{"enum", validScenario + "topology: {metadata: redis}\n",
			[]string{`f.yaml:6:22: topology.metadata: "redis" is not one of P2PHANDSHAKE, http, master, etcd`}},
		{"unknown step", "name: t/x\nsteps:\n  - boot: tp0\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:5: unknown step action "boot"; valid actions: init, sleep, set, get, exists, health_check, call, put, fetch, te, bench`}},
		{"bench: bad mode, rdma, an initiator without segment_id, part seconds, a string want", "name: t/x\nsteps:\n  - bench: {mode: server}\n  - bench: {mode: target, protocol: rdma}\n  - bench: {mode: initiator}\n  - bench: {mode: target, duration: 1500ms}\n  - bench: {mode: target, want: x}\nexpect: {ok: true}\n",
			[]string{
				`f.yaml:3:12: bench: mode "server"; valid: initiator, target`,
				`f.yaml:4:12: bench: protocol "rdma"; only tcp is supported`,
				`f.yaml:5:12: bench: an initiator needs segment_id (the target's --local_server_name)`,
				`f.yaml:6:12: bench: duration must be whole seconds (--duration is an int32 of seconds), got 1.5s`,
				`f.yaml:7:12: bench: want must be an integer`,
			}},
		{"fetch without a key, with a read it does not know, a want that is no number", "name: t/x\nsteps:\n  - fetch: {node: tp0}\n  - fetch: {key: k, method: batch_get_buffer}\n  - fetch: {key: k, want: [1]}\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:12: fetch: key is required`,
				`f.yaml:4:12: fetch: method "batch_get_buffer": want one of get, get_buffer, remove, batch_get_into, is_exist, batch_is_exist, batch_get_session_start`,
				`f.yaml:5:12: fetch: want must be an integer`}},
		{"batch_get_into without its buffer's size; a buffer on a read that has none", "name: t/x\nsteps:\n  - fetch: {key: k, method: batch_get_into, unregistered: true}\n  - fetch: {key: k, size: 4KiB}\n  - fetch: {key: k, method: remove, unregistered: true}\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:12: fetch: method batch_get_into needs size (its buffer's bytes, positive)`,
				`f.yaml:4:12: fetch: size and unregistered are batch_get_into's (method: batch_get_into)`,
				`f.yaml:5:12: fetch: size and unregistered are batch_get_into's (method: batch_get_into)`}},
		{"call without a method name", "name: t/x\nsteps:\n  - call: {node: tp0, method: \"a-b\"}\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:11: call: want a MooncakeDistributedStore method name (call: batch_get_buffer, or call: {node: tp0, method: batch_get_buffer}), got "a-b"`}},
		{"method placeholder without a call step", "name: t/x\nsteps:\n  - init: tp0\nexpect: {raises: {class: AttributeError, message: \"no attribute '{{method}}'\"}}\n",
			[]string{`f.yaml:4:18: placeholder {{method}} names the method of the scenario's call step, and its steps have none`}},
		{"te with a bad op, a transfer without peer, a want on pause", "name: t/x\nsteps:\n  - te: {node: tp0, op: initalize}\n  - te: {op: transfer, size: 1MiB}\n  - te: {op: pause, want: 0}\n  - te: {op: register, want: x, size: 4KiB}\nexpect: {ok: true}\n",
			[]string{
				`f.yaml:3:9: te: op "initalize" (did you mean "initialize"?); valid ops: initialize, register, unregister, allocate, transfer, pause, resume, stray (te: {node: prefill, op: transfer, peer: decode, size: 1MiB, batch: true})`,
				`f.yaml:4:9: te: op transfer needs peer (a node) and size (positive)`,
				`f.yaml:5:9: te: op pause has no want`,
				`f.yaml:6:9: te: want must be an integer (the call's return code)`,
			}},
		{"te stray's send where it does not apply, an unknown send, a want and a raise", "name: t/x\nsteps:\n  - te: {op: initialize, send: http}\n  - te: {op: stray, send: https}\n  - te: {op: stray, want: 0}\n  - te: {op: stray, raise: true}\nexpect: {ok: true}\n",
			[]string{
				`f.yaml:3:9: te: send is op stray's (what the stranger sends), not op initialize's`,
				`f.yaml:4:9: te: send "https"; valid: http (omit it for a connection that sends nothing)`,
				`f.yaml:5:9: te: op stray has no want`,
				`f.yaml:6:9: te: raise is SGLang's PD wrapper's; op stray is no call of SGLang's`,
			}},
		{"te memory and raise where they do not apply", "name: t/x\nsteps:\n  - te: {op: initialize, memory: gpu}\n  - te: {op: register, size: 4KiB, memory: vram}\n  - te: {op: transfer, peer: tp0, size: 1MiB, batch: true, raise: true}\n  - te: {node: tp0, op: register, size: 4KiB, memory: gpu}\n  - te: {op: unregister, raise: true}\n  - te: {op: unregister, size: 4KiB}\nexpect: {ok: true}\n",
			[]string{
				`f.yaml:3:9: te: memory is op register's (the buffer it registers), not op initialize's`,
				`f.yaml:4:9: te: memory "vram"; valid: host, gpu`,
				`f.yaml:5:9: te: raise is SGLang's PD wrapper's, which initializes, registers and writes with transfer_sync_write (op initialize, register, or transfer without batch)`,
				`f.yaml:6:5: te: memory gpu on node "tp0", which has no GPU (give it topology.nodes[].gpu)`,
				`f.yaml:7:9: te: raise is SGLang's PD wrapper's, which initializes, registers and writes with transfer_sync_write (op initialize, register, or transfer without batch)`,
				`f.yaml:8:9: te: op unregister takes no size, peer or batch`,
			}},
		{"te entries without a batch, below 2, not dividing the size", "name: t/x\nsteps:\n  - te: {op: transfer, peer: tp0, size: 64KiB, entries: 2}\n  - te: {op: transfer, peer: tp0, size: 64KiB, batch: true, entries: 1}\n  - te: {op: transfer, peer: tp0, size: 10000, batch: true, entries: 3}\nexpect: {ok: true}\n",
			[]string{
				`f.yaml:3:9: te: entries 2: a batch's (batch: true), at least 2, dividing size (65536 bytes) evenly`,
				`f.yaml:4:9: te: entries 1: a batch's (batch: true), at least 2, dividing size (65536 bytes) evenly`,
				`f.yaml:5:9: te: entries 3: a batch's (batch: true), at least 2, dividing size (10000 bytes) evenly`,
			}},
		{"put without key or size", "name: t/x\nsteps:\n  - put: {node: tp0, want: x}\nexpect: {ok: true}\n",
			[]string{
				`f.yaml:3:10: put: key (put) or keys (batch_put_from) is required`,
				`f.yaml:3:10: put: size is required and must be positive (the value's bytes)`,
				`f.yaml:3:10: put: want must be an integer`,
			}},
		{"put with an unknown key", "name: t/x\nsteps:\n  - put: {key: k, size: 4KiB, bytes: 3}\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:31: put: unknown key "bytes"; valid keys: allocator, key, keys, node, size, skip_existing, unregistered, want`}},
		{"a zero-copy buffer's allocator and registration where there is none, or an unknown allocator", "name: t/x\nsteps:\n  - put: {key: k, size: 4KiB, unregistered: true}\n  - put: {keys: [a], size: 4KiB, allocator: cuda}\n  - fetch: {key: k, allocator: mooncake}\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:10: put: unregistered and allocator are the batch's buffer's (keys)`,
				`f.yaml:4:10: put: allocator "cuda": want one of default, mooncake`,
				`f.yaml:5:12: fetch: allocator is batch_get_into's (method: batch_get_into)`}},
		{"put with key and keys", "name: t/x\nsteps:\n  - put: {key: k, keys: [a], size: 4KiB}\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:10: put: give key (put) or keys (batch_put_from), not both`}},
		{"batch put with one want", "name: t/x\nsteps:\n  - put: {keys: [a, b], size: 4KiB, want: 0}\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:10: put: want must be a list of 2 integers (one code per key)`}},
		{"skip_existing without keys", "name: t/x\nsteps:\n  - put: {key: k, size: 4KiB, skip_existing: true}\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:10: put: skip_existing needs keys (a batch put)`}},
		{"unknown node", "name: t/x\nsteps:\n  - init: tp9\nexpect: {ok: true}\n",
			[]string{`f.yaml:3:5: init: unknown node "tp9"; nodes: tp0`}},
		{"one code listed alone", validScenario + "  codes: {put: [0, [-900]]}\n",
			[]string{`f.yaml:6:20: codes: a list in place of one code names two or more codes real may return there`}},
		{"unknown method", validScenario + "  codes: {setupp: -1}\n",
			[]string{`f.yaml:6:19: expect.codes: unknown method "setupp"; valid methods: setup, setup_dummy, register_buffer, unregister_buffer, put, get, get_buffer, remove, is_exist, batch_put_from, batch_get_into, batch_is_exist, batch_get_session_start, health_check, close, initialize, register_memory, unregister_memory, allocate_managed_buffer, transfer_sync_write, batch_transfer_sync_write, transfer_engine_bench`}},
		{"unknown placeholder", validScenario + "config:\n  env: {MOONCAKE_MASTER: \"{{mastr}}\"}\n",
			[]string{`f.yaml:7:3: unknown placeholder {{mastr}}; valid placeholders: {{master}}, {{metadata}}, {{client}}, {{master_metrics}}, {{etcd}}, {{master_ip}}, {{master_ipv6}}, {{metadata_ipv6}}, {{offload_dir}}, {{s3}}`}},
		{"several at once", "name: Bad Name\nsteps: []\nexpect: {}\nlabels: x\n",
			[]string{
				`f.yaml:1:1: name "Bad Name": use lower-case words separated by / . _ - (e.g. setup/master-down-refused)`,
				`f.yaml:4:9: labels: want a list, got the scalar "x"`,
				`f.yaml:1:1: steps: at least one step is required (e.g. - init: tp0)`,
				`f.yaml:3:9: expect: say what should happen: ok, raises, dies, codes, logs or invariants`,
			}},
		// A file without expect names its top, never :0:0.
		{"no expect", "name: t/x\nsteps: [{init: tp0}]\n",
			[]string{`f.yaml:1:1: expect: say what should happen: ok, raises, dies, codes, logs or invariants`}},
		// The misspelt key (the cause) comes before the missing expect (its knock-on).
		{"typo before knock-on", "name: t/x\nsteps: [{init: tp0}]\nexpcet: {ok: true}\n",
			[]string{
				`f.yaml:3:1: unknown key "expcet" (did you mean "expect"?); valid keys: by_sglang, by_version, config, engines, expect, faults, labels, mooncake, name, refs, remedy, sglang, steps, storage, summary, topology`,
				`f.yaml:1:1: expect: say what should happen: ok, raises, dies, codes, logs or invariants`,
			}},
		{"semantic several at once", "name: Bad Name\nsteps: []\nexpect: {}\n",
			[]string{
				`f.yaml:1:1: name "Bad Name": use lower-case words separated by / . _ - (e.g. setup/master-down-refused)`,
				`f.yaml:1:1: steps: at least one step is required (e.g. - init: tp0)`,
				`f.yaml:3:9: expect: say what should happen: ok, raises, dies, codes, logs or invariants`,
			}},
		{"invalid yaml", "name: [x\n", []string{`f.yaml:1:1: invalid YAML: yaml: line 1: did not find expected ',' or ']'`}},
		{"ok contradicts raises", "name: t/x\nsteps: [{init: tp0}]\nexpect: {ok: true, raises: {class: RuntimeError}}\n",
			[]string{`f.yaml:3:9: expect: ok: true and raises contradict each other`}},
		{"dies contradicts raises", "name: t/x\nsteps: [{init: tp0}]\nexpect: {raises: {class: RuntimeError}, dies: {signal: SIGSEGV}}\n",
			[]string{`f.yaml:3:9: expect: raises and dies contradict each other (a dead process raises nothing)`}},
		{"dies contradicts ok", "name: t/x\nsteps: [{init: tp0}]\nexpect: {ok: true, dies: {signal: SIGABRT}}\n",
			[]string{`f.yaml:3:9: expect: ok: true and dies contradict each other`}},
		{"dies signal", "name: t/x\nsteps: [{init: tp0}]\nexpect: {dies: {signal: SIGKILL}}\n",
			[]string{`f.yaml:3:25: expect.dies.signal: "SIGKILL" is not one of SIGSEGV, SIGABRT, SIGFPE`}},
		{"dies without signal", "name: t/x\nsteps: [{init: tp0}]\nexpect: {dies: {reason: x}}\n",
			[]string{`f.yaml:3:16: expect.dies: signal (SIGSEGV, SIGABRT or SIGFPE) or exit (a status) is required`}},
		{"dies by signal and exit", "name: t/x\nsteps: [{init: tp0}]\nexpect: {dies: {signal: SIGSEGV, exit: 1}}\n",
			[]string{`f.yaml:3:16: expect.dies: signal and exit contradict each other (a process ends by one)`}},
		{"dies exit 0", "name: t/x\nsteps: [{init: tp0}]\nexpect: {dies: {exit: 0}}\n",
			[]string{`f.yaml:3:16: expect.dies: exit must be a failing status, 1..255 (got 0)`}},
		{"by_version dies contradicts raises", validScenario + "by_version:\n  \"0.3.9\": {dies: {signal: SIGSEGV}, raises: {class: RuntimeError}}\n",
			[]string{`f.yaml:7:12: by_version.0.3.9: raises and dies contradict each other (a dead process raises nothing)`}},
		{"shares_main on the main pool", validScenario + "topology:\n  nodes:\n    - name: tp0\n      hostpool: {shares_main: true}\n",
			[]string{`f.yaml:9:17: hostpool.shares_main: only a draft pool can share the main pool (use it under hostpool.draft)`}},
		{"shares_main with fields", validScenario + "topology:\n  nodes:\n    - name: tp0\n      hostpool: {draft: {shares_main: true, size: 1GiB}}\n",
			[]string{`f.yaml:9:25: hostpool.draft: shares_main: true takes no other field (the draft is the main pool's tensors)`}},
		{"backend enum", validScenario + "storage: {backend: vector}\n",
			[]string{`f.yaml:6:20: storage.backend: "vector" is not one of kv, embedding, direct-linker`}},
		{"gpu without needs-gpu, direct linker without a GPU pool, remedy gpus", "name: t/x\nsteps:\n  - init: tp0\n  - set: {pages: 1}\nexpect: {ok: true}\n" +
			"storage: {backend: direct-linker}\ntopology:\n  nodes:\n    - {name: tp0, gpu: {count: -1}}\n    - {name: tp1}\n" +
			"remedy:\n  gpus: {tp9: {peermem: true}}\n  expect: {ok: true}\n",
			[]string{
				`f.yaml:4:5: set: page I/O is not modelled for storage.backend direct-linker; steps may be init, sleep, health_check, call, put, fetch, te, bench`,
				`f.yaml:9:7: topology.nodes.tp0: storage.backend direct-linker registers the node's GPU KV pool; give gpu.kv_pool`,
				`f.yaml:9:24: topology.nodes.tp0.gpu: count must be at least 1 (default 1)`,
				`f.yaml:9:24: topology.nodes.tp0.gpu: a scenario with GPUs carries the label needs-gpu (the real engine has none to run it on)`,
				`f.yaml:10:7: topology.nodes.tp1: storage.backend direct-linker registers the node's GPU KV pool; give gpu.kv_pool`,
				`f.yaml:12:15: remedy.gpus: unknown node "tp9"; nodes: tp0, tp1`,
			}},
		{"embedding without extra_config and page I/O", "name: t/x\nsteps:\n  - init: tp0\n  - set: {pages: 1}\nexpect: {ok: true}\nstorage: {backend: embedding}\nconfig: {extra_config: {master_server_address: m}}\ntopology:\n  nodes:\n    - name: tp0\n      hostpool: {draft: {size: 1GiB}}\n",
			[]string{
				`f.yaml:4:5: set: page I/O is not modelled for storage.backend embedding; steps may be init, sleep, health_check, call, put, fetch, te, bench`,
				`f.yaml:6:10: storage.backend embedding: the embedding store reads no extra_config (its controller passes no storage config); use config.env or config.file`,
				`f.yaml:11:25: hostpool.draft: storage.backend embedding has no draft pool (its pool is the embedding cpu_pool)`,
			}},
		{"remedy hostpools node", validScenario + "remedy:\n  hostpools: {tp9: {size: 1GiB}}\n  expect: {ok: true}\n",
			[]string{`f.yaml:7:20: remedy.hostpools: unknown node "tp9"; nodes: tp0`}},
		{"remedy node_env node", validScenario + "remedy:\n  node_env: {tp9: {MOONCAKE_LOCAL_HOSTNAME: tp9}}\n  expect: {ok: true}\n",
			[]string{`f.yaml:7:3: remedy.node_env: unknown node "tp9"; nodes: tp0`}},
		{"by_sglang matching no release", validScenario + "by_sglang:\n  \"<0.5.0\": {ok: true}\n",
			[]string{`f.yaml:7:3: by_sglang: "<0.5.0" matches none of the SGLang releases the model follows (0.5.14, 0.5.16, 0.5.17, 0.5.23); write an exact release, >=V, <V, A-B or *`}},
		{"sglang release the model does not follow", validScenario + "sglang: {versions: [\"0.5.15\"]}\n",
			[]string{`f.yaml:6:9: sglang.versions: the model does not follow SGLang 0.5.15; it follows 0.5.17, 0.5.23 (and 0.5.14, 0.5.16 where a scenario names them)`}},
		{"builder on a draft", validScenario + "topology:\n  nodes:\n    - name: tp0\n      hostpool: {draft: {builder: decode-offload}}\n",
			[]string{`f.yaml:9:25: hostpool.draft.builder: only the main pool has a builder (the draft pool is kv_cache_builder's)`}},
		{"bad by_version", validScenario + "by_version:\n  \">=9.9.9\": {ok: true}\n",
			[]string{`f.yaml:7:3: by_version: version constraint ">=9.9.9" matches no known Mooncake version; known versions are ` + knownVersions()}},
		{"one model: layouts and pages match", validScenario + "topology:\n  nodes:\n    - {name: tp0, hostpool: {layout: MHA}}\n    - {name: tp1, hostpool: {layout: MLA}}\n    - {name: tp2, hostpool: {page_bytes: 4KiB}}\n",
			[]string{
				`f.yaml:9:29: topology.nodes: node "tp1" has a MLA pool but node "tp0" an MHA one; every node serves the same model, so the layouts must match`,
				`f.yaml:10:29: topology.nodes: node "tp2" pages are 64 tokens × 4096 bytes, node "tp0"'s 64 × 262144; nodes share the storage config (same rank, same keys), so page_size and page_bytes must match`,
			}},
		{"missing_libs: known sonames, not torch's under SGLang", validScenario + "topology:\n  missing_libs: [libcudart.so.13, libfoo.so.1]\n",
			[]string{
				`f.yaml:7:3: missing_libs: "libfoo.so.1" is no library a measured Mooncake wheel needs (did you mean "libcuda.so.1"?); valid: libcuda.so.1, libcudart.so.12, libcudart.so.13, libcurl.so.4, libibverbs.so.1, libmlx5.so.1, libnuma.so.1`,
				`f.yaml:7:3: missing_libs: libcudart.so.13 is loaded by SGLang's torch before mooncake (sglang.TorchCUDARuntime), so SGLang's process has it whatever the host lacks; withhold it only from callers without SGLang (put, call, te steps)`,
			}},
		{"libstdcxx: a measured level", validScenario + "topology:\n  libstdcxx: \"3.4.28\"\n",
			[]string{`f.yaml:7:3: libstdcxx: "3.4.28" was not measured; valid: 3.4.29 (the newest GLIBCXX version of the hosts' libstdc++)`}},
		{"link refuse is two-way", validScenario + "faults: [{at: 0s, kind: link, target: master, mode: refuse, stream: upstream}]\n",
			[]string{`f.yaml:6:10: faults: link refuse: refuse cannot be one-way (stream upstream); use stream both, or blackhole for a one-way cut`}},
		{"want length", "name: t/x\nsteps:\n  - init: tp0\n  - set: {pages: 2, want: [true]}\nexpect: {ok: true}\n",
			[]string{`f.yaml:4:10: set: want must be a list of 2 booleans (one per page)`}},
		// 1 GiB MHA at 256 KiB a page: two 512 MiB halves, 2048 pages; MLA 16 MiB: 64 pages;
		// the remedy's pool replaces the node's.
		{"pages beyond the host pool", "name: t/x\nsteps:\n  - init: tp0\n  - set: {pages: 2048}\n  - get: {pages: 2049}\nexpect: {ok: true}\n" +
			"topology:\n  nodes:\n    - name: tp0\n    - name: tp1\n      hostpool: {size: 16MiB}\n" + // one model: one layout

			"remedy:\n  hostpools: {tp0: {size: 2MiB}}\n  steps:\n    - init: tp1\n    - set: {node: tp1, pages: 65}\n    - set: {pages: 5}\n  expect: {ok: true}\n",
			[]string{
				`f.yaml:5:5: get: 2049 pages do not fit tp0's host pool (1073741824 bytes, MHA, 262144 bytes a page per component: room for 2048); ask for fewer pages or a larger hostpool.size`,
				`f.yaml:16:7: set: 65 pages do not fit tp1's host pool (16777216 bytes, MHA, 262144 bytes a page per component: room for 32); ask for fewer pages or a larger hostpool.size`,
				`f.yaml:17:7: set: 5 pages do not fit tp0's host pool (2097152 bytes, MHA, 262144 bytes a page per component: room for 4); ask for fewer pages or a larger hostpool.size`,
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(c.yaml))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("want *LoadError, got %v", err)
			}
			got := strings.Split(le.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("errors:\n got: %q\nwant: %q", got, c.want)
			}
		})
	}
}

func knownVersions() string {
	return strings.Join(mooncake.Versions, ", ")
}

func TestVersionsAndOverride(t *testing.T) {
	sc, err := Parse("v.yaml", []byte(validScenario+"mooncake: {versions: [\"0.3.9\", \"0.3.5-0.3.8.post1\", \"*\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := sc.Versions("")
	if strings.Join(vs, " ") != "0.3.9 0.3.8.post1 "+mooncake.Latest {
		t.Fatalf("versions %v", vs)
	}
	if vs, ok := sc.Versions("0.3.6"); !ok || vs[0] != "0.3.6" {
		t.Fatalf("override 0.3.6: %v %v", vs, ok)
	}
	sc2, _ := Parse("v.yaml", []byte(validScenario+"mooncake: {versions: [\"0.3.9\"]}\n"))
	if _, ok := sc2.Versions("0.3.10"); ok {
		t.Fatal("override 0.3.10 should not apply to a 0.3.9-only scenario")
	}
}

func TestExpectForByVersion(t *testing.T) {
	sc, err := Parse("b.yaml", []byte(`name: t/b
steps: [{init: tp0}]
expect:
  raises: {class: RuntimeError, message: "code -1"}
  codes: {setup: -1, register_buffer: []}
  logs: [a]
by_version:
  "<0.3.9":
    raises: {class: RuntimeError, message: "code -600"}
    codes: {setup: -600}
  "0.3.13.post1":
    ok: true
`))
	if err != nil {
		t.Fatal(err)
	}
	e := ExpectFor(sc.Expect, sc.ByVersion, "0.3.8")
	if *e.Raises.Message != "code -600" || *e.Codes["setup"].Every != -600 || e.Codes["register_buffer"].Seq == nil || e.Logs[0] != "a" {
		t.Fatalf("0.3.8: %+v", e)
	}
	e = ExpectFor(sc.Expect, sc.ByVersion, "0.3.13.post1")
	if e.Raises != nil || !*e.OK {
		t.Fatalf("0.3.13.post1: %+v", e)
	}
	e = ExpectFor(sc.Expect, sc.ByVersion, "0.3.10")
	if *e.Raises.Message != "code -1" {
		t.Fatalf("0.3.10: %+v", e)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(validScenario))
	f.Add([]byte("name: x\nsteps: [{set: {pages: [a, b], want: [true, false]}}]\nexpect: {codes: {setup: [0, 1]}}\nby_version: {\"*\": {ok: true}}\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("faults: [{at: 1s, kind: link, target: master, mode: latency, latency: 5ms}]\n"))
	f.Add([]byte("remedy: {env: {A: null}, steps: [{sleep: 1s}], expect: {ok: false}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("fuzz.yaml", data)
		if err == nil && sc == nil {
			t.Fatal("nil scenario without error")
		}
		var le *LoadError
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("error is not a *LoadError: %v", err)
		}
	})
}

func TestExpectForDies(t *testing.T) {
	sc, err := Parse("d.yaml", []byte(`name: t/d
steps: [{init: tp0}]
expect:
  raises: {class: RuntimeError, message: "code -1"}
  codes: {setup: -1}
by_version:
  "0.3.9":
    dies: {signal: SIGSEGV}
    codes: {setup: []}
  "<0.3.6":
    dies: {signal: SIGABRT}
  "0.3.5":
    raises: {class: RuntimeError}
`))
	if err != nil {
		t.Fatal(err)
	}
	e := ExpectFor(sc.Expect, sc.ByVersion, "0.3.9")
	if e.Raises != nil || e.OK != nil || e.Dies == nil || e.Dies.Signal != "SIGSEGV" || e.Codes["setup"].Seq == nil || len(e.Codes["setup"].Seq) != 0 {
		t.Fatalf("0.3.9: %+v", e)
	}
	e = ExpectFor(sc.Expect, sc.ByVersion, "0.3.4")
	if e.Raises != nil || e.Dies.Signal != "SIGABRT" || *e.Codes["setup"].Every != -1 {
		t.Fatalf("0.3.4: %+v", e)
	}
	e = ExpectFor(sc.Expect, sc.ByVersion, "0.3.5") // a later raises clears an earlier dies
	if e.Dies != nil || e.Raises == nil || e.Raises.Message != nil {
		t.Fatalf("0.3.5: %+v", e)
	}
	e = ExpectFor(sc.Expect, sc.ByVersion, "0.3.13.post1")
	if e.Dies != nil || *e.Raises.Message != "code -1" {
		t.Fatalf("0.3.13.post1: %+v", e)
	}
}

func TestExpectForSGLang(t *testing.T) {
	sc, err := Parse("f.yaml", []byte("name: t/x\nsteps: [{init: tp0}]\nexpect: {ok: true, codes: {setup: 0, register_buffer: [0, 0]}}\n"+
		"by_version:\n  \"0.3.9\": {codes: {setup: -1}}\n"+
		"by_sglang:\n  \"<0.5.21\": {codes: {register_buffer: [0]}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mooncake, release string
		setup             int
		register          []int
	}{
		{"0.3.13.post1", "0.5.23", 0, []int{0, 0}},
		{"0.3.13.post1", "", 0, []int{0, 0}},
		{"0.3.13.post1", "0.5.17", 0, []int{0}},
		{"0.3.9", "0.5.17", -1, []int{0}},
	} {
		e := ExpectForSGLang(sc.Expect, sc.ByVersion, tc.mooncake, sc.BySGLang, tc.release)
		if got := *e.Codes["setup"].Every; got != tc.setup {
			t.Errorf("Mooncake %s, SGLang %q: setup %d, want %d", tc.mooncake, tc.release, got, tc.setup)
		}
		if got := e.Codes["register_buffer"].Seq; !reflect.DeepEqual(got, tc.register) {
			t.Errorf("Mooncake %s, SGLang %q: register_buffer %v, want %v", tc.mooncake, tc.release, got, tc.register)
		}
	}
}

func TestSGLangReleases(t *testing.T) {
	for _, tc := range []struct {
		versions string
		want     []string
		applies  map[string]bool
	}{
		{"", []string{""}, map[string]bool{"": true, "0.5.17": true, "0.5.14": false, "0.5.99": true}},
		{"sglang: {versions: [\">=0.5.21\"]}\n", []string{"0.5.23"}, map[string]bool{"0.5.23": true, "0.5.17": false, "0.5.16": false}},
		{"sglang: {versions: [\"0.5.23\", \"0.5.14\", \"<0.5.21\"]}\n", []string{"0.5.14", "0.5.17", "0.5.23"},
			map[string]bool{"0.5.14": true, "0.5.16": false, "0.5.17": true, "0.5.23": true}},
	} {
		sc, err := Parse("f.yaml", []byte(validScenario+tc.versions))
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.SGLangReleases(); !slices.Equal(got, tc.want) {
			t.Errorf("%q: releases %q, want %q", tc.versions, got, tc.want)
		}
		for rel, want := range tc.applies {
			if got := sc.AppliesToSGLang(rel); got != want {
				t.Errorf("%q: AppliesToSGLang(%q) = %v", tc.versions, rel, got)
			}
		}
	}
}
