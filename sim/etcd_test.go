package sim_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/sim"
)

var _ = Describe("etcd metadata", func() {
	ctx := context.Background()

	It("publishes rpc_meta and the segment under etcd, and removes them on close", func() {
		e := launch(opts{version: "0.3.13.post1", metadata: "etcd"})
		a := setupArgs("127.0.0.1:17781", "tcp", "")
		a.MetadataServer = "etcd://" + sim.EtcdAddr
		Expect(e.setup(a)).To(Equal(0))
		_, ok := e.w.Etcd().Get("mooncake/rpc_meta/127.0.0.1:17781")
		Expect(ok).To(BeTrue())
		_, ok = e.w.Etcd().Get("mooncake/ram/127.0.0.1:17781")
		Expect(ok).To(BeTrue())
		_, err := e.store.Close(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(e.w.Etcd().Len()).To(Equal(0))
	})

	It("keeps keys across an etcd restart", func() {
		e := launch(opts{version: "0.3.13.post1", metadata: "etcd", faults: []faults.Fault{{At: time.Second, Kind: faults.Process, Target: "metadata", Action: "restart"}}})
		a := setupArgs("127.0.0.1:17782", "tcp", "")
		a.MetadataServer = sim.EtcdAddr // bare host:port is etcd
		Expect(e.setup(a)).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 2*time.Second)).To(Succeed())
		_, ok := e.w.Etcd().Get("mooncake/rpc_meta/127.0.0.1:17782")
		Expect(ok).To(BeTrue())
	})

	It("fails each operation after the wrapper's 5 s when etcd refuses", func() {
		e := launch(opts{version: "0.3.13.post1", metadata: "etcd", faults: []faults.Fault{{Kind: faults.MetadataDown, Mode: "refuse"}}})
		a := setupArgs("127.0.0.1:17783", "tcp", "")
		a.MetadataServer = "etcd://" + sim.EtcdAddr
		Expect(e.setup(a)).To(Equal(-600))
		Expect(e.now()).To(Equal(client.CreateCost + 2*te.EtcdOpTimeout))
	})

	It("connects to the master an HA master view names", func() {
		e := launch(opts{version: "0.3.13.post1", metadata: "etcd"})
		p, err := mooncake.ProfileFor("0.3.13.post1")
		Expect(err).NotTo(HaveOccurred())
		e.w.Etcd().Put(p.MasterViewKey, []byte(sim.MasterAddr))
		a := setupArgs("127.0.0.1:17784", "tcp", "")
		a.MasterServerAddr = "etcd://" + sim.EtcdAddr
		Expect(e.setup(a)).To(Equal(0))
		Expect(e.w.Master().SegmentNames()).To(Equal([]string{"127.0.0.1:17784"}))
	})
})
