package explain

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// What a log line says beyond its words, as facts class patterns match
// (explain/classes/): which part of Mooncake printed it, the errno,
// Mooncake error code or RDMA work-completion status it names, a timeout.
// A field log's exact line is often one no thread showed before; where it
// comes from and what error it carries generalize.

// subsystemFiles maps the source file glog names (file:line) to the part
// of Mooncake it belongs to: the .cpp files of mooncake-transfer-engine/src
// and mooncake-store/src (and mooncake-integration) at the tags v0.3.4 …
// v0.3.12.post1, and yalantinglibs' coro_rpc headers (easylog lines).
var subsystemFiles = map[string]string{
	// The RDMA transport: opening devices, GIDs, memory registration.
	"rdma_context.cpp": "rdma-device", "rdma_transport.cpp": "rdma-device", "topology.cpp": "rdma-device",
	// The RDMA data path: queue pairs, completions, handshakes.
	"worker_pool.cpp": "rdma-datapath", "rdma_endpoint.cpp": "rdma-datapath", "endpoint_store.cpp": "rdma-datapath",
	"tcp_transport.cpp":    "tcp",
	"nvlink_transport.cpp": "nvlink", "hip_transport.cpp": "hip", "ascend_direct_transport.cpp": "ascend", "hccl_transport.cpp": "ascend",
	"heterogeneous_rdma_transport.cpp": "ascend", "hccl_transport_mem_c.cpp": "ascend",
	// Metadata: HTTP / etcd / P2P handshake plugins, segment descriptors.
	"transfer_metadata.cpp": "metadata", "transfer_metadata_plugin.cpp": "metadata",
	"http_metadata_server.cpp": "metadata", "etcd_helper.cpp": "metadata", "transfer_metadata_dump.cpp": "metadata",
	"transfer_engine.cpp": "transfer-engine", "transfer_engine_impl.cpp": "transfer-engine",
	"multi_transport.cpp": "transfer-engine", "transport.cpp": "transfer-engine", "transfer_engine_c.cpp": "transfer-engine",
	"transfer_engine_py.cpp": "transfer-engine", "config.cpp": "transfer-engine",
	// The store client: transfers of objects, buffers, the Python binding.
	"transfer_task.cpp": "store-transfer", "client.cpp": "store-client", "client_service.cpp": "store-client",
	"store_py.cpp": "store-client", "distributed_object_store.cpp": "store-client", "client_buffer.cpp": "store-client",
	// The master and the client's RPCs to it.
	"master_client.cpp": "master", "master_service.cpp": "master", "master.cpp": "master", "rpc_service.cpp": "master",
	"segment.cpp": "master", "allocator.cpp": "master", "ha_helper.cpp": "master",
	// Standalone storage: mooncake_client and SGLang's dummy client (IPC).
	"real_client.cpp": "standalone-ipc", "real_client_main.cpp": "standalone-ipc", "dummy_client.cpp": "standalone-ipc",
	// yalantinglibs' coro_rpc (the client's RPC library).
	"coro_rpc_client.hpp": "rpc-lib", "client_pool.hpp": "rpc-lib", "coro_rpc_server.hpp": "rpc-lib", "client.hpp": "rpc-lib",
}

// subsystemPrefixes name the part of Mooncake a line comes from when its
// glog prefix was trimmed away: the class or function names Mooncake's own
// messages start with.
var subsystemPrefixes = []struct {
	re  *regexp.Regexp
	sub string
}{
	{regexp.MustCompile(`^(RdmaTransport|RDMA device|Failed to (open|register|query) (device|memory|GID|port))\b`), "rdma-device"},
	{regexp.MustCompile(`^(Worker: |Endpoint |\[Handshake\]|Failed to modify QP)`), "rdma-datapath"},
	{regexp.MustCompile(`^(TcpTransport|Session::)`), "tcp"},
	{regexp.MustCompile(`^(HTTPStoragePlugin|EtcdStoragePlugin|RedisStoragePlugin|SocketHandShakePlugin|Failed to (set|remove|retrieve|register) (location|segment descriptor))`), "metadata"},
	{regexp.MustCompile(`^(MountSegment|Failed to (start|end) put operation|Failed to (mount|unmount) segment)`), "master"},
	{regexp.MustCompile(`^(async_resolve failed|failed to connect to all addresses)`), "rpc-lib"},
}

// File is the source file glog names ("rdma_context.cpp"; path.Base's
// "." for a line without one).
func (l Line) File() string {
	file, _, _ := strings.Cut(path.Base(l.Source), ":")
	return file
}

