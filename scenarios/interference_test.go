package scenarios

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
)

type wallEngine struct{ engine.Engine }

type virtualEngine struct{ engine.Engine }

func (virtualEngine) VirtualTime() bool { return true }

func TestInterference(t *testing.T) {
	bind := "bind: Address already in use"
	plain := &Scenario{}
	aboutBinds := &Scenario{Expect: Expect{Logs: []string{"TcpTransport: cannot", "Address already in use"}}}
	aboutBindsInRemedy := &Scenario{Remedy: &Remedy{ByVersion: ByVersion{{Expect: Expect{Raises: &Raises{Message: &bind}}}}}}
	raised := Result{Verdict: Fail, Observed: Observed{Exception: &Exception{Class: "RuntimeError", Message: bind}}}
	died := Result{Verdict: Fail, Remedy: &Observed{Died: &Death{Signal: "SIGABRT", Reason: "terminate called after throwing an instance of 'std::system_error' what(): bind: Address already in use"}}}
	// CI run 50: io/no-segment-space-put @0.3.4 on real, setup 1.
	logged := Result{Verdict: Fail, Observed: Observed{Logs: []string{"TcpTransport: listen on port 13201", `tcp_transport_install_failed error_message="bind: Address already in use"`, "Failed to create client"}}}
	// CI run 63: io/peer-not-listening-handshake @0.3.11.post1 on real, the
	// departed peer's handshake port bound by another world.
	refused := "SocketHandShakePlugin: connect()127.0.0.1:15906: Connection refused [111]"
	foreign := Result{Verdict: Fail, Observed: Observed{Logs: []string{refused, "Failed to open segment for endpoint='127.0.0.1:15906'", "Socket read failed: Connection reset by peer [104]", "SocketHandShakePlugin: unexpected handshake message type"}}}
	aboutForeign := &Scenario{Expect: Expect{Logs: []string{"SocketHandShakePlugin: unexpected handshake message type"}}}
	// CI run 66: @0.3.9, the tenth warmup put went to a neighbour's
	// handshake listener on that port, the read from it failed.
	neighbourSession := Result{Verdict: Fail, Observed: Observed{Logs: []string{refused, "Session::readBody failed. Attempt to read data 0x7fec3dffd040 using buffer 0x7fec3dffd040. Error: End of file (value: 2), total_transferred_bytes_: 0, current transferred_bytes: 0"}}}
	racyOutcome := &Scenario{Labels: []string{RacyOutcomeLabel}}
	sessionFirst := Result{Verdict: Fail, Observed: Observed{Logs: []string{"Session::readBody failed. Error: End of file (value: 2)", refused}}}
	for _, tc := range []struct {
		name string
		sc   *Scenario
		eng  engine.Engine
		r    Result
		want bool
	}{
		{"a raise on a wall engine", plain, wallEngine{}, raised, true},
		{"a death in the remedy", plain, wallEngine{}, died, true},
		{"a return code with the bind in the log", plain, wallEngine{}, logged, true},
		{"the log's bind where the scenario expects one", aboutBinds, wallEngine{}, logged, false},
		{"sim has no neighbours", plain, virtualEngine{}, raised, false},
		{"a pass is a pass", plain, wallEngine{}, Result{Verdict: Pass, Observed: raised.Observed}, false},
		{"another failure", plain, wallEngine{}, Result{Verdict: Fail, Observed: Observed{Exception: &Exception{Class: "RuntimeError", Message: "Failed to setup"}}}, false},
		{"the scenario expects a bind to fail", aboutBinds, wallEngine{}, raised, false},
		{"its remedy does", aboutBindsInRemedy, wallEngine{}, raised, false},
		{"a departed peer's port answered by another world", plain, wallEngine{}, foreign, true},
		{"the scenario expects that answer", aboutForeign, wallEngine{}, foreign, false},
		{"a read from a neighbour after the refusal", plain, wallEngine{}, neighbourSession, true},
		{"a session failure before any refusal", plain, wallEngine{}, sessionFirst, false},
		{"not on sim", plain, virtualEngine{}, foreign, false},
		{"a racy-outcome world that failed on a wall engine", racyOutcome, wallEngine{}, Result{Verdict: Fail}, true},
		{"a racy-outcome world that passed", racyOutcome, wallEngine{}, Result{Verdict: Pass}, false},
		{"a racy-outcome world on sim", racyOutcome, virtualEngine{}, Result{Verdict: Fail}, false},
	} {
		if got := interference(tc.sc, tc.eng, tc.r) != ""; got != tc.want {
			t.Errorf("%s: interference = %v, want %v", tc.name, got, tc.want)
		}
	}
}
