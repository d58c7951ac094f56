package explain_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/fieldlogs"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

var (
	fpOnce sync.Once
	fpAll  explain.Fingerprints
	fpCat  []*scenarios.Scenario
	fpErr  error
)

// allFingerprints runs the catalog once at every version on sim.
func allFingerprints(t testing.TB) ([]*scenarios.Scenario, explain.Fingerprints) {
	fpOnce.Do(func() {
		fpCat, fpErr = scenarios.Catalog()
		if fpErr == nil {
			fpAll = explain.Fingerprint(context.Background(), fpCat, sim.New(), "")
		}
	})
	if fpErr != nil {
		t.Fatal(fpErr)
	}
	return fpCat, fpAll
}

// allClasses is explain's class tables, or the test stops.
func allClasses(t testing.TB) []explain.Class {
	cls, err := explain.Classes()
	if err != nil {
		t.Fatal(err)
	}
	return cls
}

// tally is one split's numbers.
type tally struct {
	n, top1, top3, none, wrong, reproduced, reproRight, falseGreen int
	// unknown: cases whose thread established no cause (a *-unexplained
	// class), where "no cause fits" is the right answer; unknownNone: of
	// them, those explain answered so.
	unknown, unknownNone int
}

func (t *tally) add(o tally) {
	t.n, t.top1, t.top3, t.none, t.wrong = t.n+o.n, t.top1+o.top1, t.top3+o.top3, t.none+o.none, t.wrong+o.wrong
	t.reproduced, t.reproRight, t.falseGreen = t.reproduced+o.reproduced, t.reproRight+o.reproRight, t.falseGreen+o.falseGreen
	t.unknown, t.unknownNone = t.unknown+o.unknown, t.unknownNone+o.unknownNone
}

func (t tally) row(name string) string {
	pct := func(k int) string { return fmt.Sprintf("%2d (%3.0f%%)", k, 100*float64(k)/float64(max(1, t.n))) }
	// The top 3 over the cases whose thread established a cause: the
	// issue's measure, which a case without a cause cannot meet.
	known := t.n - t.unknown
	top3Known := fmt.Sprintf("%2d/%-2d (%3.0f%%)", t.top3, known, 100*float64(t.top3)/float64(max(1, known)))
	return fmt.Sprintf("| %-8s | %5d | %s | %s | %s | %s | %2d of %-2d | %s | %s | %s | %d |", name, t.n, pct(t.top1), pct(t.top3), top3Known, pct(t.none), t.unknownNone, t.unknown, pct(t.wrong), pct(t.reproduced), pct(t.reproRight), t.falseGreen)
}

