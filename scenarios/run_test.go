package scenarios_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

func parse(t *testing.T, y string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("t.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

const masterDown = `name: t/master-down
config:
  env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp, MOONCAKE_LOCAL_HOSTNAME: "127.0.0.1:17777", MOONCAKE_GLOBAL_SEGMENT_SIZE: 1gb}
faults: [{at: 0s, kind: master-down, mode: refuse}]
steps: [{init: tp0}]
expect:
  raises: {class: RuntimeError, message: "Failed to setup Mooncake store, error code: -600"}
  codes: {setup: -600}
`

// wrapped lets a test change one behaviour of the sim engine.
type wrapped struct {
	engine.Engine
	name      string
	available error
	launch    func(ctx context.Context, spec engine.WorldSpec) (engine.World, error)
}

func (w wrapped) Name() string {
	if w.name != "" {
		return w.name
	}
	return w.Engine.Name()
}
func (w wrapped) Available(ctx context.Context, v string) error {
	if w.available != nil {
		return w.available
	}
	return w.Engine.Available(ctx, v)
}
func (w wrapped) Launch(ctx context.Context, spec engine.WorldSpec) (engine.World, error) {
	if w.launch != nil {
		return w.launch(ctx, spec)
	}
	return w.Engine.Launch(ctx, spec)
}

// hangWorld never lets a process start until the context ends.
type hangWorld struct{ engine.World }

func (h hangWorld) StartProcess(ctx context.Context, node string, env map[string]string) (engine.Process, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestRunVerdicts(t *testing.T) {
	ctx := context.Background()
	sc := parse(t, masterDown)
	cases := []struct {
		name    string
		sc      *scenarios.Scenario
		eng     engine.Engine
		opts    scenarios.Options
		verdict string
		reason  string
	}{
		{"pass", sc, sim.New(), scenarios.Options{Seed: 1}, scenarios.Pass, ""},
		{"engine not listed", parse(t, masterDown+"engines: [real]\n"), sim.New(), scenarios.Options{}, scenarios.Skip, "scenario runs on real, not sim"},
		{"not available", sc, wrapped{Engine: sim.New(), available: errors.New("real engine: Mooncake 0.3.13.post1 not installed")}, scenarios.Options{},
			scenarios.Skip, "real engine: Mooncake 0.3.13.post1 not installed"},
		{"unsupported", sc, wrapped{Engine: sim.New(), launch: func(context.Context, engine.WorldSpec) (engine.World, error) {
			return nil, engine.Unsupportedf("no RDMA NIC on this host")
		}}, scenarios.Options{}, scenarios.Skip, "no RDMA NIC on this host"},
		{"harness error", sc, wrapped{Engine: sim.New(), launch: func(context.Context, engine.WorldSpec) (engine.World, error) {
			return nil, errors.New("port in use")
		}}, scenarios.Options{}, scenarios.Error, "launch: port in use"},
		{"hang on a wall engine", sc, wrapped{Engine: sim.New(), name: "fake", launch: func(ctx context.Context, s engine.WorldSpec) (engine.World, error) {
			w, err := sim.New().Launch(ctx, s)
			return hangWorld{w}, err
		}}, scenarios.Options{Bound: 1e8}, scenarios.Fail, "timed out after 100ms"},
		{"version override not applicable", parse(t, masterDown+"mooncake: {versions: [\"0.3.9\"]}\n"), sim.New(), scenarios.Options{Version: "0.3.10"},
			scenarios.Skip, "scenario does not apply to Mooncake 0.3.10 (versions: 0.3.9)"},
		{"wrong expectation", parse(t, strings.Replace(masterDown, "code: -600", "code: -1", 1)), sim.New(), scenarios.Options{}, scenarios.Fail,
			`expected RuntimeError message "Failed to setup Mooncake store, error code: -1", observed "Failed to setup Mooncake store, error code: -600"`},
		{"remedy failure is prefixed", parse(t, masterDown+"remedy: {clear_faults: false, expect: {ok: true}}\n"), sim.New(), scenarios.Options{}, scenarios.Fail,
			`remedy: expected ok, observed RuntimeError: "Failed to setup Mooncake store, error code: -600"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := scenarios.Run(ctx, c.sc, c.eng, c.opts)
			if len(rs) == 0 {
				t.Fatal("no result")
			}
			for _, r := range rs { // one per version (mooncake.Defaults), each the same verdict
				if r.Verdict != c.verdict || r.Reason != c.reason {
					t.Fatalf("@%s: got %s %q, want %s %q", r.MooncakeVersion, r.Verdict, r.Reason, c.verdict, c.reason)
				}
			}
		})
	}
}

func TestRemedyPhase(t *testing.T) {
	sc := parse(t, masterDown+"remedy:\n  expect: {ok: true, codes: {setup: 0}}\n")
	r := scenarios.RunVersion(context.Background(), sc, sim.New(), mooncake.Latest, scenarios.Options{Seed: 1})
	if r.Verdict != scenarios.Pass {
		t.Fatalf("%s %s", r.Verdict, r.Reason)
	}
	if r.Remedy == nil || r.Remedy.Exception != nil || len(r.Remedy.CodesOf("setup")) != 1 {
		t.Fatalf("remedy observed %+v", r.Remedy)
	}
	if r.Observed.Exception == nil || r.Observed.Exception.Class != "RuntimeError" {
		t.Fatalf("main observed %+v", r.Observed)
	}
}

// TestRemedyNodeEnv: a node's env wins over the remedy's env, the
// remedy's node_env over the node's env.
func TestRemedyNodeEnv(t *testing.T) {
	const y = `name: t/node-env
config:
  env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp, MOONCAKE_LOCAL_HOSTNAME: "127.0.0.1:17777", MOONCAKE_GLOBAL_SEGMENT_SIZE: 1gb}
topology:
  nodes:
    - {name: tp0, env: {MOONCAKE_PROTOCOL: rdma, MOONCAKE_DEVICE: mlx5_9}}
steps: [{init: tp0}]
expect:
  raises: {class: RuntimeError, message: "Failed to setup Mooncake store, error code: -600"}
  codes: {setup: -600}
`
	for _, c := range []struct {
		name, remedy, verdict, reason string
	}{
		{"env loses to the node's", "remedy:\n  env: {MOONCAKE_PROTOCOL: tcp}\n  expect: {ok: true}\n", scenarios.Fail,
			`remedy: expected ok, observed RuntimeError: "Failed to setup Mooncake store, error code: -600"`},
		{"node_env wins", "remedy:\n  node_env: {tp0: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_DEVICE: null}}\n  expect: {ok: true, codes: {setup: 0}}\n", scenarios.Pass, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := scenarios.RunVersion(context.Background(), parse(t, y+c.remedy), sim.New(), mooncake.Latest, scenarios.Options{Seed: 1})
			if r.Verdict != c.verdict || r.Reason != c.reason {
				t.Fatalf("got %s %q, want %s %q", r.Verdict, r.Reason, c.verdict, c.reason)
			}
		})
	}
}

// TestReportContract checks the JSON field names outside tools read.
func TestReportContract(t *testing.T) {
	r := scenarios.RunVersion(context.Background(), parse(t, masterDown), sim.New(), mooncake.Latest, scenarios.Options{Seed: 1})
	b, err := json.Marshal(scenarios.NewReport([]scenarios.Result{r}))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Results []map[string]json.RawMessage `json:"results"`
		Summary map[string]int               `json:"summary"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenario", "engine", "mooncake_version", "seed", "verdict", "reason", "observed", "virtual_ms", "wall_ms", "trace_hash"} {
		if _, ok := m.Results[0][k]; !ok {
			t.Errorf("result lacks %q: %s", k, b)
		}
	}
	var obs struct {
		Exception struct{ Class, Message string } `json:"exception"`
		Codes     map[string]int                  `json:"codes"`
		Logs      []string                        `json:"logs"`
	}
	if err := json.Unmarshal(m.Results[0]["observed"], &obs); err != nil {
		t.Fatal(err)
	}
	if obs.Exception.Class != "RuntimeError" || obs.Exception.Message != "Failed to setup Mooncake store, error code: -600" || obs.Codes["setup"] != -600 || len(obs.Logs) == 0 {
		t.Fatalf("observed %s", m.Results[0]["observed"])
	}
	if m.Summary["pass"] != 1 || m.Summary["fail"] != 0 || m.Summary["skip"] != 0 || m.Summary["error"] != 0 {
		t.Fatalf("summary %v", m.Summary)
	}
}

func TestCheckMismatches(t *testing.T) {
	msg := "Failed to setup Mooncake store, error code: -1"
	yes := true
	m1, m2 := -1, 0
	cases := []struct {
		name string
		e    scenarios.Expect
		o    scenarios.Observed
		want string
	}{
		{"ok vs raise", scenarios.Expect{OK: &yes}, scenarios.Observed{Exception: &scenarios.Exception{Class: "RuntimeError", Message: msg}},
			`expected ok, observed RuntimeError: "Failed to setup Mooncake store, error code: -1"`},
		{"raise vs none", scenarios.Expect{Raises: &scenarios.Raises{Class: "RuntimeError", Message: &msg}}, scenarios.Observed{},
			`expected RuntimeError: "Failed to setup Mooncake store, error code: -1", observed no exception`},
		{"class", scenarios.Expect{Raises: &scenarios.Raises{Class: "TypeError"}}, scenarios.Observed{Exception: &scenarios.Exception{Class: "RuntimeError", Message: msg}},
			`expected exception class TypeError, observed RuntimeError: "Failed to setup Mooncake store, error code: -1"`},
		{"addresses normalized", scenarios.Expect{Raises: &scenarios.Raises{Class: "TypeError", Message: ptr("at 0x7f00deadbeef>")}},
			scenarios.Observed{Exception: &scenarios.Exception{Class: "TypeError", Message: "at 0x55aa12>"}}, ""},
		{"every code", scenarios.Expect{Codes: map[string]scenarios.CodeExpect{"setup": {Every: &m1}}},
			scenarios.Observed{Calls: []scenarios.Call{{Method: "setup", Code: -600}}}, "expected every setup call to return -1, observed [-600]"},
		{"code never called", scenarios.Expect{Codes: map[string]scenarios.CodeExpect{"setup": {Every: &m2}}}, scenarios.Observed{},
			"expected setup to return 0, observed no setup call"},
		{"sequence", scenarios.Expect{Codes: map[string]scenarios.CodeExpect{"register_buffer": {Seq: []int{0, -600}}}},
			scenarios.Observed{Calls: []scenarios.Call{{Method: "register_buffer", Code: 0}}}, "expected register_buffer codes [0 -600], observed [0]"},
		{"a raced position takes either code", scenarios.Expect{Codes: map[string]scenarios.CodeExpect{"put": {Seq: []int{0, -900}, Alt: map[int][]int{1: {-200}}}}},
			scenarios.Observed{Calls: []scenarios.Call{{Method: "put", Code: 0}, {Method: "put", Code: -200}}}, ""},
		{"a raced position takes no other", scenarios.Expect{Codes: map[string]scenarios.CodeExpect{"put": {Seq: []int{0, -900}, Alt: map[int][]int{1: {-200}}}}},
			scenarios.Observed{Calls: []scenarios.Call{{Method: "put", Code: 0}, {Method: "put", Code: -600}}}, "expected put codes [0 -900|-200], observed [0 -600]"},
		{"raised calls carry no code", scenarios.Expect{Codes: map[string]scenarios.CodeExpect{"setup": {Seq: []int{}}}},
			scenarios.Observed{Calls: []scenarios.Call{{Method: "setup", Raised: &scenarios.Exception{Class: "TypeError"}}}}, ""},
		{"logs in order", scenarios.Expect{Logs: []string{"b", "a"}}, scenarios.Observed{Logs: []string{"a", "b"}},
			`expected log "a" after "b", observed it only before (out of order)`},
		{"logs of one process in order", scenarios.Expect{Logs: []string{"b", "a"}},
			scenarios.Observed{Logs: []string{"a", "b"}, LogSources: []string{"mooncake:tp1", "mooncake:tp1"}},
			`expected log "a" after "b", observed it only before (out of order)`},
		{"logs of two processes in either order", scenarios.Expect{Logs: []string{"b", "a", "c"}},
			scenarios.Observed{Logs: []string{"a", "b", "c"}, LogSources: []string{"mooncake:tp2", "mooncake:tp1", "mooncake:tp2"}}, ""},
		{"missing log", scenarios.Expect{Logs: []string{"zzz"}}, scenarios.Observed{Logs: []string{"a"}}, `expected log containing "zzz", observed none (1 log lines)`},
		{"no_logs", scenarios.Expect{NoLogs: []string{"retry"}}, scenarios.Observed{Logs: []string{"x", "retry 1/20"}}, `expected no log containing "retry", observed "retry 1/20"`},
		{"duration", scenarios.Expect{Duration: &scenarios.DurRange{Min: dur(600e9)}}, scenarios.Observed{DurationMS: 30000},
			"expected duration >= 10m0s, observed 30s"},
		{"within", scenarios.Expect{Within: dur(60e9)}, scenarios.Observed{DurationMS: 90000}, "timed out after 1m0s (phase took 1m30s)"},
		{"death expected, raise observed", scenarios.Expect{Dies: &scenarios.Dies{Signal: "SIGSEGV"}}, scenarios.Observed{Exception: &scenarios.Exception{Class: "RuntimeError", Message: msg}},
			`expected the process to die with SIGSEGV, observed RuntimeError: "Failed to setup Mooncake store, error code: -1" and no death`},
		{"death expected, nothing observed", scenarios.Expect{Dies: &scenarios.Dies{Signal: "SIGSEGV"}}, scenarios.Observed{},
			`expected the process to die with SIGSEGV, observed no exception and no death`},
		{"death signal", scenarios.Expect{Dies: &scenarios.Dies{Signal: "SIGSEGV"}}, scenarios.Observed{Died: &scenarios.Death{Signal: "SIGABRT", Reason: "Check failed"}},
			`expected the process to die with SIGSEGV, observed it die with SIGABRT: Check failed`},
		{"death reason", scenarios.Expect{Dies: &scenarios.Dies{Signal: "SIGABRT", Reason: ptr("No available RNIC")}}, scenarios.Observed{Died: &scenarios.Death{Signal: "SIGABRT", Reason: "Check failed"}},
			`expected a SIGABRT death with reason containing "No available RNIC", observed "Check failed"`},
		{"death in the call", scenarios.Expect{Dies: &scenarios.Dies{Signal: "SIGSEGV", In: scenarios.CallPut}}, scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV", In: scenarios.CallPut}}, ""},
		{"death in another call", scenarios.Expect{Dies: &scenarios.Dies{Signal: "SIGSEGV", In: scenarios.CallPut}}, scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV", In: scenarios.CallSetup}},
			"expected a SIGSEGV death in a put call, observed it in a setup call"},
		{"death in no known call", scenarios.Expect{Dies: &scenarios.Dies{Signal: "SIGSEGV", In: scenarios.CallPut}}, scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV"}},
			"expected a SIGSEGV death in a put call, observed it in no known call"},
		{"death by exit vs signal", scenarios.Expect{Dies: &scenarios.Dies{Exit: ptrInt(1)}}, scenarios.Observed{Died: &scenarios.Death{Signal: "SIGABRT", Reason: "Check failed"}},
			`expected the process to die with exit 1, observed it die with SIGABRT: Check failed`},
		{"death by exit", scenarios.Expect{Dies: &scenarios.Dies{Exit: ptrInt(1), Reason: ptr("MC_MTU")}}, scenarios.Observed{Died: &scenarios.Death{Exit: 1, Reason: "Ignore value from environment variable MC_MTU"}}, ""},
		{"unexpected exit", scenarios.Expect{OK: &yes}, scenarios.Observed{Died: &scenarios.Death{Exit: 1, Reason: "Ignore value"}},
			"unexpected process death (exit 1): Ignore value"},
		{"death matches, ok: false allowed", scenarios.Expect{OK: ptrBool(false), Dies: &scenarios.Dies{Signal: "SIGABRT", Reason: ptr("RNIC")}},
			scenarios.Observed{Died: &scenarios.Death{Signal: "SIGABRT", Reason: "No available RNIC"}}, ""},
		{"unexpected death fails even an expectation without ok", scenarios.Expect{Codes: map[string]scenarios.CodeExpect{"setup": {Seq: []int{}}}},
			scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV", Reason: "segfault"}}, "unexpected process death (SIGSEGV): segfault"},
		{"unexpected death vs ok", scenarios.Expect{OK: &yes}, scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV", Reason: "segfault"}},
			"unexpected process death (SIGSEGV): segfault"},
		{"death then codes are checked", scenarios.Expect{Dies: &scenarios.Dies{Signal: "SIGSEGV"}, Codes: map[string]scenarios.CodeExpect{"setup": {Seq: []int{}}}},
			scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV"}, Calls: []scenarios.Call{{Method: "setup", Code: -1}}}, "expected no setup call, observed [-1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := scenarios.Check(c.e, c.o, nil, scenarios.Band{}); got != c.want {
				t.Fatalf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func ptrBool(b bool) *bool { return &b }

func dur(ns int64) *scenarios.Duration { d := scenarios.Duration(ns); return &d }

// The sim's 0.3.9 dies (SIGSEGV) on the 8th refused auto-port attempt: the
// runner observes a death, not an exception, and the report carries it.
const refused39 = `name: t/refused-39
mooncake: {versions: ["0.3.9"]}
config:
  env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: 1gb}
faults: [{at: 0s, kind: master-down, mode: refuse}]
steps: [{init: tp0}]
`

func TestProcessDeathObserved(t *testing.T) {
	ctx := context.Background()
	sc := parse(t, refused39+"expect:\n  dies: {signal: SIGSEGV, reason: auto-port attempt 8/20}\n  codes: {setup: [], register_buffer: []}\n  logs: [\"retry 7/20\"]\n  no_logs: [\"retry 8/20\", \"An error occurred\"]\nremedy:\n  expect: {ok: true, codes: {setup: 0}}\n")
	r := scenarios.RunVersion(ctx, sc, sim.New(), "0.3.9", scenarios.Options{Seed: 1})
	if r.Verdict != scenarios.Pass {
		t.Fatalf("%s %s", r.Verdict, r.Reason)
	}
	if r.Observed.Exception != nil || r.Observed.Died == nil || r.Observed.Died.Signal != "SIGSEGV" {
		t.Fatalf("observed %+v", r.Observed)
	}
	b, err := json.Marshal(r.Observed)
	if err != nil {
		t.Fatal(err)
	}
	var obs struct {
		Exception *scenarios.Exception `json:"exception"`
		Died      map[string]string    `json:"died"`
	}
	if err := json.Unmarshal(b, &obs); err != nil {
		t.Fatal(err)
	}
	if obs.Exception != nil || obs.Died["signal"] != "SIGSEGV" || !strings.Contains(obs.Died["reason"], "auto-port attempt 8/20") {
		t.Fatalf("observed JSON %s", b)
	}
	if r.Remedy == nil || r.Remedy.Died != nil {
		t.Fatalf("remedy %+v", r.Remedy)
	}

	// The same death against an expectation of an exception is a fail.
	sc = parse(t, refused39+"expect:\n  raises: {class: RuntimeError}\n")
	r = scenarios.RunVersion(ctx, sc, sim.New(), "0.3.9", scenarios.Options{Seed: 1})
	if r.Verdict != scenarios.Fail || !strings.HasPrefix(r.Reason, "unexpected process death (SIGSEGV): ") {
		t.Fatalf("%s %q", r.Verdict, r.Reason)
	}
	b, err = json.Marshal(scenarios.Result{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"died"`) {
		t.Fatalf("died must be omitted when nobody died: %s", b)
	}
}

func TestCompareFlagsDeaths(t *testing.T) {
	a := scenarios.Result{Scenario: "s", MooncakeVersion: "0.3.9", Engine: "sim", Verdict: scenarios.Pass, Observed: scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV", Reason: "x"}}}
	b := scenarios.Result{Scenario: "s", MooncakeVersion: "0.3.9", Engine: "real", Verdict: scenarios.Pass, Observed: scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV", Reason: "other text"}}}
	c := scenarios.Compare([]scenarios.Result{a, b})
	if len(c) != 1 || len(c[0].Differences) != 0 || c[0].Engines[1].Died.Signal != "SIGSEGV" {
		t.Fatalf("same signal: %+v", c)
	}
	b.Observed.Died = nil
	b.Observed.Exception = &scenarios.Exception{Class: "RuntimeError", Message: "m"}
	b.Verdict = scenarios.Fail
	c = scenarios.Compare([]scenarios.Result{a, b})
	if got := strings.Join(c[0].Differences, ","); got != "died,exception.class,exception.message,verdict" {
		t.Fatalf("differences %q", got)
	}
}

// sim's {{metadata}} of a P2PHANDSHAKE topology is the keyword itself, real
// has no address for it: the texts must agree, not read {{metadata}} on sim
// only (sim,real seed 30016).
func TestCompareKeepsP2PHandshake(t *testing.T) {
	msg := "Invoked with: 'localhost', 'P2PHANDSHAKE', 127.0.0.1:50051"
	a := scenarios.Result{Scenario: "s", MooncakeVersion: "0.3.12.post1", Engine: "sim", Verdict: scenarios.Pass,
		Addrs:    map[string]string{"metadata": "P2PHANDSHAKE", "master": "127.0.0.1:50051"},
		Observed: scenarios.Observed{Exception: &scenarios.Exception{Class: "TypeError", Message: msg}}}
	b := a
	b.Engine = "real"
	b.Addrs = map[string]string{"master": "127.0.0.1:50051"}
	c := scenarios.Compare([]scenarios.Result{a, b})
	if len(c) != 1 || len(c[0].Differences) != 0 {
		t.Fatalf("differences %+v", c)
	}
	if got, want := c[0].Engines[0].Exception.Message, "Invoked with: 'localhost', 'P2PHANDSHAKE', {{master}}"; got != want {
		t.Fatalf("sim's message %q, want %q", got, want)
	}
}

func ptrInt(n int) *int { return &n }

// SGLang's own default metrics port ("9003") stays a number in compared
// texts: sim's master metrics port once was 9003 too and sim's warning
// read {{master_metrics}} (sim,real seed 30155).
func TestCompareKeepsSGLangDefaultMetricsPort(t *testing.T) {
	sc := parse(t, `name: t/metrics
topology:
  nodes: [{name: tp0, hostpool: {layout: MHA, allocator: default, size: 16MiB}}]
config:
  env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "16777216", MOONCAKE_MASTER_METRICS_PORT: http}
steps: [{init: tp0}]
expect: {ok: true}
`)
	a := scenarios.RunVersion(context.Background(), sc, sim.New(), mooncake.Latest, scenarios.Options{Seed: 1})
	if a.Verdict != scenarios.Pass {
		t.Fatalf("%s %s", a.Verdict, a.Reason)
	}
	b := a
	b.Engine = "real"
	b.Addrs = map[string]string{}
	for r, addr := range a.Addrs {
		b.Addrs[r] = addr
	}
	b.Addrs["master_metrics"] = "41789"
	c := scenarios.Compare([]scenarios.Result{a, b})
	if len(c) != 1 || len(c[0].Differences) != 0 {
		t.Fatalf("differences %+v", c[0].Differences)
	}
	const want = `WARNING Invalid value for MOONCAKE_MASTER_METRICS_PORT: "http" is not a valid integer value, using default "9003"`
	if !slices.Contains(c[0].Engines[0].SGLangLogs, want) {
		t.Fatalf("sim's SGLang lines %q lack %q", c[0].Engines[0].SGLangLogs, want)
	}
}

// The te step on sim: a write into a peer's registered buffer completes
// (the session is host:rpc_port without local_hostname's own port); a
// transfer to a peer that registered nothing is the harness's error,
// naming the missing step.
func TestTEStep(t *testing.T) {
	const world = `name: t/te
topology:
  nodes:
    - {name: decode, env: {MOONCAKE_LOCAL_HOSTNAME: "127.0.0.1:17777"}}
    - {name: prefill, env: {MOONCAKE_LOCAL_HOSTNAME: "127.0.0.1:17778"}}
config:
  env: {MOONCAKE_PROTOCOL: tcp}
steps:
  - te: {node: decode, op: initialize, want: 0}
  - te: {node: prefill, op: initialize, want: 0}
  - te: {node: prefill, op: register, size: 1MiB, want: 0}
`
	cases := []struct {
		name, steps, verdict, reason string
	}{
		{"write completes", "  - te: {node: decode, op: register, size: 1MiB, want: 0}\n  - te: {node: prefill, op: transfer, peer: decode, size: 64KiB, want: 0}\nexpect: {ok: true, codes: {transfer_sync_write: [0]}}\n",
			scenarios.Pass, ""},
		{"peer without a buffer", "  - te: {node: prefill, op: transfer, peer: decode, size: 64KiB, want: 0}\nexpect: {ok: true}\n",
			scenarios.Error, "te transfer from prefill: peer decode has no initialized TransferEngine with a registered buffer (te initialize and register on it first)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := scenarios.RunVersion(context.Background(), parse(t, world+c.steps), sim.New(), mooncake.Latest, scenarios.Options{Seed: 1})
			if r.Verdict != c.verdict || !strings.Contains(r.Reason, c.reason) {
				t.Fatalf("got %s %q, want %s %q", r.Verdict, r.Reason, c.verdict, c.reason)
			}
		})
	}
}

// raise: true is SGLang's PD wrapper: a failed call is its RuntimeError
// (and its error line), which ends the phase as SGLang's exception would;
// without it the step's code is all there is.
func TestTEStepRaise(t *testing.T) {
	const world = `name: t/te-raise
topology:
  metadata: http
  nodes:
    - {name: decode, env: {MOONCAKE_LOCAL_HOSTNAME: localhost, MOONCAKE_TE_META_DATA_SERVER: P2PHANDSHAKE}}
    - {name: prefill, env: {MOONCAKE_LOCAL_HOSTNAME: 127.0.0.1}}
config:
  env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_TE_META_DATA_SERVER: "{{metadata}}"}
steps:
  - te: {node: decode, op: initialize, raise: true}
  - te: {node: decode, op: register, size: 1MiB, raise: true}
  - te: {node: prefill, op: initialize, raise: true}
  - te: {node: prefill, op: register, size: 1MiB, raise: true}
`
	cases := []struct {
		name, steps string
	}{
		{"raised", "  - te: {node: prefill, op: transfer, peer: decode, size: 64KiB, raise: true}\n" +
			"expect: {raises: {class: RuntimeError, message: \"Mooncake Transfer Engine Return Error.\"}, codes: {transfer_sync_write: [-1]}, logs: [\"Failed to retrieve segment descriptor\", \"Mooncake Transfer Engine Return Error.\"]}\n"},
		{"the code only", "  - te: {node: prefill, op: transfer, peer: decode, size: 64KiB, want: -1}\n" +
			"expect: {ok: true, codes: {transfer_sync_write: [-1]}, no_logs: [\"Mooncake Transfer Engine Return Error.\"]}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := scenarios.RunVersion(context.Background(), parse(t, world+c.steps), sim.New(), "0.3.9", scenarios.Options{Seed: 1})
			if r.Verdict != scenarios.Pass {
				t.Fatalf("got %s %q", r.Verdict, r.Reason)
			}
		})
	}
}
