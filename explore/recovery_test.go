package explore

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// The recovers exemption: a remedy refused for the rpc_meta key an earlier
// process published and never deleted (docs/REAL-FINDINGS.md §21).
func TestKnownNonRecovery(t *testing.T) {
	dup := scenarios.Observed{
		Exception: &scenarios.Exception{Class: "RuntimeError", Message: "Failed to setup Mooncake store, error code: -600"},
		Logs: []string{
			"PUT http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A32821 http=400 body: Duplicate rpc_meta key not allowed",
			"Failed to set location of 127.0.0.1:32821",
		},
	}
	warmup := &scenarios.Exception{Class: "RuntimeError", Message: "[TP0] Warmup put failed after 10 attempts, Transfer Engine might not be ready"}
	setupOK := []scenarios.Call{{Method: "setup", Code: 0}, {Method: "put", Code: -800}}
	cases := []struct {
		name   string
		main   scenarios.Observed
		remedy scenarios.Observed
		want   bool
	}{
		{"init raised after setup published the key", scenarios.Observed{Exception: warmup, Calls: setupOK, EndedIn: "init tp0"}, dup, true},
		{"register_mem_pool_host raised in init", scenarios.Observed{Exception: &scenarios.Exception{Class: "RuntimeError", Message: "Failed to register buffer to Mooncake Store, error code: -600"},
			Calls: []scenarios.Call{{Method: "setup", Code: 0}, {Method: "register_buffer", Code: -600}}, EndedIn: "init tp0"}, dup, true},
		{"the process died in init after setup", scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV"}, Calls: setupOK, EndedIn: "init tp0"}, dup, true},
		{"its DELETE failed", scenarios.Observed{Logs: []string{"Failed to remove location of 127.0.0.1:32821"}}, dup, true},
		{"setup failed mounting its segment, after the engine published", scenarios.Observed{
			Exception: &scenarios.Exception{Class: "RuntimeError", Message: "Failed to setup Mooncake store, error code: -900"},
			Calls:     []scenarios.Call{{Method: "setup", Code: -900}}, EndedIn: "init tp0",
			Logs: []string{"RPC call failed: End of file", "Failed to mount segment: RPC_FAIL"}}, dup, true},
		{"setup never published", scenarios.Observed{Exception: warmup, Calls: []scenarios.Call{{Method: "setup", Code: -1}}, EndedIn: "init tp0"}, dup, false},
		{"raised in a set step (the store was closed)", scenarios.Observed{Exception: warmup, Calls: setupOK, EndedIn: "set tp0 4 pages"}, dup, false},
		{"remedy failed for another reason", scenarios.Observed{Exception: warmup, Calls: setupOK, EndedIn: "init tp0"},
			scenarios.Observed{Exception: dup.Exception, Logs: []string{"Failed to initialize transfer engine"}}, false},
		{"remedy passed", scenarios.Observed{Exception: warmup, Calls: setupOK, EndedIn: "init tp0"}, scenarios.Observed{Logs: dup.Logs}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rem := c.remedy
			res := &scenarios.Result{MooncakeVersion: "0.3.9", Observed: c.main, Remedy: &rem}
			why, got := knownNonRecovery(res)
			if got != c.want {
				t.Fatalf("knownNonRecovery = %v (%q), want %v", got, why, c.want)
			}
			if got && why != "stale rpc_meta key" {
				t.Errorf("reason = %q", why)
			}
		})
	}
}

// A master restarted with its embedded metadata loses every rpc_meta key;
// before v0.3.12 nothing re-publishes them (real 0.3.8.post1, seed 31222).
func TestKnownNonRecoveryLostRPCMeta(t *testing.T) {
	lost := scenarios.Observed{
		Exception: &scenarios.Exception{Class: "RuntimeError", Message: "[TP0] Warmup put failed after 10 attempts, Transfer Engine might not be ready"},
		Logs: []string{
			"GET http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A12973 http=404 body: metadata not found",
			"Failed to find location of 127.0.0.1:12973",
		},
	}
	unreachable := lost
	unreachable.Logs = []string{
		"GET http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A12973 curl: Timeout was reached err: Operation timed out after 3000 milliseconds with 0 bytes received",
		"Failed to find location of 127.0.0.1:12973",
	}
	for _, c := range []struct {
		version string
		remedy  scenarios.Observed
		want    bool
	}{
		{"0.3.8.post1", lost, true},
		{"0.3.11.post1", lost, true},
		{"0.3.12", lost, false},       // the remount re-publishes it
		{"0.3.9", unreachable, false}, // the key may be there: the service did not answer
		{"nonsense", lost, false},
	} {
		rem := c.remedy
		why, got := knownNonRecovery(&scenarios.Result{MooncakeVersion: c.version, Remedy: &rem})
		if got != c.want || (got && why != "rpc_meta lost with the master") {
			t.Errorf("%s: knownNonRecovery = %v %q, want %v", c.version, got, why, c.want)
		}
	}
}

// 0.3.10.x's memcpy from another live process's replica outlives every
// fault: the other process is the cause (explore seed 20261204317931).
func TestKnownNonRecoveryMemcpyFromPeer(t *testing.T) {
	died := scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV", Reason: "Segmentation fault in MemcpyWorkerPool::workerThread: memcpy from localhost:15833's buffer address, another process's"}}
	other := scenarios.Observed{Died: &scenarios.Death{Signal: "SIGSEGV", Reason: "Segmentation fault"}}
	for _, c := range []struct {
		version string
		remedy  scenarios.Observed
		want    bool
	}{
		{"0.3.10.post2", died, true},
		{"0.3.10.post1", died, true},
		{"0.3.11.post1", died, false}, // the whole endpoint compared: not this
		{"0.3.10.post2", other, false},
	} {
		rem := c.remedy
		why, got := knownNonRecovery(&scenarios.Result{MooncakeVersion: c.version, Remedy: &rem})
		if got != c.want || (got && why != "memcpy from another process's replica") {
			t.Errorf("%s %s: knownNonRecovery = %v %q, want %v", c.version, c.remedy.Died.Reason, got, why, c.want)
		}
	}
}