// Subsystem is the part of Mooncake that printed the line ("" unknown).
func (l Line) Subsystem() string {
	if l.Source != "" {
		if s, ok := subsystemFiles[l.File()]; ok {
			return s
		}
	}
	for _, p := range subsystemPrefixes {
		if p.re.MatchString(l.Text) {
			return p.sub
		}
	}
	return ""
}

// errnos are the errno values Mooncake's messages carry (faults.Errnos).
var errnos = faults.Errnos

var errnosByLength = func() []faults.Errno {
	out := slices.Clone(errnos)
	slices.SortStableFunc(out, func(a, b faults.Errno) int { return len(b.Text) - len(a.Text) })
	return out
}()

// reErrnoNum: an errno by number only ("errno 12", "errno=12", "errno: 12").
var reErrnoNum = regexp.MustCompile(`(?i)\berrno[:= ]\s*(\d+)\b`)

// wcStatuses are libibverbs' ibv_wc_status_str texts: a failed RDMA work
// completion (Mooncake's worker pool prints them after the slice).
var wcStatuses = []string{
	"local length error", "local QP operation error", "local EE context operation error", "local protection error",
	"Work Request Flushed Error", "memory management operation error", "bad response error", "local access error",
	"remote invalid request error", "remote access error", "remote operation error", "transport retry counter exceeded",
	"RNR retry counter exceeded", "local RDD violation error", "remote invalid RD request", "operation aborted",
	"invalid EE context number", "invalid EE context state", "response timeout error",
}

var (
	// reCodeNum: a Mooncake return code by number ("error code: -600",
	// "rc=-200", "ret: -800", "retcode -1").
	reCodeNum = regexp.MustCompile(`(?i)\b(?:error[ _]code|ret(?:code|urn code)?|rc|err)\s*(?:is|:|=)?\s*(-\d+)\b`)
	// reCodeName: a Mooncake ErrorCode by name (TRANSFER_FAIL).
	reCodeName = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)
	reTEText   = regexp.MustCompile(`(?i)transfer engine|metadata|rpc meta|handshake|segment descriptor`)
	// rePyFrame: a Python frame of the integration calling Mooncake
	// ("sglang/srt/disaggregation/mooncake/conn.py", line 173): which
	// path of it failed (PD transfer, HiCache storage, LMCache, vLLM).
	rePyFrame = regexp.MustCompile(`\b(sglang|lmcache|vllm_ascend|vllm)/((?:[\w.]+/)*[\w.]+\.py)\b`)
	reTimeout = regexp.MustCompile(`(?i)\btime(?:d[ -]?)?out\b|\bdeadline exceeded\b|TimeoutError`)
)

// teSubsystems are the transfer engine's parts: their numbers are its
// codes (mooncake-transfer-engine/include/error.h), not the store's.
var teSubsystems = map[string]bool{"rdma-device": true, "rdma-datapath": true, "tcp": true, "metadata": true, "transfer-engine": true}

var teCodes = map[int]string{
	mooncake.ERR_INVALID_ARGUMENT: "ERR_INVALID_ARGUMENT", mooncake.ERR_TOO_MANY_REQUESTS: "ERR_TOO_MANY_REQUESTS",
	mooncake.ERR_ADDRESS_NOT_REGISTERED: "ERR_ADDRESS_NOT_REGISTERED", mooncake.ERR_BATCH_BUSY: "ERR_BATCH_BUSY",
	mooncake.ERR_DEVICE_NOT_FOUND: "ERR_DEVICE_NOT_FOUND", mooncake.ERR_ADDRESS_OVERLAPPED: "ERR_ADDRESS_OVERLAPPED",
	mooncake.ERR_DNS: "ERR_DNS", mooncake.ERR_SOCKET: "ERR_SOCKET", mooncake.ERR_MALFORMED_JSON: "ERR_MALFORMED_JSON",
	mooncake.ERR_REJECT_HANDSHAKE: "ERR_REJECT_HANDSHAKE", mooncake.ERR_METADATA: "ERR_METADATA",
	mooncake.ERR_ENDPOINT: "ERR_ENDPOINT", mooncake.ERR_CONTEXT: "ERR_CONTEXT", mooncake.ERR_NUMA: "ERR_NUMA",
	mooncake.ERR_CLOCK: "ERR_CLOCK", mooncake.ERR_MEMORY: "ERR_MEMORY", mooncake.ERR_NOT_IMPLEMENTED: "ERR_NOT_IMPLEMENTED",
}

