package realengine

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// driverPy is the Python side; a world writes it into its temp dir.
//
//go:embed driver/driver.py
var driverPy []byte

// Aborted: the Mooncake process (a driver, i.e. an SGLang process) died
// while a call was running — a segfault in store.so, a glog CHECK abort.
// Python never returns from such a call, so this is neither a return code
// nor a *engine.PyError.
type Aborted struct {
	Node string
	Call string
	// Exit is how it ended: "signal: segmentation fault", "signal:
	// aborted", "exit status 1" (the driver disables core dumps).
	Exit string
	// Signal is the signal's name ("SIGSEGV", "SIGABRT") or "" for an exit.
	Signal string
	// Status is the exit status when Signal is ""; MooncakeExit says the
	// last line was a Mooncake (glog) ERROR or FATAL line, i.e. Mooncake
	// called exit() (config.cpp on an invalid MC_MTU), not Python.
	Status       int
	MooncakeExit bool
	// Last are the last log lines it printed, LastLevels their levels.
	Last       []string
	LastLevels []string
	// died is Unwrap's *engine.ProcessDied, made once, so what a caller
	// adds to it (the call it died in) stays.
	died *engine.ProcessDied
}

// Unwrap makes a death by signal an *engine.ProcessDied too, so callers
// that know only the engine seam (the scenario runner) see it with
// engine.AsProcessDied; so is an exit right after a Mooncake ERROR/FATAL
// line (Mooncake's exit()). Any other exit (a Python traceback in the
// driver) stays a harness error.
func (a *Aborted) Unwrap() error {
	if a.died == nil {
		switch {
		case a.Signal != "":
			a.died = &engine.ProcessDied{Signal: a.Signal, Reason: a.reason()}
		case a.MooncakeExit && a.Status > 0:
			a.died = &engine.ProcessDied{Exit: a.Status, Reason: a.reason()}
		default:
			return nil
		}
	}
	return a.died
}

// reason is the last line that says something: the last non-INFO line
// (a FATAL/CHECK text), else the last line, else the exit.
func (a *Aborted) reason() string {
	for i := len(a.Last) - 1; i >= 0; i-- {
		if a.LastLevels[i] != "INFO" {
			return a.Last[i]
		}
	}
	if len(a.Last) > 0 {
		return a.Last[len(a.Last)-1]
	}
	return a.Exit
}

func (a *Aborted) Error() string {
	return fmt.Sprintf("process aborted: Mooncake process of node %s died during %s (%s); last lines: %s",
		a.Node, a.Call, a.Exit, strings.Join(a.Last, " | "))
}

// AsAborted returns the *Aborted in err's chain.
func AsAborted(err error) (*Aborted, bool) {
	var a *Aborted
	ok := errors.As(err, &a)
	return a, ok
}

type response struct {
	ID      int             `json:"id"`
	OK      bool            `json:"ok"`
	Result  json.RawMessage `json:"result"`
	Error   *engine.PyError `json:"error"`
	Harness string          `json:"harness"`
}

// driver talks to one driver.py process.
type driver struct {
	node string
	p    *proc

	mu     sync.Mutex // one call at a time: the driver is single-threaded
	nextID int
	resp   chan response
	eof    chan struct{}
	hello  helloResult
}

type helloResult struct {
	Ready           bool   `json:"ready"`
	PID             int    `json:"pid"`
	Python          string `json:"python"`
	MooncakeVersion string `json:"mooncake_version"`
	// sglang_driver.py only.
	SGLangVersion string  `json:"sglang_version"`
	ImportSecs    float64 `json:"import_secs"`
}

// startDriver launches driver.py and waits for its ready line.
func startDriver(ctx context.Context, node string, spec procSpec, start func(context.Context, procSpec) (*proc, error)) (*driver, error) {
	p, err := start(ctx, spec)
	if err != nil {
		return nil, err
	}
	d := &driver{node: node, p: p, resp: make(chan response, 16), eof: make(chan struct{})}
	go d.read()
	var h helloResult
	if err := d.wait(ctx, 0, "start", &h); err != nil {
		_ = p.stop(context.WithoutCancel(ctx), 0)
		return nil, fmt.Errorf("real engine: driver of node %s: %w", node, err)
	}
	d.hello = h
	return d, nil
}

