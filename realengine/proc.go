package realengine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// procSpec describes one child process.
type procSpec struct {
	Name   string // for messages: "mooncake_master", "driver tp0"
	Source string // trace source of its log lines: "master", "metadata", "client", "mooncake:<node>"
	Path   string
	Args   []string
	Env    []string // the whole environment (nothing is inherited implicitly)
	Dir    string
	// Protocol: the driver's JSON stream runs over stdin and fd 3;
	// stdout and stderr are logged like any process's.
	Protocol bool
	Trace    *trace.Trace
	Logger   *slog.Logger
	// OnEvent receives the JSON of each "@@faultlab-event {...}" line
	// (sglang_driver.py's observations) instead of the trace.
	OnEvent func(data []byte)
	// Container worlds (incontainers.go): the party's role (container
	// alias), its /dev/shm size and hard RLIMIT_MEMLOCK.
	Role        string
	ShmSize     int64
	MemlockHard int64
	// Fork: start the process as a child of this fork server (real SGLang
	// with SGLang imported once) instead of executing Path.
	Fork *forkServer
}

// proc is a running child in its own process group. Everything it prints
// goes into the trace; stop kills the whole group.
type proc struct {
	spec   procSpec
	cmd    *exec.Cmd
	pid    int
	ctr    *containers.Party // a container world's party instead of cmd
	stdin  io.WriteCloser    // Protocol only
	stdout io.ReadCloser     // Protocol only

	exited  chan struct{} // closed when Wait returned
	logs    sync.WaitGroup
	mu      sync.Mutex
	status  *syscall.WaitStatus // how it ended, once it has
	waitErr error
	recent  []string // last lines, for crash reports
	levels  []string // their levels
	// lastGlog: the last line was a glog line (Mooncake's, not Python's).
	lastGlog bool
	stopped  bool // stop was called: exit is expected

	syncLast int           // highest sync marker seen on stderr (driver only)
	syncCh   chan struct{} // closed and replaced when syncLast moves
}

// syncPrefix marks the end of a driver call's output (driver.py _sync).
const syncPrefix = "@@faultlab-sync "

// eventPrefix marks an observation of sglang_driver.py (a call SGLang made
// on Mooncake, a log record of SGLang's).
const eventPrefix = "@@faultlab-event "

const recentLines = 12

func startProc(spec procSpec) (*proc, error) {
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	// Own process group: stop kills it whole. Pdeathsig: if the harness dies
	// the child dies with it, so nothing outlives a crashed test binary.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &proc{spec: spec, cmd: cmd, exited: make(chan struct{}), syncCh: make(chan struct{})}

	var closeAfterStart []io.Closer
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, nil, fmt.Errorf("start %s: pipe: %w", spec.Name, err)
		}
		closeAfterStart = append(closeAfterStart, w)
		return r, w, nil
	}
	errR, errW, err := pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = errW
	outR, outW, err := pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = outW
	var protoR, protoW *os.File
	if spec.Protocol {
		inR, inW, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("start %s: pipe: %w", spec.Name, err)
		}
		closeAfterStart = append(closeAfterStart, inR)
		cmd.Stdin = inR
		// The protocol is fd 3 (FAULTLAB_PROTO_FD); stdout stays a log stream.
		if protoR, protoW, err = pipe(); err != nil {
			return nil, err
		}
		cmd.ExtraFiles = []*os.File{protoW}
		cmd.Env = append(append([]string(nil), cmd.Env...), "FAULTLAB_PROTO_FD=3")
		p.stdin, p.stdout = inW, protoR
	} else {
		cmd.Stdin = nil // /dev/null
	}
	wait, err := p.start(protoW)
	if err != nil {
		for _, c := range closeAfterStart {
			_ = c.Close()
		}
		_ = errR.Close()
		_ = outR.Close()
		if p.stdin != nil {
			_ = p.stdin.Close()
			_ = protoR.Close()
		}
		return nil, fmt.Errorf("start %s (%s): %w", spec.Name, spec.Path, err)
	}
	for _, c := range closeAfterStart {
		_ = c.Close()
	}
	p.logs.Add(2)
	go p.pump(errR)
	go p.pump(outR)
	go func() {
		ws, err := wait()
		p.mu.Lock()
		p.status, p.waitErr = ws, err
		p.mu.Unlock()
		close(p.exited)
	}()
	spec.logger().Debug("real engine: started", "proc", spec.Name, "pid", p.pid, "args", spec.Args, "forked", spec.Fork != nil)
	return p, nil
}

