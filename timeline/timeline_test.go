package timeline_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
	"github.com/mooncake-faultlab/faultlab/timeline"
)

// runs returns a passing multi-party run and a failing one (a wrong expect).
func runs(t *testing.T) []scenarios.Result {
	t.Helper()
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	scs, err := scenarios.Resolve(cat, []string{"io/master-down-after-init", "setup/http-metadata-unreachable"})
	if err != nil {
		t.Fatal(err)
	}
	// One run each, at the scenario's newest version: [0], [1], then the wrong one [2].
	var out []scenarios.Result
	for _, sc := range scs {
		vs, _ := sc.Versions("")
		out = append(out, scenarios.RunVersion(context.Background(), sc, sim.New(), vs[len(vs)-1], scenarios.Options{Seed: 1}))
	}
	bad, err := scenarios.Parse("bad.yaml", []byte("name: t/wrong\nsteps: [{init: tp0}]\nconfig: {env: {MOONCAKE_MASTER: \"{{master}}\", MOONCAKE_PROTOCOL: tcp}}\nfaults: [{at: 0s, kind: master-down, mode: refuse}]\nexpect: {ok: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := bad.Versions("")
	return append(out, scenarios.RunVersion(context.Background(), bad, sim.New(), vs[len(vs)-1], scenarios.Options{Seed: 1}))
}

func TestLanes(t *testing.T) {
	rs := runs(t)
	var ids []string
	for _, l := range timeline.Build(rs[1]).Lanes {
		ids = append(ids, l.ID)
	}
	// http-metadata-unreachable: SGLang, master, metadata service, the fault, the harness.
	if got := strings.Join(ids, " "); got != "sglang-tp0 master metadata fault harness" {
		t.Fatalf("lanes %q", got)
	}
	if rs[2].Verdict != scenarios.Fail {
		t.Fatalf("the wrong scenario should fail: %s %s", rs[2].Verdict, rs[2].Reason)
	}
}

// TestChromium renders the page in real headless Chromium: the screenshot
// is a real image with more than one colour, and the DOM Chromium built
// has every lane and the failed run highlighted.
func TestChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install chromium); the timeline is not checked in a browser")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "t.html")
	var buf bytes.Buffer
	if err := timeline.Write(&buf, "test timeline", runs(t)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	chrome := func(extra ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir(), "--window-size=1400,1000"}, extra...)
		cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
		cmd.Dir = dir
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromium %v: %v", extra, err)
		}
		return out
	}
	shot := filepath.Join(dir, "t.png")
	chrome("--screenshot=" + shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 1400 || b.Dy() != 1000 {
		t.Fatalf("screenshot is %dx%d", b.Dx(), b.Dy())
	}
	colours := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	if len(colours) < 8 {
		t.Fatalf("screenshot has %d colours: blank page?", len(colours))
	}
	dom := string(chrome("--dump-dom"))
	for _, want := range []string{`data-lane="sglang-tp0"`, `data-lane="master"`, `data-lane="metadata"`, `data-lane="fault"`,
		`class="run fail"`, `class="mark ERROR bad"`, "SGLang tp0 (MooncakeStore)", "mooncake_master", "metadata service"} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %s", want)
		}
	}
}

// The page shows the run's own addresses, never {{placeholders}}.
func TestAddressesNotPlaceholders(t *testing.T) {
	r := runs(t)[0] // io/master-down-after-init: the master's address in its log lines
	master := r.Addrs["master"]
	if master == "" {
		t.Fatalf("no master address in %v", r.Addrs)
	}
	run := timeline.Build(r)
	seen := false
	for _, e := range run.Events {
		if strings.Contains(e.Text, "{{") {
			t.Errorf("placeholder in %q", e.Text)
		}
		seen = seen || strings.Contains(e.Text, master)
	}
	if !seen {
		t.Fatalf("no event names the master's address %s", master)
	}
	var b bytes.Buffer
	if err := timeline.Write(&b, "t", []scenarios.Result{r}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "{{") {
		t.Fatal("placeholder in the page")
	}
}