// TestFieldCorpus runs explain (and new --from-log's drafting) over every
// case of the field corpus and reports the tuning and held-out splits
// apart, and the second to fourth, blind held-out batches in rows of their
// own (their cases leave the earlier batches' rows as they were; batches 3
// and 4 have no "before" row). The tuning row is every tuning case: the
// first batch's and the fifth's and sixth's (tuning batches; they add nothing to the
// "before" row, which stays the first batch's). Floors keep today's
// numbers; a false green fails.
func TestFieldCorpus(t *testing.T) {
	cat, fp := allFingerprints(t)
	cs, err := fieldlogs.Load()
	if err != nil {
		t.Fatal(err)
	}
	cls := allClasses(t)
	known := func(c string) bool {
		return slices.ContainsFunc(cls, func(x explain.Class) bool { return x.Name == c }) ||
			slices.ContainsFunc(cat, func(s *scenarios.Scenario) bool { return s.Name == c })
	}
	if err := fieldlogs.Validate(cs, known); err != nil {
		t.Fatal(err)
	}
	var tun, held, before tally
	// Blind batches (2 and later) by batch: a row each, and a "before" row
	// for batch 2 only (it was measured before this code read field logs).
	blind := map[int]*tally{}
	before2 := &tally{}
	var detail []string
	// Why the right cause was missed or not reproduced, counted over the
	// cases whose thread established one: aggregates only, for held-out
	// cases too (what kind of work would reach them, not which log).
	why := map[string]map[string]int{"tuning": {}, "held out": {}}
	tuned := map[string]bool{}
	for _, c := range cs {
		if fieldlogs.Tuning(c.Batch) || c.Batch < 2 && !c.Heldout {
			tuned[c.Class] = true
		}
	}
	// Held-out cases' per-case lines would let whoever reads them tune on
	// them: they are printed only when asked for (after a batch is measured).
	showHeld := os.Getenv("FAULTLAB_FIELD_SHOW_HELDOUT") != ""
	for _, c := range cs {
		d, err := explain.Diagnose(cat, fp, c.Log, "")
		if err != nil {
			t.Fatalf("%s: %v", c.File, err)
		}
		// The right cause: the case's class, or a catalog scenario the
		// class links (explain ranks the scenario that reproduces it).
		right := func(name string) bool {
			if name == c.Class {
				return true
			}
			i := slices.IndexFunc(cls, func(x explain.Class) bool { return x.Name == c.Class })
			return i >= 0 && cls[i].Explains(name)
		}
		tl, bl := &tun, &before
		switch {
		case fieldlogs.Tuning(c.Batch):
			bl = &tally{}
		case c.Batch >= 2:
			if blind[c.Batch] == nil {
				blind[c.Batch] = &tally{}
			}
			tl, bl = blind[c.Batch], &tally{}
			if c.Batch == 2 {
				bl = before2
			}
		case c.Heldout:
			tl = &held
		}
		tl.n++
		if unknownCause(c.Class) {
			tl.unknown++
		}
		// What explain did before it read field logs: the catalog's exact
		// outcomes only (issue 15: 1 of 16 right, 14 without a candidate).
		if old, err := explain.Explain(cat, fp, c.Log, ""); err == nil {
			bl.n++
			switch {
			case len(old.Candidates) == 0:
				bl.none++
			case right(old.Candidates[0].Scenario):
				bl.top1++
			default:
				bl.wrong++
			}
			if slices.ContainsFunc(old.Candidates[:min(3, len(old.Candidates))], func(x explain.Candidate) bool { return right(x.Scenario) }) {
				bl.top3++
			}
		}
		ranked := append(append([]explain.Cause{}, d.Causes...), d.Nearest...)
		rank := slices.IndexFunc(ranked, func(x explain.Cause) bool { return right(x.Name) })
		mark := "miss"
		switch {
		case d.Verdict == "no-fit":
			tl.none++
			if unknownCause(c.Class) {
				tl.unknownNone++
			}
			mark = "none"
		case rank == 0:
			tl.top1++
			mark = "top1"
		default:
			tl.wrong++
			mark = "WRONG"
		}
		if rank >= 0 && rank < 3 {
			tl.top3++
		}
		repro := ""
		dr := explain.DraftFromLog(context.Background(), cat, fp, sim.New(), c.Log, explain.DraftOptions{Name: "field/" + c.ID})
		if dr.Written() {
			tl.reproduced++
			repro = " (reproduced from " + dr.Based + " @" + dr.Version + ")"
			sc, err := scenarios.Parse(c.ID+".yaml", dr.YAML)
			if err != nil {
				t.Fatalf("%s: the draft does not load: %v", c.File, err)
			}
			// A draft must expect the log's failure: an exception, a death,
			// the lines it quotes or, for a caller's list, a failing code.
			if !explain.ExpectsFailure(sc.Expect) {
				tl.falseGreen++
				t.Errorf("%s: false green: a draft expecting ok for a log that shows an error", c.File)
			}
			// What new writes, run passes: at every SGLang release it names.
			for _, r := range scenarios.Run(context.Background(), sc, sim.New(), scenarios.Options{Seed: 1}) {
				if r.Verdict != scenarios.Pass {
					t.Errorf("%s: the written draft's run at SGLang %q: %s %s", c.File, r.SGLangVersion, r.Verdict, r.Reason)
				}
			}
			if right(dr.Based) {
				tl.reproRight++
				repro += " right"
			}
		}
		var reasons []string
		if !unknownCause(c.Class) {
			part := why["held out"]
			if fieldlogs.Tuning(c.Batch) || c.Batch < 2 && !c.Heldout {
				part = why["tuning"]
			}
			reasons = missReasons(cls, c, d, rank, dr, right)
			for _, k := range reasons {
				part[k]++
				if k == "scored nothing" && !tuned[c.Class] {
					part["scored nothing: no tuning case has its cause"]++
				}
			}
		}
		top := "-"
		if len(ranked) > 0 {
			top = ranked[0].String()
		}
		split := "tune"
		switch {
		case fieldlogs.Tuning(c.Batch):
			// tuning data: printed like the first batch's tuning cases
		case c.Batch >= 2:
			split = fmt.Sprintf("hld%d", c.Batch)
		case c.Heldout:
			split = "held"
		}
		if split != "tune" && !showHeld {
			continue
		}
		if len(reasons) > 0 {
			repro += " [" + strings.Join(reasons, "; ") + "]"
		}
		detail = append(detail, fmt.Sprintf("%s %-5s %-40s want %-36s got %s%s", split, mark, c.ID, c.Class, top, repro))
	}
	t.Log("per case (held-out cases with FAULTLAB_FIELD_SHOW_HELDOUT=1):\n" + strings.Join(detail, "\n"))
	rows := []string{tun.row("tuning"), held.row("held-out"), before.row("before")}
	all := held
	for b := 2; b <= fieldlogs.MaxBatch; b++ {
		if tl := blind[b]; tl != nil {
			rows = append(rows, tl.row(fmt.Sprintf("held-out %d", b)))
			all.add(*tl)
		}
		if b == 2 {
			rows = append(rows, before2.row("before 2"))
		}
	}
	rows = append(rows, all.row("all held out"))
	t.Log(whyTable(why))
	t.Logf("\n| split    | cases | top-1      | top-3      | top-3, cause established | no cause   | of them, no cause in the thread | wrong top  | reproduced | of the right cause | false greens |\n|---|---|---|---|---|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
	// Floors: today's numbers (docs/FIELD.md); raise them when explain
	// improves, never lower them to let a change through.
	floors := []struct {
		name      string
		got, want int
	}{
		// 51 and 53 since the fifth batch's patterns and worlds
		// (io/duplicate-key-put, io/eviction-starved-leases,
		// io/rdma-qp-exhausted, the NVLink and SSD offload worlds); 54 and
		// 58 since the pattern-free classes' patterns from the format
		// strings (store_py.cpp's Query, rdma_transport.cpp's unregistered
		// region, LMCache's specs; the Ascend link and HA reattach cases in
		// the top 3); 58 and 64 with the sixth batch and ld.so's "error
		// while loading shared libraries" for Mooncake's binaries; 63 and
		// 69 since the sixth batch's new classes' patterns from the source
		// (the lease-expired get, the Ascend transfer failure, the
		// handshake listen() race) and the wheel's excluded libcudart; 71
		// and 77 with the thirteenth batch (nine cases, eight named first
		// by their new classes' patterns; mooncake-691's two failures fell
		// to a tie, 8.52 against 7.54, when three more worlds moved the
		// lines' rarity); 77 and 83 with the fourteenth batch (six cases,
		// all named first by four new classes and two patterns); top-3 84
		// since a no-fit's nearest are filled by the log's words
		// (resemble.go); top-1 78 since the thinly patterned classes' source
		// lines (mooncake-691: the QP pool's ENOMEM); 82 and 90 with the
		// fifteenth batch (its CMake, EFA and bare-IPv6 patterns); 86 and
		// 94 with the sixteenth (nine cases, four named first: a build's
		// link error by its class, Mooncake#2300 by a telltale of CANN's,
		// sglang#27730 by the handshake's NIC pair, Mooncake PR 2077's master
		// restart by its world, even with the expired client's); 88 and 96
		// with its classes' patterns (a master's Ascend link, CANN's log
		// library's teardown); 90 and 97 with the RDMA transport's world
		// on an EFA device (Mooncake#2070, sglang#24838); 97 and 105 with
		// the seventeenth batch (eight fixed-bug cases, seven named first);
		// 103 and 112 with the eighteenth (nine cases, six named first);
		// 107 and 119 with the nineteenth (eight cases, four named first);
		// 109 and 122 with the twentieth (four cases, none named first
		// before its classes' patterns, two after).
		{"tuning top-1", tun.top1, 109},
		{"tuning top-3", tun.top3, 122},
		// yalantinglibs-1111's log shows no error at all (its setup
		// parameters only): its draft is refused (nothing in the log
		// would check it). 6 since the drafts expect only Mooncake's lines
		// (caller lines, traceback source and exception bodies dropped,
		// deaths as dies) and auto-discovery drops the named device; 8
		// since the GPU worlds (register/gpu-*); 10 since the models print
		// the field's lines on their paths (REAL-FINDINGS §34); 11 since
		// the erdma world fails at setup's mount (Mooncake#304); 13 since
		// version/client-api-missing (an integration's AttributeError); 14
		// since a caller's store.put with no segment space
		// (io/no-segment-space-put, sglang#6836's 0.3.3 lines); 16 since the
		// RDMA datapath worlds (io/rdma-*); 17 since PD disaggregation's
		// TransferEngine (io/te-sync-transfer-timeout, vllm-ascend#7846); 20
		// since its worlds of GPU memory and a peer's unpublished segment
		// (register/te-gpu-peermem-missing, io/te-tcp-gpu-memory,
		// io/te-peer-segment-not-published: sglang#6193, Mooncake#602,
		// sglang#4880); 21 since the bench step
		// (setup/bench-http-metadata-wrong-path, Mooncake#391); then a third
		// process's read of a shared etcd name
		// (etcd/duplicate-local-hostname-read, Mooncake#736 at 0.3.4.post2)
		// and a 0.3.5 client against a 0.3.6.post1 master
		// (version/master-skew-put-end, LMCache#1518); then two writers of
		// one key at 0.3.6.post1 (io/duplicate-key-put, sglang#8651), the
		// RNIC's QP pool used up (io/rdma-qp-exhausted, Mooncake#1845), the
		// NVLink transport's fabric memory
		// (register/te-nvlink-fabric-mem-unsupported, Mooncake#965) and SSD
		// offload's lookup of a removed key
		// (io/ssd-offload-key-removed-before-offload: Mooncake#1729, #2827);
		// 30 since a quoted line of Mooncake's error messages is one to check
		// (Mooncake#1297, #1612: the NVLink worlds); 31 since a zero-copy
		// read into an unregistered buffer over RDMA
		// (io/zero-copy-buffer-not-registered, LMCache#1993); 36 and 34
		// since a host without the CUDA runtime (setup/cuda-runtime-missing,
		// -import: Mooncake#3314's master line, #1298's ImportError); 37
		// and 35 since glibc's assert line is read and the slab-size
		// read-back world (io/ssd-offload-readback-slice-too-large,
		// Mooncake#2156); 40 and 38 since the one-shot TCP transfers' ports
		// (io/tcp-ephemeral-ports-exhausted, sglang#31208), the re-put key
		// in two buckets (io/ssd-offload-readback-invalid-key, #2799) and
		// the session get of a disk-only key (#3658); 41 and 39 since the
		// codes a caller lists are drafted (Mooncake#3076's error_codes=
		// [-707], io/lease-expired-before-transfer-completed); 43 and 41
		// since Mooncake's failures at INFO are lines to reproduce (a
		// client expired, Mooncake#1711; eviction freeing nothing while
		// allocations fail, #2187); 44 and 42 since dummy_client.cpp's
		// "Batch RPC call failed: Expected DiskDescriptor" is a line to
		// reproduce (standalone/ssd-offload-disk-descriptor, #2011); 45 and
		// 43 since a master serving RPC over RDMA to a TCP client
		// (setup/rpc-protocol-mismatch, Mooncake#1048); 46 and 44 since a
		// library the loader names is withheld (Mooncake#1619's libcurl,
		// standalone/native-lib-missing-client); 52 and 50 since the
		// classes without a world got one (SSD offload's orphaned task and
		// duplicate bucket, the handshake port race, a transient peer, the
		// three RDMA races and failures); 53 and 51 since a backtrace's
		// innermost Mooncake frame is where the run must die (Mooncake#1986);
		// 55 and 52 with the fifteenth batch's bare IPv6 hostname world;
		// 56 and 53 with the store over the Ascend transport (vLLM-Ascend#7792);
		// 57 and 54 since the log's errno of a failed ibv_reg_mr is the
		// draft's (rdma-context reg_mr, sglang#6894); 59 and 55 with the
		// sixteenth batch (Mooncake PR 2077's master restart from its own
		// world; Mooncake#2300 from the Ascend peer link's); 60 and 56
		// since a log of warnings that stops before its failure is drafted
		// from a world that fails (Mooncake#1627); 62 and 58 with the RDMA
		// transport's world on an EFA device (Mooncake#2070, sglang#24838);
		// 65 and 62 with the eighteenth batch's two PD logs of failed RDMA
		// work completions (sglang#10560, #13380) and a departed offload
		// owner's world (Mooncake PR 1787); 66 and 63 with PD's KV
		// transfers over RDMA (sglang#27730's NIC pair,
		// io/rdma-multi-nic-unroutable-pair-pd); 67 and 64 with a host
		// libstdc++ older than the wheel's (Mooncake#2586,
		// setup/wheel-libstdcxx-too-old).
		{"tuning reproduced", tun.reproduced, 67},
		{"tuning reproduced from the right cause", tun.reproRight, 64},
		{"held-out top-1", held.top1, 5},
		{"held-out top-3", held.top3, 11},
	}
	for _, f := range floors {
		if f.got < f.want {
			t.Errorf("%s: %d, floor %d", f.name, f.got, f.want)
		}
	}
	// Ceilings on confident wrong answers: an honest "no cause fits" beats
	// them.
	// Tuning: 0 again since an outcome of no exception earns no outcome
	// points (any excerpt shows it) and a cause resting only on lines
	// another class claims too is not named (the fifth batch's
	// mooncake-691, sglang-pr29127). The sixth batch's sglang-24838
	// (EOPNOTSUPP at ibv_create_qp on AWS EFA) was read as the QP pool
	// used up until a QP failure other than ENOMEM counted against it.
	if tun.wrong > 0 || held.wrong > 1 {
		t.Errorf("confident wrong answers: tuning %d, held-out %d", tun.wrong, held.wrong)
	}
}

// unknownCause: the class a case gets when its thread established no
// cause (explain/classes/field.yaml's *-unexplained classes).
func unknownCause(class string) bool { return strings.HasSuffix(class, "-unexplained") }

// missReasons sorts a case whose thread established a cause by what kept
// explain or new from it: the keys of whyTable.
func missReasons(cls []explain.Class, c fieldlogs.Case, d explain.Diagnosis, rank int, dr explain.Draft, right func(string) bool) []string {
	var out []string
	scored := slices.IndexFunc(explain.Ranked(d), func(x explain.Cause) bool { return right(x.Name) })
	switch {
	case rank == 0 && d.Verdict == "cause":
	case rank == 0 && d.Ambiguous != "":
		out = append(out, "first, but another cause fits as well")
	case rank == 0:
		out = append(out, "first, under the threshold")
	case rank > 0 && rank < 3:
		out = append(out, "second or third")
	case scored >= 0:
		out = append(out, "scored, ranked below the third")
	default:
		out = append(out, "scored nothing")
		glog, exc := false, false
		for _, l := range d.Evidence.Lines {
			glog = glog || l.Source != ""
			exc = exc || strings.Contains(l.Text, "Error: ") || strings.Contains(l.Text, "Exception: ")
		}
		switch {
		case glog:
			out = append(out, "scored nothing: the log has Mooncake lines with file:line")
			if d.Evidence.MooncakeVersion != "" {
				out = append(out, "scored nothing: Mooncake lines, a version stated")
			}
		case exc:
			out = append(out, "scored nothing: an exception, no Mooncake file:line")
		default:
			out = append(out, "scored nothing: neither")
		}
	}
	if rank == 0 && !(dr.Written() && right(dr.Based)) {
		i := slices.IndexFunc(cls, func(x explain.Class) bool { return x.Name == c.Class })
		switch {
		case i >= 0 && len(cls[i].Scenarios) == 0 && !strings.Contains(c.Class, "/"):
			// (A class named like a scenario is the world's own signature.)
			out = append(out, "first, not reproduced: its class has no world")
		case dr.Written():
			out = append(out, "first, not reproduced: drafted from another cause")
		default:
			out = append(out, "first, not reproduced: no draft ended in the log's error")
			out = append(out, "  no draft: "+draftMiss(dr.Missing))
		}
	}
	return out
}

// whyTable prints missReasons' counts, tuning beside held out.
func whyTable(why map[string]map[string]int) string {
	var keys []string
	for _, part := range why {
		for k := range part {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("\nwhy the right cause was missed or not reproduced (cases with a cause established)\n| reason | tuning | held out |\n|---|---|---|\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", k, why["tuning"][k], why["held out"][k])
	}
	return b.String()
}

// subsystemOf names the Mooncake part whose line the model lacks (never
// the line).
func subsystemOf(missing string) string {
	m := reUnprinted.FindStringSubmatch(missing)
	if m == nil {
		return ""
	}
	sub := explain.Line{Source: m[1] + ":1"}.Subsystem()
	if sub == "" {
		sub = "not Mooncake's"
	}
	return ": " + sub
}

var reUnprinted = regexp.MustCompile(`does not print: [^\n]*? \(([\w.\-]+): "`)

var reErrnoQuote = regexp.MustCompile(`does not print: [^\n(]*\[\d+\] \(`)

// draftMiss sorts new's first reason for writing nothing.
func draftMiss(missing []string) string {
	m := strings.Join(missing, "\n")
	if reErrnoQuote.MatchString(m) {
		return "the model of that version prints no such line: an errno"
	}
	if strings.Contains(m, "does not print: ") && strings.Contains(m, "error while loading shared libraries") {
		return "the model of that version prints no such line: a library"
	}
	for _, k := range []struct{ has, say string }{
		{"neither an exception nor a Mooncake error line", "the log's error is neither an exception nor a Mooncake line"},
		{"no catalog scenario explains this log", "no world tried: the class's worlds are not the log's (link_when_scored)"},
		{"shows no failure", "the log shows no failure"},
		{"outcome alone", "only a death or an outcome, no line to check"},
		{"does not print", "the model of that version prints no such line" + subsystemOf(m)},
		{"other worlds of the model", "the run does not print a line other worlds print"},
		{"expected exception", "the run raises another exception"},
		{"expected dies", "the run dies otherwise or not at all"},
		{"call; ", "the world dies in another kind of call"},
		{"died of", "the run dies otherwise or not at all"},
		{"observed no exception", "the run raises no exception"},
		{"message", "the run raises another exception message"},
	} {
		if strings.Contains(m, k.has) {
			return k.say
		}
	}
	if len(missing) == 0 {
		return "no reason given"
	}
	// Never the text: a held-out case's lines must not be printed.
	return "other"
}
