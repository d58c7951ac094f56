package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// interruptContext is cancelled by SIGINT and SIGTERM alike (what a
// terminal, CI runners and timeout(1) send): runs in flight stop and every
// world started is closed (processes, ports, temp dirs) before exit 3.
func interruptContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}

// progress reports a run on stderr: on a terminal, one line rewritten in
// place once the run is older than 2 s (done/total, and the oldest run in
// flight with its elapsed time against its bound); otherwise a heartbeat
// line every 30 s.
type progress struct {
	w       io.Writer
	mode    string // line, heartbeat, none
	total   int
	every   time.Duration
	after   time.Duration
	mu      sync.Mutex
	begin   time.Time
	done    int
	running map[int]inflight
	drawn   bool
	stopc   chan struct{}
	wg      sync.WaitGroup
}

type inflight struct {
	name  string
	since time.Time
	bound time.Duration
}

// progressModes are the values of run's --progress.
var progressModes = []string{"auto", "line", "heartbeat", "none"}

func newProgress(w io.Writer, mode string, total int) *progress {
	if mode == "auto" {
		mode = "heartbeat"
		if isTerminal(w) {
			mode = "line"
		}
	}
	p := &progress{w: w, mode: mode, total: total, running: map[int]inflight{}, stopc: make(chan struct{}), after: 2 * time.Second}
	switch mode {
	case "line":
		p.every = 250 * time.Millisecond
	case "heartbeat":
		p.every = 30 * time.Second
		p.after = 30 * time.Second
	}
	return p
}

// isTerminal: a character device (not a pipe or file).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) start(ctx context.Context) {
	p.begin = time.Now()
	if p.every == 0 {
		return
	}
	p.wg.Go(func() {
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-p.stopc:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				p.tick()
			}
		}
	})
}

func (p *progress) stop() {
	close(p.stopc)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *progress) started(j scenarios.Job) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[j.Index] = inflight{name: j.Name(), since: time.Now(), bound: j.Bound}
}

func (p *progress) finished(j scenarios.Job, _ scenarios.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, j.Index)
	p.done++
}

func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.begin) < p.after {
		return
	}
	line := p.lineLocked(time.Now())
	if p.mode == "line" {
		fmt.Fprint(p.w, "\r\033[K"+line)
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// lineLocked is "[12/40 1m05s] setup/x @0.3.13.post1 on real 45s/1m37s (+2 running)".
func (p *progress) lineLocked(now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d/%d %s]", p.done, p.total, now.Sub(p.begin).Round(time.Second))
	idx := make([]int, 0, len(p.running))
	for i := range p.running {
		idx = append(idx, i)
	}
	// The oldest run in flight is the one worth watching.
	slices.SortFunc(idx, func(a, b int) int { return p.running[a].since.Compare(p.running[b].since) })
	if len(idx) > 0 {
		r := p.running[idx[0]]
		fmt.Fprintf(&b, " %s %s/%s", r.name, now.Sub(r.since).Round(time.Second), r.bound)
		if len(idx) > 1 {
			fmt.Fprintf(&b, " (+%d running)", len(idx)-1)
		}
	}
	return b.String()
}
