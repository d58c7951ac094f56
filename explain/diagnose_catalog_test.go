package explain_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// TestDiagnoseCatalogLogs feeds every catalog run's own log (as
// TestEveryScenarioExplainsItsOwnLog does for Explain) to Diagnose, the
// CLI's answer: the scenario must be a cause, first or tied on points
// with the first; field classes must not push it out.
func TestDiagnoseCatalogLogs(t *testing.T) {
	cat, fp := allFingerprints(t)
	n, misses, ambiguous := 0, 0, 0
	for _, sc := range cat {
		if !sc.RunsOn(sim.Name) || sc.HasLabel("container") {
			continue
		}
		for _, r := range scenarios.Run(context.Background(), sc, sim.New(), scenarios.Options{Seed: 1}) {
			if r.Verdict != scenarios.Pass || fixedRelease(sc, r) {
				continue
			}
			n++
			d, err := explain.Diagnose(cat, fp, fieldLog(r), r.MooncakeVersion)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(d.Causes, func(c explain.Cause) bool { return c.Name == sc.Name })
			// Scenarios whose runs print the same log (happy-path and a
			// slow master link that changes nothing; a master refused
			// after init and a departed peer, both expired by the master)
			// are not told apart: explain names none and lists the group,
			// this one in it within Margin of the first.
			if j := slices.IndexFunc(d.Nearest, func(c explain.Cause) bool { return c.Name == sc.Name }); d.Ambiguous != "" && j >= 0 &&
				d.Nearest[0].Points-d.Nearest[j].Points < explain.Margin {
				ambiguous++
				continue
			}
			if i < 0 || d.Causes[i].Points < d.Causes[0].Points {
				misses++
				var got []string
				for _, c := range d.Causes[:min(3, len(d.Causes))] {
					got = append(got, c.String())
				}
				t.Errorf("%s @%s: rank %d, causes %v", sc.Name, r.MooncakeVersion, i, got)
			}
		}
	}
	t.Logf("%d catalog runs, %d not first, %d not told apart from another", n, misses, ambiguous)
}

// fixedRelease: r ends well at an SGLang or Mooncake release the
// scenario chose while another release it names fails (the release with
// the fix). Its log is a healthy start like every other: no field log
// reaches explain for it.
func fixedRelease(sc *scenarios.Scenario, r scenarios.Result) bool {
	if r.Observed.Exception != nil || r.Observed.Died != nil {
		return false
	}
	fails := func(e scenarios.Expect) bool { return e.Raises != nil || e.Dies != nil }
	if !fails(scenarios.ExpectFor(sc.Expect, sc.ByVersion, r.MooncakeVersion)) {
		vs, _ := sc.Versions("")
		if slices.ContainsFunc(vs, func(v string) bool { return fails(scenarios.ExpectFor(sc.Expect, sc.ByVersion, v)) }) {
			return true
		}
	}
	if len(sc.SGLang.Versions) == 0 {
		return false
	}
	for _, rel := range sc.SGLangReleases() {
		e := scenarios.ExpectForSGLang(sc.Expect, sc.ByVersion, r.MooncakeVersion, sc.BySGLang, rel)
		if e.Raises != nil || e.Dies != nil {
			return true
		}
	}
	return false
}

