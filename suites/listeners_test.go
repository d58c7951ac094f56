package suites_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// ourListeners returns the addresses among addrs that a socket of this
// process still listens on. Dialing would also reach a listener another
// program on the shared machine opened on a reused ephemeral port; the
// kernel's socket table (/proc/net/tcp, tcp6) with this process's file
// descriptors says whose listener it is.
func ourListeners(addrs []string) ([]string, error) {
	mine := map[string]bool{} // socket inodes this process holds
	fds, err := filepath.Glob("/proc/self/fd/*")
	if err != nil {
		return nil, err
	}
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	listening := map[int]bool{} // ports with a LISTEN socket of ours
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			if len(f) < 10 || f[3] != "0A" || !mine[f[9]] {
				continue
			}
			_, hexPort, _ := strings.Cut(f[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil {
				listening[int(p)] = true
			}
		}
	}
	var out []string
	for _, a := range addrs {
		i := strings.LastIndexByte(a, ':')
		p, err := strconv.Atoi(a[i+1:])
		if err != nil {
			return nil, fmt.Errorf("address %q: %w", a, err)
		}
		if listening[p] {
			out = append(out, a)
		}
	}
	return out, nil
}

var _ = Describe("leak check", Label("fake"), func() {
	It("sees this process's listener, and not after it closed", func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		a := ln.Addr().String()
		Expect(ourListeners([]string{a})).To(Equal([]string{a}))
		Expect(ln.Close()).To(Succeed())
		Expect(ourListeners([]string{a})).To(BeEmpty())
	})
})
