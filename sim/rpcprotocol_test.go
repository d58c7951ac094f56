package sim_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/client"
)

// A master serving RPC over RDMA (MC_RPC_PROTOCOL=rdma) and a TCP store
// client: setup/rpc-protocol-mismatch and setup/master-rpc-rdma-without-rnic.
var _ = Describe("mooncake_master with MC_RPC_PROTOCOL", func() {
	rdma := map[string]string{"MC_RPC_PROTOCOL": "rdma"}
	rnic := []engine.RDMADevice{{Name: "mlx5_0"}}

	It("0.3.7.post2 with an RNIC: ServiceReady waits out the 30 s request timer, -600", func() {
		e := launch(opts{version: "0.3.7.post2", seed: 1, masterEnv: rdma, masterRDMA: rnic})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(-600))
		Expect(e.now()).To(Equal(client.CreateCost + client.DefaultTimeouts.Request))
		Expect(rpcLines(e.logs("master"))).To(Equal([]string{"ibverbs init qp failed: End of file conn_id  1"}))
		Expect(e.logs("mooncake:tp0")).To(Equal([]string{
			"Master view key: mooncake-store/mooncake/master_view",
			"read rpc head failed, error msg:Operation aborted.. close the socket.value=125",
			"RPC call failed: Connection timed out",
			"Failed to create client",
		}))
	})

	It("0.3.7.post2 without an RNIC: the master exits at the connect, -600 at once", func() {
		e := launch(opts{version: "0.3.7.post2", seed: 1, masterEnv: rdma})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(-600))
		Expect(e.now()).To(Equal(client.CreateCost))
		Expect(rpcLines(e.logs("master"))).To(BeEmpty())
		Expect(e.logs("mooncake:tp0")).To(Equal([]string{
			"Master view key: mooncake-store/mooncake/master_view",
			"read rpc head failed, error msg:Connection reset by peer. close the socket.value=104",
			"RPC call failed: Connection reset by peer",
			"Failed to create client",
		}))

		// The process is gone: the next client is refused.
		p, err := e.w.StartProcess(ctx, "tp0", nil)
		Expect(err).NotTo(HaveOccurred())
		s, err := p.NewStore(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Setup(ctx, setupArgs("localhost", "tcp", ""))).To(Equal(-600))
		Expect(e.now()).To(Equal(2*client.CreateCost + client.RefusedPoolCost))

		// Restarted with the variable unset (a remedy's master_env).
		Expect(e.w.ReplaceMaster(ctx, "", nil, map[string]string{"MC_RPC_PROTOCOL": "tcp"})).To(Succeed())
		s2, err := p.NewStore(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(s2.Setup(ctx, setupArgs("localhost", "tcp", ""))).To(Equal(0))
	})

	DescribeTable("served over TCP",
		func(version string, env map[string]string, devs []engine.RDMADevice) {
			e := launch(opts{version: version, seed: 1, masterEnv: env, masterRDMA: devs})
			Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
			Expect(e.logs("master")).NotTo(ContainElement(ContainSubstring("ibverbs")))
			Expect(e.logs("mooncake:tp0")).NotTo(ContainElement(ContainSubstring("RPC call failed")))
		},
		Entry("0.3.8.post1 with an RNIC (yalantinglibs 0.5.6, #1120)", "0.3.8.post1", rdma, rnic),
		Entry("0.3.8.post1 without one (real, §85)", "0.3.8.post1", rdma, nil),
		Entry("0.3.13.post1 without one (real, §85)", "0.3.13.post1", rdma, nil),
		Entry("0.3.7.post2, \"RDMA\": anything but exactly rdma is TCP", "0.3.7.post2", map[string]string{"MC_RPC_PROTOCOL": "RDMA"}, rnic),
		Entry("0.3.5: no MC_RPC_PROTOCOL yet", "0.3.5", rdma, nil),
	)
})

// rpcLines drops the master's periodic metrics summary.
func rpcLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "Master Metrics: ") {
			out = append(out, l)
		}
	}
	return out
}
