package sim_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/sim"
)

var _ = Describe("HA master pair", func() {
	ctx := context.Background()
	// The leader won one warmup (5 s) before time 0; its lease is kept
	// alive every 5/3 s, so a kill at 10.5 s leaves it until ≈ 15 s.
	kill := faults.Fault{At: 10500 * time.Millisecond, Kind: faults.Process, Target: faults.TargetMasterLeader, Action: "stop"}
	haSetup := func(e *env, port string) {
		a := setupArgs("127.0.0.1:"+port, "tcp", "")
		a.MasterServerAddr = "etcd://" + sim.EtcdAddr
		Expect(e.setup(a)).To(Equal(0))
		Expect(e.store.Put(ctx, "before", []byte("v"))).To(Equal(0))
	}
	view := func(e *env) string {
		v, ok := e.w.Etcd().Get(mooncake.MustProfile("0.3.9").MasterViewKey)
		if !ok {
			return ""
		}
		return string(v)
	}
	until := func(e *env, t time.Duration) {
		Expect(e.w.Clock().Sleep(ctx, t-e.now())).To(Succeed())
	}

	It("hands the view to the standby when the lease expires, which serves 5 s later (0.3.9: the ping thread reconnects)", func() {
		e := launch(opts{version: "0.3.9", metadata: "etcd", ha: true, faults: []faults.Fault{kill}})
		haSetup(e, "17801")
		Expect(view(e)).To(Equal(sim.MasterAddr))
		until(e, 14900*time.Millisecond)
		Expect(view(e)).To(Equal(sim.MasterAddr), "the dead leader's lease still holds")
		until(e, 15100*time.Millisecond)
		Expect(view(e)).To(Equal(sim.HAStandbyAddr))
		Expect(e.w.Master()).To(BeNil(), "warming up")
		until(e, 20100*time.Millisecond)
		Expect(e.w.Master()).NotTo(BeNil())
		Expect(e.logs("master-standby")).To(Equal([]string{
			"Init master service...", "Init leader election helper...", "Master view key: mooncake-store/mooncake/master_view",
			"Trying to elect self as leader...", "CurrentLeader=" + sim.MasterAddr + ", CurrentVersion=2", "Waiting for leadership change...",
			"Successfully elected self as leader", "Starting master service..."}), "its campaign at start (ha_helper.cpp v0.3.9), then the election")
		Expect(e.logs("master")[:8]).To(Equal([]string{
			"Init master service...", "Init leader election helper...", "Master view key: mooncake-store/mooncake/master_view",
			"Trying to elect self as leader...", "key=mooncake-store/mooncake/master_view, error=key not found in etcd",
			"No leader found, trying to elect self as leader",
			"Successfully elected self as leader", "Starting master service..."}))
		until(e, 40*time.Second)
		Expect(e.logs("mooncake:tp0")).To(ContainElements(
			"RPC call failed: End of file",
			"Failed to ping master for 3 times; fetching latest master view and reconnecting",
			"Reconnected to master "+sim.HAStandbyAddr))
		Expect(realOf(e).MasterAddr()).To(Equal(sim.HAStandbyAddr))
		Expect(e.store.IsExist(ctx, "before")).To(Equal(0), "the old leader's objects are gone")
		Expect(e.store.Put(ctx, "after", []byte("v"))).To(Equal(0), "remounted on the new leader")
	})

	It("switches leader from the v0.3.10+ leader monitor, failing once while the new leader warms up", func() {
		e := launch(opts{version: "0.3.13.post1", metadata: "etcd", ha: true, faults: []faults.Fault{kill}})
		haSetup(e, "17802")
		until(e, 40*time.Second)
		Expect(e.logs("master-standby")[:5]).To(Equal([]string{
			"key=mooncake-store/mooncake_cluster/master_view, error=key not found in etcd",
			"Entering warmup phase...", "Master runtime state -> leader_warmup, role=leader",
			"Starting serve phase...", "Master runtime state -> serving, role=leader"}), "then the remount's mount_segment")
		Expect(e.logs("mooncake:tp0")).To(ContainElement("Failed to switch to leader " + sim.HAStandbyAddr + ": RPC_FAIL"))
		Expect(realOf(e).MasterAddr()).To(Equal(sim.HAStandbyAddr))
		Expect(e.store.Put(ctx, "after", []byte("v"))).To(Equal(0))
	})

	It("has no one master address and does not model a paused HA master", func() {
		e := launch(opts{version: "0.3.13.post1", metadata: "etcd", ha: true})
		_, err := e.w.Addr("master")
		Expect(err).To(MatchError("sim: topology master.ha: clients find the leader through etcd (etcd://{{etcd}}), there is no one master address"))
		err = e.w.Arm(ctx, []faults.Fault{{Kind: faults.Process, Target: faults.TargetMasterLeader, Action: "pause"}})
		_, unsupported := engine.AsUnsupported(err)
		Expect(unsupported).To(BeTrue(), "%v", err)
	})
})
