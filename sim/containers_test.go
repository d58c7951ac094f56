package sim_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim"
	"github.com/mooncake-faultlab/faultlab/trace"
)

func container(at time.Duration, target, action string) faults.Fault {
	return faults.Fault{At: at, Kind: faults.Container, Target: target, Action: action}
}

// Expectations from real 0.3.13.post1 in containers (docs/REAL-FINDINGS.md §23).
var _ = Describe("container faults in a modelled container world", func() {
	world := func(containers bool) *sim.World {
		w, err := sim.NewWith(sim.Options{Containers: containers}).Launch(ctx, engine.WorldSpec{Version: "0.3.13.post1",
			Metadata: "P2PHANDSHAKE", Master: &engine.MasterSpec{}, Nodes: []engine.NodeSpec{{Name: "tp0"}}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = w.Close(context.Background()) })
		return w.(*sim.World)
	}
	arm := func(containers bool, f faults.Fault) error { return world(containers).Arm(ctx, []faults.Fault{f}) }

	It("are a skip in a world of processes, and partitions of servers are not modelled", func() {
		err := arm(false, container(time.Second, "master", "kill"))
		Expect(err).To(MatchError(ContainSubstring("needs a container world (faultlab run --containers)")))
		_, skip := err.(*engine.Unsupported)
		Expect(skip).To(BeTrue())
		err = arm(true, container(time.Second, "master", "partition"))
		Expect(err).To(MatchError(ContainSubstring("partition of master is not modelled")))
		Expect(arm(true, container(time.Second, "nobody", "kill"))).To(MatchError(ContainSubstring(`no party "nobody"`)))
		Expect(arm(true, container(time.Second, "tp0", "restart"))).To(MatchError(ContainSubstring("not restarted by a fault")))
	})

	It("a partitioned node: the open ping connection times out 30 s later, new connections fail with RPC_FAIL", func() {
		e := launch(opts{version: "0.3.13.post1", containers: true, faults: []faults.Fault{container(10*time.Second, "tp0", "partition")}})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
		Expect(e.store.Put(ctx, "k", []byte("v"))).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 30*time.Second)).To(Succeed()) // 20 s into the partition
		Expect(e.store.HealthCheck(ctx)).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 15*time.Second)).To(Succeed()) // the ping sent at 10 s timed out at 40 s
		Expect(e.store.HealthCheck(ctx)).To(Equal(2))
		start := e.now()
		Expect(e.store.IsExist(ctx, "k")).To(Equal(-900)) // the foreground's connection idled out: a new one
		Expect(e.now() - start).To(Equal(44266 * time.Millisecond))
		Expect(e.logs("mooncake:tp0")).To(ContainElements("RPC call timed out: Connection timed out", "Failed to ping master", "Client not available"))
	})

	It("a killed master loses its objects; start is a fresh master", func() {
		e := launch(opts{version: "0.3.13.post1", containers: true, faults: []faults.Fault{
			{At: 5 * time.Second, For: 10 * time.Second, Kind: faults.Container, Target: "master", Action: "kill"}}})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
		Expect(e.store.Put(ctx, "k", []byte("v"))).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 10*time.Second)).To(Succeed())
		Expect(e.w.Master()).To(BeNil())
		Expect(e.store.IsExist(ctx, "k")).To(Equal(-900))
		Expect(e.w.Clock().Sleep(ctx, 30*time.Second)).To(Succeed())
		Expect(e.w.Master()).NotTo(BeNil())
		Expect(e.store.IsExist(ctx, "k")).To(Equal(0))
	})

	It("a memory limit below the master's usage is refused, as docker update on cgroup v1", func() {
		w := world(true)
		f := container(time.Second, "master", "memory")
		f.Params = faults.ContainerParams{Bytes: 8 << 20}
		g := container(2*time.Second, "master", "memory")
		g.Params = faults.ContainerParams{Bytes: 1 << 30}
		Expect(w.Arm(ctx, []faults.Fault{f, g})).To(Succeed())
		Expect(w.Clock().Sleep(ctx, 3*time.Second)).To(Succeed())
		Expect(w.Master()).NotTo(BeNil())
		Expect(w.Close(ctx)).To(MatchError(ContainSubstring("unable to set memory limit to 8388608 (current usage: ")))
	})

	It("a replaced master has a new address: a client given the old one reads EOF, then each RPC fails after 12.28 s", func() {
		e := launch(opts{version: "0.3.13.post1", containers: true, faults: []faults.Fault{container(10*time.Second, "master", "replace")}})
		before, err := e.w.Addr("master_ip")
		Expect(err).NotTo(HaveOccurred())
		Expect(before).To(Equal(sim.MasterIP))
		a := setupArgs("localhost", "tcp", "")
		a.MasterServerAddr = before
		Expect(e.setup(a)).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 40*time.Second)).To(Succeed()) // the foreground connection idles out
		Expect(e.w.Addr("master_ip")).To(Equal("172.18.0.4:50051"))
		Expect(e.w.Master()).NotTo(BeNil()) // the new container serves
		Expect(e.store.HealthCheck(ctx)).To(Equal(2))
		start := e.now()
		Expect(e.store.IsExist(ctx, "k")).To(Equal(-900))
		Expect(e.now() - start).To(Equal(12280 * time.Millisecond))
		Expect(e.logs("mooncake:tp0")).To(ContainElements("RPC call failed: End of file", "Failed to ping master", "Client not available"))
	})

	It("a local_hostname no DNS on the network knows: other pods' puts fail at the handshake's lookup (-800); a pod's alias works", func() {
		for _, c := range []struct {
			name string
			want int
		}{{"sglang-tp1-0", -800}, {"tp1", 0}} {
			tr := trace.New(nil)
			world, err := sim.NewWith(sim.Options{Containers: true}).Launch(ctx, engine.WorldSpec{Version: "0.3.13.post1", Trace: tr,
				Metadata: "P2PHANDSHAKE", Master: &engine.MasterSpec{}, Nodes: []engine.NodeSpec{{Name: "tp1"}, {Name: "tp0"}}})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { _ = world.Close(context.Background()) })
			store := func(node, hostname string, segment int64) engine.Store {
				p, err := world.StartProcess(ctx, node, nil)
				Expect(err).NotTo(HaveOccurred())
				s, err := p.NewStore(ctx)
				Expect(err).NotTo(HaveOccurred())
				a := setupArgs(hostname, "tcp", "")
				a.GlobalSegmentSize = segment
				Expect(s.Setup(ctx, a)).To(Equal(0))
				return s
			}
			tp1 := store("tp1", c.name, 16<<20)
			Expect(tp1.Put(ctx, "own", []byte("v"))).To(Equal(0)) // its own segment: a local copy, no lookup
			tp0 := store("tp0", "tp0", 0)
			Expect(tp0.Put(ctx, "k", []byte("v"))).To(Equal(c.want), c.name)
			var texts []string
			for _, ev := range tr.Events() {
				if ev.Kind == "log" && ev.Source == "mooncake:tp0" {
					texts = append(texts, ev.Text)
				}
			}
			dns := ContainElement(MatchRegexp(`^SocketHandShakePlugin: failed to get IP address of peer server sglang-tp1-0:\d+, check DNS and /etc/hosts, or use IPv4 address instead: Success \[0\]$`))
			if c.want == 0 {
				Expect(texts).NotTo(dns)
				continue
			}
			Expect(texts).To(dns)
			Expect(texts).To(ContainElements(MatchRegexp(`^Failed to open segment for endpoint='sglang-tp1-0:\d+'$`), "Failed to submit transfer operation"))
		}
	})

	It("a memory limit the master grows over: the put that crosses it gets the master OOM-killed, then toxiproxy resets", func() {
		// 33.5 MiB after start, 1029 B per object (real 0.3.13.post1, docs/REAL-FINDINGS.md §23).
		f := container(time.Second, "master", "memory")
		f.Params = faults.ContainerParams{Bytes: 33_500*1024 + 3*1029 + 500} // room for three objects
		e := launch(opts{version: "0.3.13.post1", containers: true, faults: []faults.Fault{f}})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 2*time.Second)).To(Succeed())
		for _, k := range []string{"a", "b", "c"} {
			Expect(e.store.Put(ctx, k, []byte("v"))).To(Equal(0), k)
		}
		Expect(e.w.Master()).NotTo(BeNil())
		Expect(e.store.Put(ctx, "d", []byte("v"))).To(Equal(-900))
		Expect(e.w.Master()).To(BeNil())
		Expect(e.w.Clock().Sleep(ctx, 3*time.Second)).To(Succeed()) // pooled connections read EOF once each
		start := e.now()
		Expect(e.store.IsExist(ctx, "a")).To(Equal(-900)) // accepted and reset at once, not refused
		Expect(e.now()).To(Equal(start))
		Expect(e.logs("mooncake:tp0")).To(ContainElements("RPC call failed: End of file", "Failed to start put operation for key=d: RPC_FAIL", "RPC call failed: Connection reset by peer"))
		Expect(e.logs("mooncake:tp0")).NotTo(ContainElement("Client not available"))
	})
})