// start executes the command, or has the fork server fork it, and returns
// how to wait for its end (nil status: it could not be waited for).
func (p *proc) start(protoW *os.File) (func() (*syscall.WaitStatus, error), error) {
	cmd := p.cmd
	if z := p.spec.Fork; z != nil {
		stdin, _ := cmd.Stdin.(*os.File)
		if stdin == nil {
			return nil, fmt.Errorf("a forked process speaks the driver protocol (stdin)")
		}
		if protoW == nil {
			protoW = cmd.Stdout.(*os.File) // unused as fd 3 without the protocol
		}
		pid, wait, err := z.fork(procSpec{Name: p.spec.Name, Args: cmd.Args[1:], Env: cmd.Env, Dir: cmd.Dir},
			[4]*os.File{stdin, cmd.Stdout.(*os.File), cmd.Stderr.(*os.File), protoW})
		if err != nil {
			return nil, err
		}
		p.pid = pid
		return func() (*syscall.WaitStatus, error) {
			ws, err := wait()
			return &ws, err
		}, nil
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.pid = cmd.Process.Pid
	return func() (*syscall.WaitStatus, error) {
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			return &ws, err
		}
		return nil, err
	}, nil
}

func (s procSpec) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// pump turns output lines into trace events. ReadString, not Scanner: the
// master's metrics lines can be long.
func (p *proc) pump(r io.ReadCloser) {
	defer p.logs.Done()
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			p.record(line)
		}
		if err != nil {
			return
		}
	}
}

func (p *proc) record(line string) {
	if rest, ok := strings.CutPrefix(line, syncPrefix); ok {
		if id, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), "@@")); err == nil {
			p.mu.Lock()
			if id > p.syncLast {
				p.syncLast = id
				close(p.syncCh)
				p.syncCh = make(chan struct{})
			}
			p.mu.Unlock()
			return
		}
	}
	if rest, ok := strings.CutPrefix(line, eventPrefix); ok && p.spec.OnEvent != nil {
		p.spec.OnEvent([]byte(rest))
		return
	}
	level, text, ok := ParseLogLine(line)
	if !ok {
		return
	}
	glog := glogRE.MatchString(ansiRE.ReplaceAllString(strings.TrimRight(line, "\r\n"), ""))
	p.mu.Lock()
	p.lastGlog = glog
	p.recent = append(p.recent, text)
	p.levels = append(p.levels, level)
	if len(p.recent) > recentLines {
		p.recent = p.recent[len(p.recent)-recentLines:]
		p.levels = p.levels[len(p.levels)-recentLines:]
	}
	p.mu.Unlock()
	if p.spec.Trace != nil {
		p.spec.Trace.Log(p.spec.Source, level, text)
	}
	p.spec.logger().Debug("real engine: log", "source", p.spec.Source, "level", level, "text", text)
}

// waitSync waits until the output up to call id has been recorded, the
// process ended, or d passed (a wedged pipe must not wedge the harness).
func (p *proc) waitSync(id int, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		p.mu.Lock()
		last, ch := p.syncLast, p.syncCh
		p.mu.Unlock()
		if last >= id {
			return
		}
		select {
		case <-ch:
		case <-p.exited:
			return
		case <-t.C:
			return
		}
	}
}

// drain waits, at most d, for the log pumps to reach the end of the
// output: Wait returns before the pipes are read to the end, so a process
// that printed its refusal and exited at once (mooncake_master's "illegal
// value") would otherwise be reported with no last lines.
func (p *proc) drain(d time.Duration) {
	done := make(chan struct{})
	go func() { p.logs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// waitExit waits, at most d, for the process to end.
func (p *proc) waitExit(d time.Duration) {
	select {
	case <-p.exited:
	case <-time.After(d):
	}
}

// exitError describes a process that exited before it was ready, with the
// last lines it printed.
func (p *proc) exitError() error {
	p.drain(2 * time.Second)
	return fmt.Errorf("process exited (%s); last lines: %v", p.ExitDescription(), p.Recent())
}

// Recent returns the last lines the process printed.
func (p *proc) Recent() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.recent...)
}

// RecentLevels returns the last lines and their levels.
func (p *proc) RecentLevels() ([]string, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.recent...), append([]string(nil), p.levels...)
}

// signalNames are the signals a crashed or killed process reports.
var signalNames = map[syscall.Signal]string{
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGILL: "SIGILL",
	syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT",
}

// Signal names the signal that ended the process; "" if it exited or runs.
func (p *proc) Signal() string {
	if !p.Exited() {
		return ""
	}
	if p.ctr != nil {
		return p.ctr.Exit().Signal
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.status == nil || !p.status.Signaled() {
		return ""
	}
	ws := *p.status
	if n, ok := signalNames[ws.Signal()]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(ws.Signal()))
}