// lineFacts derives the facts of one line, each once.
func lineFacts(l Line) []string {
	var out []string
	sub := l.Subsystem()
	where := ""
	if sub != "" {
		where = " in " + sub
	}
	bad := errorLine(l) || l.Level == "W"
	if sub != "" && l.Level != "I" && bad {
		lvl := "error"
		if l.Level == "W" {
			lvl = "warning"
		}
		out = append(out, fmt.Sprintf("mooncake %s%s", lvl, where))
	}
	seen := map[string]bool{}
	addErrno := func(name string, n int, text string) {
		if seen[name] {
			return
		}
		seen[name] = true
		out = append(out, fmt.Sprintf("errno %s (%d, %s)%s", name, n, text, where))
	}
	// Longest text first, and once matched gone: "No such device or
	// address" is ENXIO, not ENODEV too.
	rest := l.Text
	for _, e := range errnosByLength {
		if strings.Contains(rest, e.Text) {
			addErrno(e.Name, e.Num, e.Text)
			rest = strings.ReplaceAll(rest, e.Text, "")
		}
	}
	for _, m := range reErrnoNum.FindAllStringSubmatch(l.Text, -1) {
		n, _ := strconv.Atoi(m[1])
		if e, ok := faults.ErrnoNumbered(n); ok {
			addErrno(e.Name, e.Num, e.Text)
		}
	}
	for _, s := range wcStatuses {
		if strings.Contains(l.Text, s) {
			out = append(out, "rdma work completion failed: "+s+where)
		}
	}
	// A number is the transfer engine's code (error.h) in its own parts'
	// lines, the store's ErrorCode elsewhere: -200 is ERR_METADATA in
	// "Failed to initialize transfer engine, rc=-200", NO_AVAILABLE_HANDLE
	// from a put.
	te := teSubsystems[sub] || reTEText.MatchString(l.Text)
	var codes []string
	for _, m := range reCodeNum.FindAllStringSubmatch(l.Text, -1) {
		n, _ := strconv.Atoi(m[1])
		if n == -1 {
			continue // any failure: setup()'s -1, rc=-1
		}
		if name, ok := teCodes[n]; ok && te {
			codes = append(codes, fmt.Sprintf("code %s (%d)", name, n))
		} else if c := mooncake.ErrorCode(n); !te && !strings.HasPrefix(c.Name(), "UNKNOWN") {
			codes = append(codes, fmt.Sprintf("code %s (%d)", c.Name(), n))
		}
	}
	for _, m := range reCodeName.FindAllString(l.Text, -1) {
		if c, ok := mooncake.CodeByName(m); ok && c != mooncake.OK {
			codes = append(codes, fmt.Sprintf("code %s (%d)", m, int(c)))
		}
	}
	for _, c := range slices.Compact(slices.Sorted(slices.Values(codes))) {
		out = append(out, c+where)
	}
	for _, m := range rePyFrame.FindAllStringSubmatch(l.Text, -1) {
		out = append(out, "python "+m[1]+" "+m[2])
	}
	// Said in words, not only as an errno's text ("Connection timed out
	// [110]" is errno ETIMEDOUT above: a QP's or a socket's, not a
	// transfer's deadline).
	if bad && reTimeout.MatchString(rest) {
		out = append(out, "timeout"+where)
	}
	// rdma_endpoint.cpp's handshake mismatch (v0.3.4 … 3b5a594): the NIC
	// pair it tried, and a peer that answered no paths (its side of the
	// handshake failed; people paste the empty path as "(empty)").
	if m := reNicPaths.FindStringSubmatch(l.Text); m != nil && m[1] == m[3] && m[2] != m[4] {
		out = append(out, fmt.Sprintf("rdma handshake between two RNICs of one host (%s, %s)", m[2], m[4]))
	}
	if strings.Contains(l.Text, "received packet mismatch") && reEmptyPeerPath.MatchString(l.Text) {
		out = append(out, "rdma handshake answered with no NIC paths")
	}
	return out
}

var (
	reNicPaths      = regexp.MustCompile(`local\.local_nic_path: ([^\s,@]+):\d+@([\w.\-]+), local\.peer_nic_path: ([^\s,@]+):\d+@([\w.\-]+)`)
	reEmptyPeerPath = regexp.MustCompile(`peer\.local_nic_path: (?:\(empty\))?\s*(?:,|$)`)
)