// A wait of ten minutes before the failure is the blackholed master's 20
// attempts x 30 s; five seconds is not.
func TestDiagnoseGapNamesTimeout(t *testing.T) {
	cat, fp := allFingerprints(t)
	log := func(end string) string {
		return "[2026-01-01 10:00:00 TP0] Mooncake Configuration loaded from env successfully.\n" +
			"[2026-01-01 " + end + " TP0] An error occurred while loading the configuration: Failed to setup Mooncake store, error code: -1\n"
	}
	d, err := explain.Diagnose(cat, fp, log("10:10:02"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Evidence.Gaps) != 1 || d.Evidence.Gaps[0].Seconds != 602 || len(d.Causes) == 0 || d.Causes[0].Name != "setup/master-blackholed" ||
		!slices.Contains(d.Causes[0].Evidence, "gap 602s before an error") {
		t.Fatalf("%+v %v", d.Evidence.Gaps, d.Causes[:min(3, len(d.Causes))])
	}
	d, err = explain.Diagnose(cat, fp, log("10:00:05"), "")
	if err != nil {
		t.Fatal(err)
	}
	// Five seconds: many causes end in -1 that fast; explain names none
	// of them over the others, and not the blackholed master.
	if len(d.Evidence.Gaps) != 0 || d.Verdict != "no-fit" || d.Ambiguous == "" || len(d.Nearest) == 0 || d.Nearest[0].Name == "setup/master-blackholed" {
		t.Fatalf("%+v %s %v", d.Evidence.Gaps, d.Ambiguous, d.Nearest)
	}
}

// Every class's scenarios are catalog scenarios, and a log of the class
// names them (the plugin-missing class on its own scenario's sim log).
func TestClassScenariosExist(t *testing.T) {
	cat, fp := allFingerprints(t)
	cls := allClasses(t)
	n := 0
	for _, c := range cls {
		for _, name := range c.Scenarios {
			n++
			if !slices.ContainsFunc(cat, func(sc *scenarios.Scenario) bool { return sc.Name == name }) {
				t.Errorf("class %s: scenario %s is not in the catalog", c.Name, name)
			}
		}
	}
	if n < 4 {
		t.Fatalf("only %d class scenarios", n)
	}
	log := "E1201 12:00:00.000000 1 transfer_metadata_plugin.cpp:579] Unable to find metadata storage plugin etcd with conn string: etcd://10.0.0.1:2379\n"
	d, err := explain.Diagnose(cat, fp, log, "")
	if err != nil {
		t.Fatal(err)
	}
	// The class gives its points to the scenario it links: explain names
	// the world `faultlab run` reproduces.
	if len(d.Causes) == 0 || d.Causes[0].Kind != "scenario" || d.Causes[0].Name != "setup/metadata-plugin-missing" {
		t.Fatalf("causes %+v", d.Causes)
	}
}

// A class that links its scenarios only when the log names one
// (link_when_scored): a lone 404 line from another server on the metadata
// port stays the class metadata-server-wrong; the store's setup failing on
// it names setup/http-metadata-not-mooncake (setup/http-metadata-wrong-path
// with the wheel server's own 404 body), a rejected re-publish names
// io/remount-republish-duplicate-rpc-meta, each with the class's points.
func TestLinkWhenScored(t *testing.T) {
	cat, fp := allFingerprints(t)
	for _, tc := range []struct{ log, want string }{
		{"E0101 00:00:00.000000 1 transfer_metadata_plugin.cpp:233] Unexpected code in http response, PUT http://10.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F10.0.0.2%3A12345 response code: 404 response body: 404 page not found\n",
			"metadata-server-wrong"},
		{"E1201 12:00:00.000000 1 transfer_metadata_plugin.cpp:338] PUT http://10.0.0.1:2379/metadata?key=mooncake%2Frpc_meta%2F10.0.0.2%3A12345 http=404 body: 404 page not found\n" +
			"E1201 12:00:00.000100 1 transfer_metadata.cpp:520] Failed to set location of 10.0.0.2:12345\n" +
			"E1201 12:00:00.000200 1 client_service.cpp:200] Failed to initialize transfer engine, rc=-200\n" +
			"RuntimeError: Failed to setup Mooncake store, error code: -1\n",
			"setup/http-metadata-not-mooncake"},
		{"E1201 12:00:00.000000 1 transfer_metadata_plugin.cpp:338] PUT http://10.0.0.1:8080/metadata/?key=mooncake%2Frpc_meta%2F10.0.0.2%3A12345 http=404 body: 404: Not Found\n" +
			"E1201 12:00:00.000100 1 transfer_metadata.cpp:520] Failed to set location of 10.0.0.2:12345\n" +
			"E1201 12:00:00.000200 1 client_service.cpp:200] Failed to initialize transfer engine, rc=-200\n" +
			"RuntimeError: Failed to setup Mooncake store, error code: -1\n",
			"setup/http-metadata-wrong-path"},
		{"I0101 00:00:00.000000 1 transfer_metadata.cpp:1363] Re-publishing RPC meta entry for 10.0.0.2:12345\n" +
			"E0101 00:00:00.000000 1 transfer_metadata_plugin.cpp:348] PUT http://10.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F10.0.0.2%3A12345 http=400 body: Duplicate rpc_meta key not allowed\n" +
			"E0101 00:00:00.000000 1 transfer_metadata.cpp:1371] Failed to re-publish RPC meta entry for 10.0.0.2:12345\n" +
			"E0101 00:00:01.000000 1 client_service.cpp:3826] Retry: failed to re-publish RPC meta entry to metadata server, rc=-200\n",
			"io/remount-republish-duplicate-rpc-meta"},
	} {
		d, err := explain.Diagnose(cat, fp, tc.log, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Causes) == 0 || d.Causes[0].Name != tc.want {
			t.Errorf("first cause of %q = %v, want %s", tc.log, d.Causes, tc.want)
		}
	}
}

// A scenario ending well earns the outcome's points only when it prints
// every error line of the log: an excerpt whose first line is another
// cause's (the QP pool used up) ends in no exception too.
func TestDiagnoseOKOutcomeNeedsTheLogsErrors(t *testing.T) {
	cat, fp := allFingerprints(t)
	log := "E1201 10:00:00.000000 100 rdma_endpoint.cpp:70] Failed to create QP: Cannot allocate memory [12]\n" +
		"E1201 10:00:56.000000 101 tcp_transport.cpp:1100] TcpTransport::getConnection failed to create connection to 10.0.0.2:15468. Error: connect: Connection refused\n"
	d, err := explain.Diagnose(cat, fp, log, "")
	if err != nil {
		t.Fatal(err)
	}
	if d.Verdict != "cause" || d.Causes[0].Name != "io/rdma-qp-exhausted" {
		t.Fatalf("verdict %s, causes %v, nearest %v", d.Verdict, d.Causes, d.Nearest)
	}
	i := slices.IndexFunc(d.Causes, func(c explain.Cause) bool { return c.Name == "io/peer-not-listening" })
	if i < 0 || d.Causes[i].Evidence[0] != "ends in: no exception (no outcome points: the log has error lines this cause never prints)" {
		t.Fatalf("io/peer-not-listening: %+v", d.Causes)
	}
}

// Two classes whose patterns match the same lines are not told apart by
// them, whatever each weighs them: a retry-exceeded completion alone names
// neither a GID fault nor a failing path.
func TestDiagnoseSameLinesNotNamed(t *testing.T) {
	cat, fp := allFingerprints(t)
	log := "worker_pool.cpp:294] Worker: Process failed for slice (opcode: 1, source_addr: 0x7f0000001000, length: 4096, dest_addr: 0x7f0000002000, " +
		"local_nic: mlx5_0, peer_nic: 10.0.0.2:12345@mlx5_1, dest_rkey: 2097153, retry_cnt: 8): transport retry counter exceeded\n"
	d, err := explain.Diagnose(cat, fp, log, "")
	if err != nil {
		t.Fatal(err)
	}
	// The line is glog cut to its file: the file says the RDMA data path
	// printed it, which both classes' hints weigh alike; the tie is listed
	// by how often each comes up in the field (rdma-transfer-error's tuning
	// cases outnumber roce-gid-no-rnic's).
	if want := "io/rdma-work-completion-error (6.00) and setup/roce-no-suitable-gid (6.00) fit about equally: the log does not tell them apart"; d.Verdict != "no-fit" || d.Ambiguous != want {
		t.Fatalf("verdict %s, ambiguous %q, causes %v", d.Verdict, d.Ambiguous, d.Causes)
	}
}

// One of Mooncake's own error lines that a cause ending in the log's
// outcome never prints costs it UnexplainedAgainst, and says so.
func TestDiagnoseUnexplainedMooncakeError(t *testing.T) {
	cat, fp := allFingerprints(t)
	log := "E1201 12:00:00.000000 1 transfer_metadata_plugin.cpp:338] PUT http://10.0.0.1:8080/metadata/?key=mooncake%2Frpc_meta%2F10.0.0.2%3A12345 http=404 body: 404: Not Found\n" +
		"E1201 12:00:00.000100 1 transfer_metadata.cpp:520] Failed to set location of 10.0.0.2:12345\n" +
		"E1201 12:00:00.000200 1 client_service.cpp:200] Failed to initialize transfer engine, rc=-200\n" +
		"RuntimeError: Failed to setup Mooncake store, error code: -1\n"
	const extra = "E1201 11:59:59.000000 1 rdma_context.cpp:99] Widget frobnication failed on mlx5_0\n"
	points := func(log string) explain.Cause {
		d, err := explain.Diagnose(cat, fp, log, "0.3.9")
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(d.Causes, func(c explain.Cause) bool { return c.Name == "setup/http-metadata-wrong-path" })
		if i != 0 {
			t.Fatalf("setup/http-metadata-wrong-path at %d in %v", i, d.Causes)
		}
		return d.Causes[i]
	}
	base, with := points(log), points(extra+log)
	if got := base.Points - with.Points; got != explain.UnexplainedAgainst {
		t.Errorf("the unexplained line cost %.2f points (%.2f → %.2f), want %.2f", got, base.Points, with.Points, explain.UnexplainedAgainst)
	}
	want := "line 1 (rdma_context.cpp:99): Widget frobnication failed on mlx5_0 - a Mooncake error this cause never prints"
	if !slices.Contains(with.Against, want) {
		t.Errorf("against = %q, want it to hold %q", with.Against, want)
	}
}

// TestDiagnoseRemedyNamesTheLogsLibrary: the missing-library worlds stand
// for any library their release needs; the remedy a log gets names the
// library its loader line lacks, not the one the world withholds.
func TestDiagnoseRemedyNamesTheLogsLibrary(t *testing.T) {
	cat, fp := allFingerprints(t)
	for _, tc := range []struct{ log, want string }{
		{"/usr/local/lib/python3.10/dist-packages/mooncake/mooncake_master: error while loading shared libraries: libnuma.so.1: cannot open shared object file: No such file or directory\n",
			"install libnuma.so.1 (or put its directory on LD_LIBRARY_PATH) and start the processes that failed again"},
		{"/usr/local/lib/python3.10/dist-packages/mooncake/mooncake_master: error while loading shared libraries: libibverbs.so.1: cannot open shared object file: No such file or directory\n",
			"install libibverbs.so.1 (or put its directory on LD_LIBRARY_PATH) and start the processes that failed again"},
	} {
		d, err := explain.Diagnose(cat, fp, tc.log, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Causes) == 0 {
			t.Fatalf("no cause for %q", tc.log)
		}
		if got := d.Causes[0].Remedy; !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: remedy %q, want it to begin %q", d.Causes[0].Name, got, tc.want)
		}
	}
}

