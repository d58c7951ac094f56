package realengine

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/mooncake-faultlab/faultlab/tmpdir"
)

// sglangForkServerPy imports torch and SGLang once and forks a scheduler
// per world (see its docstring for the protocol).
//
//go:embed driver/sglang_forkserver.py
var sglangForkServerPy []byte

// forkNotSafe is the fork server's exit status when SGLang's import tried
// to import Mooncake (each world brings its own): spawn instead.
const forkNotSafe = 3

// forkServer is one sglang_forkserver.py: an SGLang venv's interpreter with
// torch and SGLang imported, forking sglang_driver.py processes on request.
type forkServer struct {
	cmd   *exec.Cmd
	dir   string // its socket and script; removed by close
	sock  string
	stdin *os.File // closing it ends the server and its children
	done  chan struct{}
}

// startForkServer starts a fork server with python and waits until SGLang
// is imported (bounded by ctx). The error says why it could not serve.
// ldPath is its LD_LIBRARY_PATH: the dynamic loader reads it when a process
// starts, so a forked child loads Mooncake's libraries (a CUDA wheel's
// runtime, its stub libcuda) from its server's path, never from its own
// environment.
func startForkServer(ctx context.Context, python, ldPath string) (*forkServer, error) {
	dir, err := tmpdir.Make("faultlab-sglang-fork-")
	if err != nil {
		return nil, fmt.Errorf("sglang fork server: %w", err)
	}
	script := filepath.Join(dir, "sglang_forkserver.py")
	if err := os.WriteFile(script, sglangForkServerPy, 0o644); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("sglang fork server: %w", err)
	}
	z := &forkServer{dir: dir, sock: filepath.Join(dir, "fork.sock"), done: make(chan struct{})}
	z.cmd = exec.Command(python, "-u", script, z.sock)
	// torch makes its inductor cache dir (/tmp/torchinductor_<user>) when
	// SGLang imports it: in the server's own dir, it goes with the server.
	env := map[string]string{"PYTHONUNBUFFERED": "1", "TORCHINDUCTOR_CACHE_DIR": filepath.Join(dir, "torchinductor")}
	if ldPath != "" {
		env["LD_LIBRARY_PATH"] = ldPath
	}
	z.cmd.Env = mergeEnv(baseEnv(), env)
	z.cmd.Dir = dir
	// As every child of the harness: its own group, and gone with the harness.
	z.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	inR, inW, err := os.Pipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("sglang fork server: %w", err)
	}
	z.cmd.Stdin, z.stdin = inR, inW
	out, err := z.cmd.StdoutPipe()
	if err != nil {
		_ = inR.Close()
		_ = inW.Close()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("sglang fork server: %w", err)
	}
	var stderr tailBuffer
	z.cmd.Stderr = &stderr
	if err := z.cmd.Start(); err != nil {
		_ = inR.Close()
		_ = inW.Close()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("sglang fork server: start %s: %w", python, err)
	}
	_ = inR.Close()
	ready := make(chan error, 1)
	go func() {
		var h struct {
			Ready  bool   `json:"ready"`
			Reason string `json:"reason"`
		}
		line, err := bufio.NewReader(out).ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(line, &h)
		}
		switch {
		case err != nil:
			ready <- fmt.Errorf("no ready line: %w", err)
		case !h.Ready:
			ready <- errors.New(h.Reason)
		default:
			ready <- nil
		}
	}()
	go func() { _ = z.cmd.Wait(); close(z.done) }()
	select {
	case err = <-ready:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		z.close()
		return nil, fmt.Errorf("sglang fork server (%s): %w; stderr: %s", python, err, stderr.String())
	}
	return z, nil
}

// fork starts spec as a child of the server with the four files as its
// stdin, stdout, stderr and fd 3. wait blocks until it exits.
func (z *forkServer) fork(spec procSpec, files [4]*os.File) (pid int, wait func() (syscall.WaitStatus, error), err error) {
	if len(spec.Args) < 2 {
		return 0, nil, fmt.Errorf("fork %s: want [-u script ...] arguments, got %v", spec.Name, spec.Args)
	}
	conn, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: z.sock, Net: "unixpacket"})
	if err != nil {
		return 0, nil, fmt.Errorf("fork %s: %w", spec.Name, err)
	}
	req, _ := json.Marshal(map[string]any{"script": spec.Args[1], "argv": spec.Args[1:], "env": spec.Env, "dir": spec.Dir})
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	if _, _, err := conn.WriteMsgUnix(req, syscall.UnixRights(fds...), nil); err != nil {
		_ = conn.Close()
		return 0, nil, fmt.Errorf("fork %s: %w", spec.Name, err)
	}
	var reply struct {
		PID    int                 `json:"pid"`
		Status *syscall.WaitStatus `json:"status"`
		Error  string              `json:"error"`
	}
	read := func() error {
		buf := make([]byte, 4096)
		n, err := conn.Read(buf)
		if err != nil {
			return err
		}
		reply.Status = nil
		return json.Unmarshal(buf[:n], &reply)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a fork is milliseconds; the server may be gone
	if err := read(); err != nil || reply.PID == 0 {
		_ = conn.Close()
		return 0, nil, fmt.Errorf("fork %s: %v %s", spec.Name, err, reply.Error)
	}
	_ = conn.SetReadDeadline(time.Time{})
	pid = reply.PID
	return pid, func() (syscall.WaitStatus, error) {
		defer conn.Close()
		if err := read(); err != nil || reply.Status == nil {
			// The server died (it kills its children first): as a SIGKILL.
			return syscall.WaitStatus(syscall.SIGKILL), fmt.Errorf("fork server lost child %d: %v", pid, err)
		}
		return *reply.Status, nil
	}, nil
}

// close ends the server; it kills every child it forked.
func (z *forkServer) close() {
	_ = z.stdin.Close()
	select {
	case <-z.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-z.cmd.Process.Pid, syscall.SIGKILL)
		<-z.done
	}
	_ = os.RemoveAll(z.dir)
}

// forkServers keeps one fork server per SGLang interpreter and
// LD_LIBRARY_PATH for an SGLang side's lifetime. A server that cannot
// serve is remembered, and spawning takes over.
type forkServers struct {
	mu      sync.Mutex
	servers map[string]*forkServer
	failed  map[string]error
}

// get returns the running server of python with ldPath, starting it on
// first use.
func (f *forkServers) get(ctx context.Context, python, ldPath string) (*forkServer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := python + "\x00" + ldPath
	if z := f.servers[key]; z != nil {
		select {
		case <-z.done: // died: start another
		default:
			return z, nil
		}
	}
	if err := f.failed[key]; err != nil {
		return nil, err
	}
	z, err := startForkServer(ctx, python, ldPath)
	if err != nil {
		if ctx.Err() == nil {
			if f.failed == nil {
				f.failed = map[string]error{}
			}
			f.failed[key] = err
		}
		return nil, err
	}
	if f.servers == nil {
		f.servers = map[string]*forkServer{}
	}
	f.servers[key] = z
	return z, nil
}

func (f *forkServers) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, z := range f.servers {
		z.close()
		delete(f.servers, k)
	}
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
