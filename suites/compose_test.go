package suites_test

import (
	"context"
	"io"
	"net"
	"regexp"
	"strconv"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/moby/moby/client"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/compose"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/containers/images"
)

// The top-level compose.yaml, brought up through testcontainers-go's compose
// module exactly as a person brings it up with docker-compose: the SGLang-side
// driver puts and gets through toxiproxy in front of the master; disabling
// that proxy makes puts fail, enabling it makes them succeed again.
var _ = Describe("compose.yaml", Label("containers", "compose"), Ordered, func() {
	var (
		d     *testcontainers.DockerClient
		stack *compose.DockerCompose
		world = containers.NewWorldID()
		api   string
	)

	BeforeAll(func(ctx SpecContext) {
		var err error
		if d, err = containers.Docker(ctx); err != nil {
			Skip(err.Error())
		}
		DeferCleanup(d.Close)
		b := &images.Builder{Docker: d}
		_, err = b.Mooncake(ctx, containers.ComposeVersion)
		Expect(err).NotTo(HaveOccurred())
		_, err = b.Toxiproxy(ctx)
		Expect(err).NotTo(HaveOccurred())

		port := freePort()
		api = "127.0.0.1:" + strconv.Itoa(port)
		stack, err = compose.NewDockerComposeWith(compose.WithStackFiles("../compose.yaml"), compose.StackIdentifier(world))
		Expect(err).NotTo(HaveOccurred())
		stack.WithEnv(map[string]string{"FAULTLAB_WORLD": world, "FAULTLAB_TOXIPROXY_PORT": strconv.Itoa(port)})
		DeferCleanup(func(ctx context.Context) {
			Expect(stack.Down(ctx, compose.RemoveOrphans(true), compose.RemoveVolumes(true))).To(Succeed())
			left, err := containers.Leftovers(ctx, d, world)
			Expect(err).NotTo(HaveOccurred())
			Expect(left).To(BeEmpty())
			Expect(projectNetworks(ctx, d, world)).To(BeEmpty())
		}, NodeTimeout(2*time.Minute))
		Expect(stack.Up(ctx, compose.Wait(true))).To(Succeed())
	}, NodeTimeout(10*time.Minute))

	logs := func(ctx context.Context, svc string) string {
		c, err := stack.ServiceContainer(ctx, svc)
		Expect(err).NotTo(HaveOccurred())
		r, err := c.Logs(ctx)
		Expect(err).NotTo(HaveOccurred())
		defer r.Close()
		b, err := io.ReadAll(r)
		Expect(err).NotTo(HaveOccurred())
		return string(b)
	}
	// lastPut is the rc of the newest "put kN rc=X" line.
	lastPut := func(ctx context.Context) string {
		m := regexp.MustCompile(`put k\d+ rc=(-?\d+)`).FindAllStringSubmatch(logs(ctx, "sglang"), -1)
		if len(m) == 0 {
			return "none"
		}
		return m[len(m)-1][1]
	}

	It("labels every container with the world id", func(ctx SpecContext) {
		left, err := containers.Leftovers(ctx, d, world)
		Expect(err).NotTo(HaveOccurred())
		Expect(left).To(ConsistOf(
			"container "+world+"-master-1", "container "+world+"-metadata-1", "container "+world+"-toxiproxy-1",
			"container "+world+"-mooncake_client-1", "container "+world+"-sglang-1"))
		// testcontainers-go's compose module replaces a network's labels with
		// its own (compose_api.go compileProject), so compose.yaml's
		// faultlab.world does not reach the network here (docker-compose
		// sets it); the project label names it instead.
		Expect(projectNetworks(ctx, d, world)).To(ConsistOf(world + "_default"))
	})

	It("sets up and puts through toxiproxy; a refused master fails puts with RPC_FAIL; healing recovers", func(ctx SpecContext) {
		Eventually(func() string { return logs(ctx, "sglang") }).WithContext(ctx).WithTimeout(60 * time.Second).
			Should(And(ContainSubstring("setup rc=0\n"), MatchRegexp(`put k\d+ rc=0\n`), MatchRegexp(`get k\d+ bytes=4096\n`)))

		tp := toxiclient.NewClient(api)
		proxies, err := tp.Proxies()
		Expect(err).NotTo(HaveOccurred())
		Expect(proxies).To(HaveKey("master"))
		Expect(proxies["master"].Upstream).To(Equal("master:50051"))
		Expect(proxies["master"].Disable()).To(Succeed())
		// A refused master: put_start's RPC fails, put returns RPC_FAIL (-900).
		Eventually(lastPut).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(time.Second).Should(Equal("-900"))
		Expect(logs(ctx, "sglang")).To(ContainSubstring("Failed to start put operation for key="))
		Expect(proxies["master"].Enable()).To(Succeed())
		Eventually(lastPut).WithContext(ctx).WithTimeout(90 * time.Second).WithPolling(time.Second).Should(Equal("0"))
	}, SpecTimeout(4*time.Minute))
})

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// projectNetworks are the networks of compose project p.
func projectNetworks(ctx context.Context, d *testcontainers.DockerClient, p string) []string {
	res, err := d.NetworkList(ctx, client.NetworkListOptions{Filters: client.Filters{}.Add("label", "com.docker.compose.project="+p)})
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, n := range res.Items {
		names = append(names, n.Name)
	}
	return names
}