// sourceSince and sourceUntil are the first and last release whose
// mooncake-transfer-engine/src, mooncake-store/src or mooncake-integration
// has the file (git ls-tree at the tags v0.3.4.post2 … v0.3.12.post1): a
// glog line naming it came from such a release. Files every release has
// are not listed.
var (
	sourceSince = map[string]string{
		"rpc_service.cpp": "0.3.5", "client_buffer.cpp": "0.3.5", "offset_allocator.cpp": "0.3.5",
		"storage_backend.cpp": "0.3.5", "hccl_transport.cpp": "0.3.5",
		"http_metadata_server.cpp": "0.3.6", "client_metric.cpp": "0.3.6", "ascend_direct_transport.cpp": "0.3.6",
		"heterogeneous_rdma_transport.cpp": "0.3.6",
		"client_service.cpp":               "0.3.8", "dummy_client.cpp": "0.3.8", "real_client.cpp": "0.3.8",
		"real_client_main.cpp": "0.3.8", "file_storage.cpp": "0.3.8",
		"transfer_engine_impl.cpp": "0.3.8.post1", "task_manager.cpp": "0.3.8.post1",
		"aligned_client_buffer.cpp": "0.3.10", "efa_transport.cpp": "0.3.10",
		"mmap_arena.cpp": "0.3.11", "buffer_pool.cpp": "0.3.12",
	}
	sourceUntil = map[string]string{
		"distributed_object_store.cpp": "0.3.4.post2",
		"client.cpp":                   "0.3.7.post2", "pybind_client.cpp": "0.3.7.post2",
		"ha_helper.cpp": "0.3.10",
	}
)

// Range is a span of Mooncake releases (either end "" when open).
type Range struct {
	Since string `json:"since,omitempty" yaml:"since"`
	Until string `json:"until,omitempty" yaml:"until"`
}

// IsZero: no range.
func (r Range) IsZero() bool { return r.Since == "" && r.Until == "" }

func (r Range) String() string {
	switch {
	case r.Since != "" && r.Until != "":
		return r.Since + " … " + r.Until
	case r.Since != "":
		return r.Since + " or later"
	}
	return r.Until + " or earlier"
}

// Contains reports whether version v is in the range.
func (r Range) Contains(v string) bool {
	pv, err := mooncake.ParseVersion(v)
	if err != nil {
		return false
	}
	if r.Since != "" && pv.Compare(mooncake.MustVersion(r.Since)) < 0 {
		return false
	}
	return r.Until == "" || pv.Compare(mooncake.MustVersion(r.Until)) <= 0
}

// Overlaps reports whether the two ranges share a release (an empty
// range overlaps everything).
func (r Range) Overlaps(o Range) bool {
	before := func(a, b string) bool { // a < b, "" never
		return a != "" && b != "" && mooncake.MustVersion(a).Compare(mooncake.MustVersion(b)) < 0
	}
	return !before(r.Until, o.Since) && !before(o.Until, r.Since)
}

// prefer keeps the versions in the range, or all when none is (the
// scenario models other releases: the range cannot choose among them).
func (r Range) prefer(vs []string) []string {
	if r.IsZero() {
		return vs
	}
	var in []string
	for _, v := range vs {
		if r.Contains(v) {
			in = append(in, v)
		}
	}
	if len(in) == 0 {
		return vs
	}
	return in
}

// textTells are glog lines whose format changed between releases: the
// releases that print the line so.
var textTells = []struct {
	re *regexp.Regexp
	in Range
}{
	// worker_pool.cpp's failed slice: ", max_retry_cnt: N" from v0.3.12
	// (v0.3.12:606, v0.3.12.post1; the 0.3.13.post1 and 0.3.14 wheels'
	// strings), before it "retry_cnt: N): <status>" (v0.3.4 … v0.3.11.post1).
	{regexp.MustCompile(`Process failed for slice \(.*, max_retry_cnt: \d+\): `), Range{Since: "0.3.12"}},
	{regexp.MustCompile(`Process failed for slice \(.*[ (]retry_cnt: \d+\): `), Range{Until: "0.3.11.post1"}},
}

// sourceRange is the releases the source files of the log's glog lines
// and their formats imply; none when they contradict each other.
func sourceRange(lines []Line) Range {
	var r Range
	since := func(v string) {
		if r.Since == "" || mooncake.MustVersion(v).Compare(mooncake.MustVersion(r.Since)) > 0 {
			r.Since = v
		}
	}
	until := func(v string) {
		if r.Until == "" || mooncake.MustVersion(v).Compare(mooncake.MustVersion(r.Until)) < 0 {
			r.Until = v
		}
	}
	for _, l := range lines {
		if l.Source == "" {
			continue
		}
		file := l.File()
		if v, ok := sourceSince[file]; ok {
			since(v)
		}
		if v, ok := sourceUntil[file]; ok {
			until(v)
		}
		for _, t := range textTells {
			if !t.re.MatchString(l.Text) {
				continue
			}
			if t.in.Since != "" {
				since(t.in.Since)
			}
			if t.in.Until != "" {
				until(t.in.Until)
			}
		}
	}
	if r.Since != "" && r.Until != "" && mooncake.MustVersion(r.Since).Compare(mooncake.MustVersion(r.Until)) > 0 {
		return Range{}
	}
	return r
}
