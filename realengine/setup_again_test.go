package realengine_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sim"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// setupTwice calls setup() on an initialised store, then put/get, and
// returns the codes and the two hostnames.
func setupTwice(ctx context.Context, s engine.Store, master string) ([]int, [2]string) {
	var codes []int
	var hosts [2]string
	for i := range 2 {
		rc, err := s.Setup(ctx, setupArgs("localhost", "P2PHANDSHAKE", master))
		Expect(err).NotTo(HaveOccurred())
		codes = append(codes, rc)
		hosts[i], err = s.GetHostname(ctx)
		Expect(err).NotTo(HaveOccurred())
	}
	rc, err := s.Put(ctx, "k", []byte("v"))
	Expect(err).NotTo(HaveOccurred())
	codes = append(codes, rc)
	got, err := s.Get(ctx, "k")
	Expect(err).NotTo(HaveOccurred())
	Expect(got).To(Equal([]byte("v")))
	return codes, hosts
}

// No Mooncake version guards setup() against an initialised client
// ("Client is already initialized" belongs to initAll): setup_internal
// builds a new Client on a new port. Real and sim must agree.
var _ = Describe("setup() on an initialised client", func() {
	for _, v := range []string{vOld, vNew} {
		It("returns 0 again on a new port, real and sim alike, on "+v, func() {
			w := launch(v, nil)
			ctx := timeout(60 * time.Second)
			_, s := w.store(nil)
			master, _ := w.Addr("master")
			realCodes, realHosts := setupTwice(ctx, s, master)
			Expect(realCodes).To(Equal([]int{0, 0, 0}))
			Expect(realHosts[1]).NotTo(Equal(realHosts[0]))

			sw, err := sim.New().Launch(ctx, engine.WorldSpec{Version: v, Trace: trace.New(nil), Master: &engine.MasterSpec{},
				Metadata: "P2PHANDSHAKE", Nodes: []engine.NodeSpec{{Name: "tp0"}}})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { Expect(sw.Close(context.Background())).To(Succeed()) })
			p, err := sw.StartProcess(ctx, "tp0", nil)
			Expect(err).NotTo(HaveOccurred())
			ss, err := p.NewStore(ctx)
			Expect(err).NotTo(HaveOccurred())
			simMaster, _ := sw.Addr("master")
			simCodes, simHosts := setupTwice(ctx, ss, simMaster)
			Expect(simCodes).To(Equal(realCodes))
			Expect(simHosts[1]).NotTo(Equal(simHosts[0]))
		})
	}
})

// capEff is a live process's effective capability set.
func capEff(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	Expect(err).NotTo(HaveOccurred())
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			Expect(err).NotTo(HaveOccurred())
			return n
		}
	}
	Fail("no CapEff in /proc/<pid>/status")
	return 0
}

// The driver drops the capabilities a root run has and a node must not:
// ib_umem_get enforces RLIMIT_MEMLOCK only without CAP_IPC_LOCK, so a node
// with a memlock limit drops it unless it has cap_ipc_lock; a non_root
// node drops CAP_NET_BIND_SERVICE, so a bind below port 1024 fails as a
// non-root user's does.
var _ = Describe("the driver's capabilities", func() {
	const (
		ipcLock     = uint64(1) << 14
		bindService = uint64(1) << 10
	)
	BeforeEach(func() {
		if os.Geteuid() != 0 {
			Skip("needs a root run: only root can show the capability being dropped")
		}
	})
	DescribeTable("CAP_IPC_LOCK and CAP_NET_BIND_SERVICE",
		func(node engine.NodeSpec, capability, want uint64) {
			w := launch(vNew, func(s *engine.WorldSpec) { s.Nodes = []engine.NodeSpec{node} })
			p, _ := w.store(nil)
			Expect(capEff(p.PID()) & capability).To(Equal(want))
		},
		// A memlock below this host's 8 MiB hard limit.
		Entry("memlock without cap_ipc_lock: CAP_IPC_LOCK dropped", engine.NodeSpec{Name: "tp0", MemlockBytes: 4 << 20}, ipcLock, uint64(0)),
		Entry("cap_ipc_lock: CAP_IPC_LOCK kept", engine.NodeSpec{Name: "tp0", MemlockBytes: 4 << 20, CapIPCLock: true}, ipcLock, ipcLock),
		Entry("non_root: CAP_NET_BIND_SERVICE dropped", engine.NodeSpec{Name: "tp0", NonRoot: true}, bindService, uint64(0)),
		Entry("root: CAP_NET_BIND_SERVICE kept", engine.NodeSpec{Name: "tp0"}, bindService, bindService),
	)
})
