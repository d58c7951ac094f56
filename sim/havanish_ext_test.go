package sim_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
)

var _ = Describe("process action vanish", func() {
	It("is modelled for an HA master only", func() {
		e := launch(opts{version: "0.3.13.post1"})
		err := e.w.Arm(context.Background(), []faults.Fault{{Kind: faults.Process, Target: "master", Action: faults.Vanish}})
		u, unsupported := engine.AsUnsupported(err)
		Expect(unsupported).To(BeTrue(), "%v", err)
		Expect(u.Error()).To(ContainSubstring("modelled for an HA master only (topology master.ha)"))
	})
})
