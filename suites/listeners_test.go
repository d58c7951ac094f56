package suites_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// listeningHere reports whether this test process still holds a listening
// socket on addr (host:port). The fake engine's servers and proxies all
// live in this process; a port that another process took meanwhile (the
// machine is shared, ephemeral ports are reused) is not our leak.
func listeningHere(addr string) (bool, error) {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return false, fmt.Errorf("port of %s: %w", addr, err)
	}
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			// sl local_address rem_address st ... inode (field 9)
			if len(fs) < 10 || fs[3] != "0A" {
				continue
			}
			i := strings.LastIndexByte(fs[1], ':')
			if lp, err := strconv.ParseInt(fs[1][i+1:], 16, 32); err == nil && int(lp) == port {
				inodes[fs[9]] = true
			}
		}
		_ = fh.Close()
	}
	if len(inodes) == 0 {
		return false, nil
	}
	fds, err := filepath.Glob("/proc/self/fd/*")
	if err != nil {
		return false, err
	}
	for _, fd := range fds {
		t, err := os.Readlink(fd)
		if err == nil && strings.HasPrefix(t, "socket:[") && inodes[strings.TrimSuffix(strings.TrimPrefix(t, "socket:["), "]")] {
			return true, nil
		}
	}
	return false, nil
}

// The leak check must see a listener of its own and ignore a closed one.
var _ = Describe("listeningHere", func() {
	It("finds this process's listener and not a closed one", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		Expect(listeningHere(addr)).To(BeTrue())
		Expect(l.Close()).To(Succeed())
		Expect(listeningHere(addr)).To(BeFalse())
	})
})