func (d *driver) read() {
	defer close(d.eof)
	br := bufio.NewReaderSize(d.p.stdout, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var r response
			if jerr := json.Unmarshal(line, &r); jerr != nil {
				d.p.record("driver protocol: unparsable line: " + string(line))
			} else {
				select {
				case d.resp <- r:
				default: // nobody will read it (its caller gave up and killed us); never block the reader
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// call sends one request and decodes the result into out (may be nil).
func (d *driver) call(ctx context.Context, op string, fields map[string]any, out any) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	d.nextID++
	id := d.nextID
	req := map[string]any{"id": id, "op": op}
	for k, v := range fields {
		req[k] = v
	}
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("real engine: %s: encode request: %w", op, err)
	}
	if _, err := d.p.stdin.Write(append(b, '\n')); err != nil {
		if d.p.Exited() || errors.Is(err, io.ErrClosedPipe) {
			return d.aborted(ctx, op)
		}
		return fmt.Errorf("real engine: %s: write to driver of %s: %w", op, d.node, err)
	}
	return d.wait(ctx, id, op, out)
}

func (d *driver) wait(ctx context.Context, id int, op string, out any) error {
	for {
		select {
		case r := <-d.resp:
			if r.ID != id {
				continue // a late answer to a call abandoned on ctx expiry cannot happen (we kill), but be safe
			}
			if id > 0 {
				d.p.waitSync(id, 2*time.Second)
			}
			switch {
			case r.OK:
				if out == nil || len(r.Result) == 0 {
					return nil
				}
				if err := json.Unmarshal(r.Result, out); err != nil {
					return fmt.Errorf("real engine: %s: decode result %s: %w", op, r.Result, err)
				}
				return nil
			case r.Error != nil:
				return r.Error
			default:
				return fmt.Errorf("real engine: driver of %s refused %s: %s", d.node, op, r.Harness)
			}
		case <-d.eof:
			// Drain a response that raced with EOF (e.g. exit).
			select {
			case r := <-d.resp:
				if r.ID == id && r.OK {
					if out != nil && len(r.Result) > 0 {
						_ = json.Unmarshal(r.Result, out)
					}
					return nil
				}
			default:
			}
			return d.aborted(ctx, op)
		case <-ctx.Done():
			// The Python process is inside C++ and cannot be interrupted;
			// a later call would queue behind this one. Kill it.
			_ = d.p.stop(context.WithoutCancel(ctx), 0)
			return fmt.Errorf("real engine: %s on node %s did not return (driver killed): %w", op, d.node, ctx.Err())
		}
	}
}

// aborted waits briefly for the exit status and describes the death.
func (d *driver) aborted(ctx context.Context, op string) error {
	select {
	case <-d.p.exited:
	case <-time.After(5 * time.Second):
	case <-ctx.Done():
	}
	d.p.drain(2 * time.Second) // the crash report's last lines
	exit := d.p.ExitDescription()
	if exit == "" {
		exit = "closed its protocol stream"
	}
	lines, levels := d.p.RecentLevels()
	d.p.mu.Lock()
	glog := d.p.lastGlog
	d.p.mu.Unlock()
	mooncakeExit := glog && len(levels) > 0 && (levels[len(levels)-1] == "ERROR" || levels[len(levels)-1] == "FATAL")
	return &Aborted{Node: d.node, Call: op, Exit: exit, Signal: d.p.Signal(), Status: d.p.ExitStatus(),
		MooncakeExit: mooncakeExit, Last: lines, LastLevels: levels}
}

// close asks the driver to exit, then makes sure the group is gone. A
// driver busy in a call (another goroutine holds it) is killed instead of
// waited for.
func (d *driver) close(ctx context.Context) error {
	if !d.p.Exited() && d.mu.TryLock() {
		d.mu.Unlock()
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = d.call(cctx, "exit", nil, nil)
		cancel()
	}
	return d.p.stop(ctx, 2*time.Second)
}

// b64 is bytes as the driver reads them: {"fill": byte, "size": n} when
// they are all one byte (a scenario's values are zeros; base64 and JSON of
// megabytes would be the harness's own time inside a timed call), else
// base64.
func b64(b []byte) map[string]any {
	if len(b) > 1 && bytes.Count(b, b[:1]) == len(b) {
		return map[string]any{"fill": b[0], "size": len(b)}
	}
	return map[string]any{"b64": base64.StdEncoding.EncodeToString(b)}
}

// b64Value is bytes as the driver sends them (see b64).
type b64Value struct {
	B64  string `json:"b64"`
	Fill *byte  `json:"fill"`
	Size int    `json:"size"`
}

func (v b64Value) bytes() ([]byte, error) {
	if v.Fill != nil {
		if v.Size < 0 {
			return nil, fmt.Errorf("driver sent %d bytes of fill", v.Size)
		}
		return bytes.Repeat([]byte{*v.Fill}, v.Size), nil
	}
	return base64.StdEncoding.DecodeString(v.B64)
}
