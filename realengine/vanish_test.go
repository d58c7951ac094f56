package realengine_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

var _ = Describe("process action vanish", func() {
	It("leaves the HA leader's address dropping SYNs until healed, on "+vNew, func() {
		w := launch(vNew, func(s *engine.WorldSpec) { s.Metadata, s.Master.HA = "etcd", true })
		etcd, err := w.Addr("etcd")
		Expect(err).NotTo(HaveOccurred())
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 2 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(cli.Close)
		ctx := timeout(60 * time.Second)
		resp, err := cli.Get(ctx, mooncake.MustProfile(vNew).MasterViewKey)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Kvs).To(HaveLen(1))
		leader := strings.TrimSpace(string(resp.Kvs[0].Value))
		dial := func() error {
			c, err := net.DialTimeout("tcp", leader, 500*time.Millisecond)
			if err == nil {
				c.Close()
			}
			return err
		}
		Expect(dial()).To(Succeed(), "the leader serves")

		Expect(w.Arm(ctx, []faults.Fault{{Kind: faults.Process, Target: faults.TargetMasterLeader, Action: faults.Vanish}})).To(Succeed())
		Eventually(func() bool {
			var ne net.Error
			err := dial()
			return errors.As(err, &ne) && ne.Timeout()
		}).WithTimeout(5*time.Second).WithPolling(200*time.Millisecond).Should(BeTrue(), "a connect waits out its timeout: no refusal")

		clear, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		Expect(w.ClearFaults(clear)).To(Succeed())
		// Started again it campaigns (the standby leads): its port is closed.
		Expect(errors.Is(dial(), syscall.ECONNREFUSED)).To(BeTrue())
	})
})