// The standalone allocator's RuntimeError alone ends four worlds: a log
// that states no setup gets the advice to add it, and the command line's
// decode-offload flag then puts the decode-offload world first (the
// command line without it, last).
func TestDiagnoseStandaloneExceptionByLaunchFlags(t *testing.T) {
	cat, fp := allFingerprints(t)
	exc := "RuntimeError: MooncakeStore with standalone_storage=True requires MooncakeHostTensorAllocator. Please set standalone_storage=False or upgrade Mooncake by 'pip install mooncake-transfer-engine --upgrade'.\n"
	d, err := explain.Diagnose(cat, fp, exc, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "several causes end in this log's exception and the log does not say which setup it ran: add `pip show mooncake-transfer-engine sglang` (the releases) and the launch command line (its --hicache-*, --disaggregation-*, --speculative-* flags) to the log and explain it again"; d.Verdict != "no-fit" || d.Advice != want {
		t.Fatalf("verdict %s, advice %q", d.Verdict, d.Advice)
	}
	stated := "Name: sglang\nVersion: 0.5.16\nName: mooncake-transfer-engine\nVersion: 0.3.13.post1\n"
	cmd := "python -m sglang.launch_server --model-path m --enable-hierarchical-cache --hicache-storage-backend mooncake"
	for _, tc := range []struct {
		flags string
		first string
		pts   float64
	}{
		{" --disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache", "standalone/decode-offload-pool-allocator", 3.17},
		{"", "standalone/default-allocator", 2.67},
	} {
		d, err := explain.Diagnose(cat, fp, stated+cmd+tc.flags+"\n"+exc, "")
		if err != nil {
			t.Fatal(err)
		}
		if d.Verdict != "no-fit" || d.Advice != "" || len(d.Nearest) < 2 || d.Nearest[0].Name != tc.first || d.Nearest[0].Points != tc.pts {
			t.Errorf("flags %q: verdict %s, advice %q, nearest %v", tc.flags, d.Verdict, d.Advice, d.Nearest)
		}
	}
}

// What a log lacks, when no cause fits because of it, explain says: a
// caller's exception that carries only a returned code lacks Mooncake's
// own lines; a standalone setup's own lines (INFO, and the hot-cache line
// every healthy 0.3.13 setup logs at ERROR) show no failure, however rare
// they are across the catalog (sglang PR 29823's log).
func TestDiagnoseAdvice(t *testing.T) {
	cat, fp := allFingerprints(t)
	for _, tc := range []struct{ log, advice string }{
		{"Traceback (most recent call last):\n  File \"mooncake_store.py\", line 311, in __init__\nRuntimeError: Failed to setup Mooncake store, error code: -1\n",
			"the log has the caller's exception (RuntimeError: Failed to setup Mooncake store, error code: -1) but none of Mooncake's own lines"},
		// Mooncake's line is there: explain reads it, no advice.
		{"E1201 12:00:00.000000  42 client.cpp:100] some line\nRuntimeError: Failed to setup Mooncake store, error code: -1\n", ""},
		{"INFO:sglang.srt.mem_cache.storage.mooncake_store.mooncake_store:Mooncake Configuration loaded from extra_config successfully.\n" +
			"WARNING: Logging before InitGoogleLogging() is written to STDERR\n" +
			"I20260701 17:08:51.687362 12054 dummy_client.cpp:401] Connecting to IPC socket: @mooncake_client_50052.sock\n" +
			"I20260701 17:08:51.688673 12054 dummy_client.cpp:447] Successfully registered SHM via IPC, base: 0x7f0308000000\n" +
			"E20260701 17:08:51.688711 12054 dummy_client.cpp:1430] Failed to receive hot cache fd, status=-1\n",
			"the log has INFO lines only (no error, warning, exception or death): the lines a run prints on its way name no cause; add the lines where it fails, or how the process ended (its exit status)"},
	} {
		d, err := explain.Diagnose(cat, fp, tc.log, "")
		if err != nil {
			t.Fatal(err)
		}
		if d.Verdict != "no-fit" || !strings.HasPrefix(d.Advice, tc.advice) || (tc.advice == "") != (d.Advice == "") {
			t.Errorf("%q: verdict %s, advice %q, want it to start with %q", tc.log, d.Verdict, d.Advice, tc.advice)
		}
	}
}
