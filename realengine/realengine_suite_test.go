package realengine_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/trace"
)

func TestRealEngine(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "realengine")
}

// The versions the specs pin facts for (see docs/REAL-FINDINGS.md).
const (
	vNew = "0.3.13.post1"
	vOld = "0.3.9"
)

var eng = realengine.New(realengine.Options{})

// requireVersion skips the spec with a one-line reason when the wheel is
// not installed.
func requireVersion(v string) {
	if err := eng.Available(context.Background(), v); err != nil {
		Skip(err.Error())
	}
}

type world struct {
	*realengine.World
	tr *trace.Trace
}

// launch starts a world and closes it when the spec ends (also on failure).
func launch(v string, mod func(*engine.WorldSpec)) world {
	requireVersion(v)
	tr := trace.New(nil)
	spec := engine.WorldSpec{Scenario: CurrentSpecReport().LeafNodeText, Version: v, Trace: tr,
		Master: &engine.MasterSpec{}, Metadata: "P2PHANDSHAKE", Nodes: []engine.NodeSpec{{Name: "tp0"}}}
	if mod != nil {
		mod(&spec)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w, err := eng.Launch(ctx, spec)
	Expect(err).NotTo(HaveOccurred())
	rw := w.(*realengine.World)
	DeferCleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		Expect(rw.Close(ctx)).To(Succeed())
	})
	return world{World: rw, tr: tr}
}

func (w world) store(env map[string]string) (*realengine.Process, engine.Store) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := w.StartProcess(ctx, "tp0", env)
	Expect(err).NotTo(HaveOccurred())
	s, err := p.NewStore(ctx)
	Expect(err).NotTo(HaveOccurred())
	return p.(*realengine.Process), s
}

// logs returns the texts a source logged.
func (w world) logs(source string) []string {
	var out []string
	for _, e := range w.tr.Events() {
		if e.Kind == "log" && e.Source == source {
			out = append(out, e.Text)
		}
	}
	return out
}

func freeHostPort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().String()
}

func setupArgs(lh, meta, master string) engine.SetupArgs {
	return engine.SetupArgs{LocalHostname: lh, MetadataServer: meta, GlobalSegmentSize: 64 << 20, LocalBufferSize: 16 << 20,
		Protocol: "tcp", MasterServerAddr: master}
}

func timeout(d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	DeferCleanup(cancel)
	return ctx
}

// alive reports whether pid is a live (non-zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// processesMentioning lists live pids whose command line contains needle.
func processesMentioning(needle string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), needle) || !alive(pid) {
			continue
		}
		out = append(out, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(b), "\x00", " ")))
	}
	return out
}

// liveChildren lists our live (non-zombie) child processes.
func liveChildren() []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	me := strconv.Itoa(os.Getpid())
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) {
			continue
		}
		f := strings.Fields(s[i+2:]) // state ppid ...
		if len(f) > 1 && f[1] == me && f[0] != "Z" && alive(pid) {
			out = append(out, fmt.Sprintf("%d %s", pid, s[:i+1]))
		}
	}
	return out
}
