package realengine_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

var _ = Describe("HA master pair", func() {
	ha := func(s *engine.WorldSpec) { s.Metadata, s.Master.HA = "etcd", true }

	It("has no one master address", func() {
		w := launch(vNew, ha)
		_, err := w.Addr("master")
		Expect(err).To(MatchError("real engine: topology master.ha: clients find the leader through etcd (etcd://{{etcd}}), there is no one master address"))
	})

	It("fails over to the standby when the leader is killed, on "+vNew, func() {
		w := launch(vNew, ha)
		etcd, err := w.Addr("etcd")
		Expect(err).NotTo(HaveOccurred())
		ctx := timeout(150 * time.Second)
		_, s := w.store(nil)
		Expect(s.Setup(ctx, setupArgs(freeHostPort(), "P2PHANDSHAKE", "etcd://"+etcd))).To(Equal(0))
		Expect(s.Put(ctx, "before", []byte("v"))).To(Equal(0))
		Expect(w.logs("master")).To(ContainElement("Master runtime state -> serving, role=leader"))
		Expect(w.logs("master-standby")).NotTo(ContainElement("Master runtime state -> serving, role=leader"))

		Expect(w.Arm(ctx, []faults.Fault{{Kind: faults.Process, Target: faults.TargetMasterLeader, Action: "stop"}})).To(Succeed())
		// The dead leader's connection: RPC_FAIL (real: -900 at once or
		// after the 4.27 s pool retries).
		Expect(s.Put(ctx, "during", []byte("v"))).To(Equal(int(mooncake.RPC_FAIL)))
		Eventually(func() int {
			rc, _ := s.Put(ctx, "after", []byte("v"))
			return rc
		}).WithTimeout(60 * time.Second).WithPolling(time.Second).Should(Equal(0))
		Expect(w.logs("master-standby")).To(ContainElement("Master runtime state -> serving, role=leader"))
		Expect(s.IsExist(ctx, "before")).To(Equal(0), "the old leader's objects are gone")
		Expect(s.IsExist(ctx, "after")).To(Equal(1))
	})
})
