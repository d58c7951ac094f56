package netport

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"
)

// Blackhole makes 127.0.0.1:port drop every SYN, as the address of a
// deleted pod does (Mooncake#3740): a listener with an accept queue of one
// (listen backlog 0) holding one connection of the harness's own that it
// never accepts. With the queue full the kernel drops each new SYN
// (tcp_conn_request), so a connect retransmits until its own timeout: no
// refusal, no reset. The port must be free (its process dead); a bind
// that finds it busy is retried until bindWait. release closes both.
func Blackhole(port int) (release func(), err error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("netport: blackhole %d: socket: %w", port, err)
	}
	closeFD := func() { _ = syscall.Close(fd) }
	// The dead process's connections linger (TIME_WAIT, FIN_WAIT) on the
	// port: SO_REUSEADDR binds beside them, as its own listener did.
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		closeFD()
		return nil, fmt.Errorf("netport: blackhole %d: SO_REUSEADDR: %w", port, err)
	}
	sa := &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}
	deadline := time.Now().Add(bindWait)
	for {
		err = syscall.Bind(fd, sa)
		if !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		closeFD()
		return nil, fmt.Errorf("netport: blackhole %d: bind: %w", port, err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		closeFD()
		return nil, fmt.Errorf("netport: blackhole %d: listen: %w", port, err)
	}
	parked, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		closeFD()
		return nil, fmt.Errorf("netport: blackhole %d: park a connection: %w", port, err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = parked.Close()
			closeFD()
		})
	}, nil
}

// bindWait bounds Blackhole's wait for a dying process to let go of its
// listening port.
const bindWait = 2 * time.Second
