package kernel_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
)

func TestKernel(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "sim/kernel")
}

var _ = Describe("Kernel", func() {
	It("fires events in (time, sequence) order and moves the clock", func() {
		k := kernel.New(1)
		var got []string
		k.At(2*time.Second, "b", func() { got = append(got, "b@"+k.Now().String()) })
		k.At(time.Second, "a1", func() { got = append(got, "a1@"+k.Now().String()) })
		k.At(time.Second, "a2", func() {
			got = append(got, "a2@"+k.Now().String())
			k.After(500*time.Millisecond, "c", func() { got = append(got, "c@"+k.Now().String()) })
		})
		k.Advance(1500 * time.Millisecond)
		Expect(got).To(Equal([]string{"a1@1s", "a2@1s", "c@1.5s"}))
		Expect(k.Now()).To(Equal(1500 * time.Millisecond))
		k.RunUntil(10 * time.Second)
		Expect(got).To(HaveLen(4))
		Expect(got[3]).To(Equal("b@2s"))
		Expect(k.Now()).To(Equal(10 * time.Second))
		Expect(k.Fired()).To(Equal(uint64(4)))
	})

	It("skips cancelled events and clamps the past to now", func() {
		k := kernel.New(1)
		fired := 0
		e := k.At(time.Second, "x", func() { fired++ })
		e.Cancel()
		k.Advance(2 * time.Second)
		Expect(fired).To(Equal(0))
		k.At(time.Second, "late", func() { fired++ })
		Expect(k.Pending()).To(Equal(1))
		k.RunUntil(k.Now())
		Expect(fired).To(Equal(1))
		Expect(k.Now()).To(Equal(2 * time.Second))
	})

	It("derives independent, reproducible streams per component", func() {
		a1 := rng.Stream(42, "master").Uint64()
		a2 := kernel.New(42).Stream("master").Uint64()
		b := rng.Stream(42, "netsim").Uint64()
		c := rng.Stream(43, "master").Uint64()
		Expect(a1).To(Equal(a2))
		Expect(a1).NotTo(Equal(b))
		Expect(a1).NotTo(Equal(c))
	})

	It("never fires an event twice when an event advances time itself", func() {
		k := kernel.New(1)
		var order []string
		k.At(time.Second, "outer", func() {
			order = append(order, "outer")
			k.Advance(2 * time.Second) // a model sleeping inside an event
		})
		k.At(2*time.Second, "inner", func() { order = append(order, "inner@"+k.Now().String()) })
		k.RunUntil(5 * time.Second)
		Expect(order).To(Equal([]string{"outer", "inner@2s"}))
		Expect(k.Now()).To(Equal(5 * time.Second))
	})
})