// ExitStatus is the status of a process that exited (no signal); 0 while
// it runs, after a signal, or when unknown.
func (p *proc) ExitStatus() int {
	if !p.Exited() {
		return 0
	}
	if p.ctr != nil {
		if e := p.ctr.Exit(); e.Signal == "" && e.Code > 0 && e.Code < 256 {
			return int(e.Code)
		}
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.status == nil || !p.status.Exited() {
		return 0
	}
	return p.status.ExitStatus()
}

// Exited reports whether the process has ended.
func (p *proc) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// ExitDescription says how the process ended ("signal: segmentation fault
// (core dumped)", "exit status 1"); "" while it runs.
func (p *proc) ExitDescription() string {
	if !p.Exited() {
		return ""
	}
	if p.ctr != nil {
		return p.ctr.Exit().String()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.status != nil {
		return describeWait(*p.status)
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return "exited"
}

// describeWait says how a process ended in os.ProcessState.String's words
// ("exit status 1", "signal: killed", "signal: aborted (core dumped)"),
// for forked processes too, which have no ProcessState.
func describeWait(ws syscall.WaitStatus) string {
	var s string
	switch {
	case ws.Exited():
		s = "exit status " + strconv.Itoa(ws.ExitStatus())
	case ws.Signaled():
		s = "signal: " + ws.Signal().String()
	case ws.Stopped():
		s = "stop signal: " + ws.StopSignal().String()
	case ws.Continued():
		s = "continued"
	}
	if ws.CoreDump() {
		s += " (core dumped)"
	}
	return s
}

// stoppedOnPurpose reports whether stop was called (a fault or Close killed
// it): its exit was expected.
func (p *proc) stoppedOnPurpose() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

// signal sends sig to the whole process group.
func (p *proc) signal(sig syscall.Signal) error {
	if p.Exited() {
		return fmt.Errorf("%s (pid %d) already exited: %s", p.spec.Name, p.pid, p.ExitDescription())
	}
	if p.ctr != nil {
		return p.ctr.Signal(context.Background(), sig)
	}
	if err := syscall.Kill(-p.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %s to %s (pgid %d): %w", sig, p.spec.Name, p.pid, err)
	}
	return nil
}

// stop ends the process group: SIGTERM, then SIGKILL after grace (0 = kill
// at once). A stopped (SIGSTOP) group is continued so it can see SIGTERM.
// It waits for the exit and for the log pumps, bounded by ctx.
func (p *proc) stop(ctx context.Context, grace time.Duration) error {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	if p.stdin != nil {
		_ = p.stdin.Close()
	}
	// Signal the group only while its leader is unreaped: after that the
	// id may belong to someone else (our processes fork no children).
	if p.ctr != nil {
		if err := p.ctr.Remove(ctx); err != nil {
			return err
		}
	} else if !p.Exited() {
		if grace > 0 {
			_ = syscall.Kill(-p.pid, syscall.SIGTERM)
			_ = syscall.Kill(-p.pid, syscall.SIGCONT)
			select {
			case <-p.exited:
			case <-time.After(grace):
			case <-ctx.Done():
			}
		}
		if err := syscall.Kill(-p.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill %s (pgid %d): %w", p.spec.Name, p.pid, err)
		}
	}
	select {
	case <-p.exited:
	case <-ctx.Done():
		select { // killed: the exit is a moment away, even if ctx ended before
		case <-p.exited:
		case <-time.After(time.Second):
			return fmt.Errorf("stop %s (pid %d): %w", p.spec.Name, p.pid, ctx.Err())
		}
	}
	done := make(chan struct{})
	go func() { p.logs.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		// The process is gone: its pipes close at once; a second bounds it
		// when ctx ended before (a close after a long-blocked call).
		select {
		case <-done:
		case <-time.After(time.Second):
			return fmt.Errorf("stop %s (pid %d): output still open: %w", p.spec.Name, p.pid, ctx.Err())
		}
	}
	if p.stdout != nil {
		_ = p.stdout.Close()
	}
	p.spec.logger().Debug("real engine: stopped", "proc", p.spec.Name, "pid", p.pid, "exit", p.ExitDescription())
	return nil
}

// baseEnv is the environment every child starts from: enough to run, and
// nothing of the harness's own MC_* settings, so a scenario's env is the
// whole story.
func baseEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "USER"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	if _, ok := os.LookupEnv("PATH"); !ok {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return env
}

// mergeEnv sets k=v pairs over base (later wins), in a stable order.
func mergeEnv(base []string, set map[string]string) []string {
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := set[k]; !over {
			out = append(out, kv)
		}
	}
	for _, k := range sortedKeys(set) {
		out = append(out, k+"="+set[k])
	}
	return out
}
