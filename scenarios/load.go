package scenarios

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/sglang"
	"gopkg.in/yaml.v3"
)

// Methods are the Mooncake methods expect.codes may name: the store's,
// then the TransferEngine's the te step calls.
var Methods = []string{
	"setup", "setup_dummy", "register_buffer", "unregister_buffer", "put", "get", "get_buffer", "remove", "is_exist",
	"batch_put_from", "batch_get_into", "batch_is_exist", "batch_get_session_start", "health_check", "close",
	"initialize", "register_memory", "unregister_memory", "allocate_managed_buffer", "transfer_sync_write", "batch_transfer_sync_write",
	"transfer_engine_bench", // the bench step's exit status (bench.go)
}

var (
	nameRE        = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$`)
	placeholderRE = regexp.MustCompile(`\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}`)
	// Roles are the placeholders World.Addr resolves.
	// "etcd" is the bare etcd endpoint (host:port) of topology metadata
	// etcd; {{metadata}} is then etcd://host:port. "master_ip" is the
	// master's own ip:port (no proxy in between), as a client configured
	// with a pod's IP holds it.
	// "master_ipv6" is the master's own RPC port on the IPv6 loopback
	// ([::1]:port, no proxy), reached only when its --rpc_address listens
	// on IPv6. "metadata_ipv6" is the master's embedded HTTP metadata URL
	// on the IPv6 loopback (http://[::1]:port/metadata; topology metadata:
	// master), reached only when that server listens on IPv6.
	Roles = []string{"master", "metadata", "client", "master_metrics", "etcd", "master_ip", "master_ipv6", "metadata_ipv6", "offload_dir", "s3"}
)

// Parse decodes and validates one scenario file's bytes. Every problem is
// reported at once, as a *LoadError with file:line:col positions.
func Parse(file string, data []byte) (*Scenario, error) {
	d := &decoder{file: file}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, &LoadError{Errs: []FieldError{{Pos: Pos{File: file, Line: yamlErrLine(err), Col: 1}, Msg: "invalid YAML: " + err.Error()}}}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.errorf(&extra, "one scenario per file: found a second YAML document")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	d.expandMerges(root)
	sc := &Scenario{Source: file}
	d.decodeStruct(root, reflectValue(sc), "")
	// Validate even after decode errors, so one run reports everything;
	// then order the messages by position.
	d.root = d.pos(root)
	if err := d.finish(sc); err != nil {
		return nil, err
	}
	return sc, nil
}

var lineRE = regexp.MustCompile(`line (\d+)`)

func yamlErrLine(err error) int {
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		var n int
		fmt.Sscan(m[1], &n)
		return n
	}
	return 1
}

// Load reads and parses a scenario file from disk.
func Load(file string) (*Scenario, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	return Parse(file, data)
}

// LoadFS loads every *.yaml under root in fsys, sorted by path. Problems in
// all files are reported together; duplicate names are errors.
func LoadFS(fsys fs.FS, root string) ([]*Scenario, error) { return loadFS(fsys, root, "") }

// loadFS names each file dir/path in scenarios and errors (dir = "" for
// an embedded catalog), so a mistake's file:line opens from where the user is.
func loadFS(fsys fs.FS, root, dir string) ([]*Scenario, error) {
	var files []string
	err := fs.WalkDir(fsys, root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !de.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	sort.Strings(files)
	var out []*Scenario
	all := &LoadError{}
	byName := map[string]*Scenario{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
		sc, err := Parse(path.Join(dir, f), data)
		var le *LoadError
		if errors.As(err, &le) {
			all.Errs = append(all.Errs, le.Errs...)
			continue
		} else if err != nil {
			return nil, err
		}
		if prev, dup := byName[sc.Name]; dup {
			all.Errs = append(all.Errs, FieldError{Pos: sc.Pos, Msg: fmt.Sprintf("duplicate scenario name %q (also in %s)", sc.Name, prev.Source)})
			continue
		}
		byName[sc.Name] = sc
		out = append(out, sc)
	}
	if len(all.Errs) > 0 {
		return nil, all
	}
	return out, nil
}

// LoadDir loads every scenario under a directory on disk.
func LoadDir(dir string) ([]*Scenario, error) {
	return loadFS(os.DirFS(dir), ".", dir)
}

// missing reports a required field that is absent: at the enclosing
// mapping, or at the file's top when that mapping is absent too (never
// :0:0), after the errors that may have caused it.
func (d *decoder) missing(p Pos, format string, a ...any) {
	if p.Line == 0 {
		p = d.root
	}
	d.errs = append(d.errs, FieldError{Pos: p, Msg: fmt.Sprintf(format, a...), derived: true})
}

func (d *decoder) at(p Pos, format string, a ...any) {
	d.errs = append(d.errs, FieldError{Pos: p, Msg: fmt.Sprintf(format, a...)})
}

// validate checks what the decoder cannot: required fields, references
// between fields, fault vocabulary, versions, placeholders.
func (d *decoder) validate(sc *Scenario) {
	if sc.Name == "" {
		d.missing(sc.Pos, "name is required")
	} else if !nameRE.MatchString(sc.Name) {
		d.at(sc.Pos, "name %q: use lower-case words separated by / . _ - (e.g. setup/master-down-refused)", sc.Name)
	}
	if len(sc.Steps) == 0 {
		d.missing(sc.Pos, "steps: at least one step is required (e.g. - init: tp0)")
	}
	for _, v := range sc.Mooncake.Versions {
		if err := checkVersionExpr(v); err != nil {
			d.at(sc.Mooncake.Pos, "mooncake.versions: %v", err)
		}
	}
	nodes := map[string]bool{}
	gpus := map[string]bool{} // nodes with a GPU (te register's memory: gpu)
	for i, n := range sc.Topology.Nodes {
		switch {
		case n.Name == "":
			d.at(n.Pos, "topology.nodes: name is required")
		case nodes[n.Name]:
			d.at(n.Pos, "topology.nodes: duplicate node %q", n.Name)
		case slices.Contains(Roles, n.Name):
			d.at(n.Pos, "topology.nodes: %q is a role name; pick another node name", n.Name)
		}
		nodes[n.Name] = true
		gpus[n.Name] = n.GPU != nil
		if i == 0 {
			gpus[""] = n.GPU != nil // a step without node runs on the first
		}
		d.checkHostPool(n.HostPool, "hostpool")
		// One model: every scheduler's pool has the same layout (is_mla).
		if l0, l := layoutOf(sc.Topology.Nodes[0].HostPool), layoutOf(n.HostPool); l != l0 {
			d.at(n.HostPool.Pos, "topology.nodes: node %q has a %s pool but node %q an %s one; every node serves the same model, so the layouts must match", n.Name, l, sc.Topology.Nodes[0].Name, l0)
		}
		// Nodes share one storage config (same rank, same keys): one page geometry.
		if p0, p := pagesOf(sc.Topology.Nodes[0].HostPool), pagesOf(n.HostPool); p != p0 {
			d.at(n.HostPool.Pos, "topology.nodes: node %q pages are %d tokens × %d bytes, node %q's %d × %d; nodes share the storage config (same rank, same keys), so page_size and page_bytes must match", n.Name, p[0], p[1], sc.Topology.Nodes[0].Name, p0[0], p0[1])
		}
		if sc.Storage.Backend == "embedding" && n.HostPool.Draft != nil {
			d.at(n.HostPool.Draft.Pos, "hostpool.draft: storage.backend embedding has no draft pool (its pool is the embedding cpu_pool)")
		}
		d.checkNIC(n.NIC)
		if n.GPU != nil {
			d.checkGPU(*n.GPU, "topology.nodes."+n.Name+".gpu")
			if !sc.HasLabel(LabelNeedsGPU) {
				d.at(n.GPU.Pos, "topology.nodes.%s.gpu: a scenario with GPUs carries the label %s (the real engine has none to run it on)", n.Name, LabelNeedsGPU)
			}
		}
		if n.IPLocalPortRange != "" {
			if _, err := engine.PortRangeSize(n.IPLocalPortRange); err != nil {
				d.at(n.Pos, "topology.nodes.%s.ip_local_port_range: %v", n.Name, err)
			}
		}
		for _, b := range n.Build {
			switch {
			case !slices.Contains(BuildOptions, b):
				d.at(n.Pos, "topology.nodes.%s.build: %q%s; valid: %s", n.Name, b, didYouMean(b, BuildOptions), strings.Join(BuildOptions, ", "))
			case b == engine.BuildAscendDirect:
				if n.NPU == nil {
					d.at(n.Pos, "topology.nodes.%s.build: %s is an Ascend build: the node needs an npu", n.Name, b)
				}
			case b == engine.BuildNoTCP:
				// Any build may turn TCP off.
			case n.GPU == nil:
				d.at(n.Pos, "topology.nodes.%s.build: %s is a CUDA build: the node needs a gpu", n.Name, b)
			}
		}
		if n.NPU != nil {
			d.checkNPU(sc, *n.NPU, n.GPU != nil, "topology.nodes."+n.Name+".npu")
		}
		if sc.Storage.Backend == "direct-linker" && (n.GPU == nil || n.GPU.KVPool <= 0) {
			d.at(n.Pos, "topology.nodes.%s: storage.backend direct-linker registers the node's GPU KV pool; give gpu.kv_pool", n.Name)
		}
	}
	known := mooncake.KnownLibs()
	libs := sc.Topology.MissingLibs
	if sc.Remedy != nil {
		libs = append(slices.Clone(libs), sc.Remedy.MissingLibs...)
	}
	for _, l := range libs {
		if !slices.Contains(known, l) {
			d.at(sc.Topology.Pos, "missing_libs: %q is no library a measured Mooncake wheel needs%s; valid: %s", l, didYouMean(l, known), strings.Join(known, ", "))
		}
	}
	if l := sc.Topology.Libstdcxx; l != "" && !slices.Contains(mooncake.LibstdcxxLevels, l) {
		d.at(sc.Topology.Pos, "libstdcxx: %q was not measured; valid: %s (the newest GLIBCXX version of the hosts' libstdc++)", l, strings.Join(mooncake.LibstdcxxLevels, ", "))
	}
	if slices.Contains(sc.Topology.MissingLibs, sglang.TorchCUDARuntime) && sc.StartsSGLang() {
		// The model has no torch: its SGLang would fail where SGLang's
		// own process imports the wheel.
		d.at(sc.Topology.Pos, "missing_libs: %s is loaded by SGLang's torch before mooncake (sglang.TorchCUDARuntime), so SGLang's process has it whatever the host lacks; withhold it only from callers without SGLang (put, call, te steps)", sglang.TorchCUDARuntime)
	}
	if c := sc.Topology.Client; c != nil {
		d.checkNIC(c.NIC)
		if (c.Sidecar != nil || c.Shm != 0) && c.Present != nil && !*c.Present {
			d.at(c.Pos, "topology.mooncake_client: sidecar or shm with present: false; there is no mooncake_client to place")
		}
		if c.VmemHeadroom < 0 || (c.VmemHeadroom != 0 && c.Present != nil && !*c.Present) {
			d.at(c.Pos, "topology.mooncake_client: vmem_headroom must be a positive size on a present mooncake_client")
		}
		for _, f := range sortedKeys(c.Flags) {
			if slices.Contains(ClientReservedFlags, f) {
				d.at(c.Pos, "topology.mooncake_client.flags: %s is set by the engine (%s are)", f, strings.Join(ClientReservedFlags, ", "))
			}
		}
	}
	if r := sc.Remedy; r != nil && r.MasterVersion != "" && r.MasterVersion != "run" {
		if _, err := mooncake.ProfileFor(r.MasterVersion); err != nil {
			d.at(r.Pos, "remedy.master_version: %v (or \"run\": the run's version)", err)
		}
	}
	if r, m := sc.Remedy, sc.Topology.Master; r != nil && r.MasterVersion != "" && m != nil && (m.HA || (m.Present != nil && !*m.Present)) {
		d.at(r.Pos, "remedy.master_version needs one plain mooncake_master (not ha, not present: false)")
	}
	if r, m := sc.Remedy, sc.Topology.Master; r != nil && len(r.MasterFlags) > 0 && m != nil && (m.HA || (m.Present != nil && !*m.Present)) {
		d.at(r.Pos, "remedy.master_flags needs one plain mooncake_master (not ha, not present: false)")
	}
	if r, m := sc.Remedy, sc.Topology.Master; r != nil && len(r.MasterEnv) > 0 && m != nil && (m.HA || (m.Present != nil && !*m.Present)) {
		d.at(r.Pos, "remedy.master_env needs one plain mooncake_master (not ha, not present: false)")
	}
	if m := sc.Topology.Master; m != nil {
		d.checkNIC(m.NIC)
		if (len(m.Env) > 0 || len(m.NIC.RDMA) > 0) && (m.HA || (m.Present != nil && !*m.Present)) {
			d.at(m.Pos, "topology.master: env or nic with ha or present: false; they describe one plain mooncake_master")
		}
	}
	if m := sc.Topology.Master; m != nil && m.MooncakeVersion != "" {
		if _, err := mooncake.ProfileFor(m.MooncakeVersion); err != nil {
			d.at(m.Pos, "topology.master.mooncake_version: %v", err)
		}
		if m.HA || (m.Present != nil && !*m.Present) {
			d.at(m.Pos, "topology.master.mooncake_version: with ha or present: false; a skewed master is one plain mooncake_master")
		}
	}
	if m := sc.Topology.Master; m != nil && m.HTTPMetadataPort != 0 {
		switch {
		case m.HTTPMetadataPort < 1024 || m.HTTPMetadataPort > 65535:
			d.at(m.Pos, "topology.master.http_metadata_port: %d: give a TCP port, 1024-65535", m.HTTPMetadataPort)
		case sc.Topology.Metadata != "master":
			d.at(m.Pos, "topology.master.http_metadata_port: the master's embedded HTTP metadata server's port; needs metadata: master")
		case m.HA || (m.Present != nil && !*m.Present):
			d.at(m.Pos, "topology.master.http_metadata_port: with ha or present: false; it is one plain mooncake_master's port")
		case m.Flags["http_metadata_server_port"] != "":
			d.at(m.Pos, "topology.master.http_metadata_port and flags.http_metadata_server_port: give the port once, as http_metadata_port")
		}
	}
	if m := sc.Topology.Master; m != nil && m.MetricsPort != 0 {
		switch {
		case m.MetricsPort < 1024 || m.MetricsPort > 65535:
			d.at(m.Pos, "topology.master.metrics_port: %d: give a TCP port, 1024-65535", m.MetricsPort)
		case m.HA || (m.Present != nil && !*m.Present):
			d.at(m.Pos, "topology.master.metrics_port: with ha or present: false; it is one plain mooncake_master's port")
		case m.Flags["metrics_port"] != "":
			d.at(m.Pos, "topology.master.metrics_port and flags.metrics_port: give the port once, as metrics_port")
		case m.MetricsPort == m.HTTPMetadataPort:
			d.at(m.Pos, "topology.master.metrics_port: %d is http_metadata_port too; the master's two HTTP servers need two ports", m.MetricsPort)
		}
	}
	if len(sc.Topology.MetadataEnv) > 0 && sc.Topology.Metadata != "http" {
		d.at(sc.Topology.Pos, "topology.metadata_env: the standalone HTTP metadata server's environment; needs metadata: http")
	}
	if h := sc.Topology.MetadataHost; h != "" {
		switch ip := net.ParseIP(h); {
		case sc.Topology.Metadata != "http":
			d.at(sc.Topology.Pos, "topology.metadata_host: the standalone HTTP metadata server's --host; needs metadata: http")
		case h != "localhost" && (ip == nil || !(ip.IsLoopback() || ip.IsUnspecified())):
			// A host's own address differs per machine; every address
			// (the server's default) and the loopback are the same everywhere.
			d.at(sc.Topology.Pos, "topology.metadata_host: %q: give 0.0.0.0 or :: (every address, the server's default), or a loopback address", h)
		}
	}
	if r := sc.Remedy; r != nil && len(r.MetadataEnv) > 0 && sc.Topology.Metadata != "http" {
		d.at(r.Pos, "remedy.metadata_env: restarts the standalone HTTP metadata server; needs metadata: http")
	}
	if m := sc.Topology.Master; m != nil && m.HA {
		switch {
		case m.Present != nil && !*m.Present:
			d.at(m.Pos, "topology.master: ha: true with present: false; drop one")
		case sc.Topology.Metadata != "etcd":
			d.at(m.Pos, "topology.master: ha: true needs metadata: etcd (the masters elect their leader in etcd)")
		}
	}
	if len(sc.Topology.Nodes) == 0 {
		nodes["tp0"] = true // the default node
	}
	nodeNames := sortedKeys(nodes)
	if sc.Storage.TPSize < 0 || sc.Storage.PPSize < 0 || sc.Storage.TPRank < 0 || sc.Storage.PPRank < 0 {
		d.at(sc.Storage.Pos, "storage: ranks and sizes must not be negative")
	}
	if sc.Storage.ExtraConfig != nil && sc.Config.ExtraConfig != nil {
		d.at(sc.Storage.Pos, "storage.extra_config and config.extra_config: give extra_config once")
	}
	d.checkConfigFile(sc.Config.Pos, sc.Config.File)
	if sc.Storage.Backend == "direct-linker" {
		d.noPageIO(sc)
	}
	if sc.Storage.Backend == "embedding" {
		// EmbeddingCacheController builds MooncakeEmbeddingStore() without
		// a storage config: extra_config would be silently ignored.
		if sc.Storage.ExtraConfig != nil || sc.Config.ExtraConfig != nil || (sc.Remedy != nil && sc.Remedy.ExtraConfig != nil) {
			d.at(sc.Storage.Pos, "storage.backend embedding: the embedding store reads no extra_config (its controller passes no storage config); use config.env or config.file")
		}
		d.noPageIO(sc)
	}
	for _, f := range sc.Faults {
		if err := f.Fault().Validate(); err != nil {
			d.at(f.Pos, "faults: %v", err)
		} else {
			d.checkFaultTopology(sc.Topology, f)
		}
		if f.Kind == "link" && f.Target != "" && (!slices.Contains(Roles[:3], f.Target)) && !nodes[f.Target] {
			d.at(f.Pos, "faults: link target %q is neither a role (%s) nor a node (%s)", f.Target, strings.Join(Roles[:3], ", "), strings.Join(nodeNames, ", "))
		}
	}
	d.checkSteps(sc.Steps, nodes, gpus, nodeNames)
	d.checkAnchors(sc)
	d.checkExpect(sc.Expect, "expect", true)
	d.checkByVersion(sc.ByVersion)
	d.checkBySGLang(sc.BySGLang)
	for _, c := range sc.SGLang.Versions {
		if _, err := mooncake.ParseVersion(c); err == nil {
			if !sglang.Follows(c) {
				d.at(sc.SGLang.Pos, "sglang.versions: the model does not follow SGLang %s; it follows %s (and %s where a scenario names them)",
					c, strings.Join(sglang.Versions, ", "), strings.Join(sglang.NamedVersions, ", "))
			}
			continue
		}
		d.checkBySGLang(BySGLang{{Constraint: c, Pos: sc.SGLang.Pos}})
	}
	if r := sc.Remedy; r != nil {
		d.checkConfigFile(r.Pos, r.File)
		for _, name := range sortedKeys(r.HostPools) {
			hp := r.HostPools[name]
			if !nodes[name] {
				d.at(hp.Pos, "remedy.hostpools: unknown node %q; nodes: %s", name, strings.Join(nodeNames, ", "))
			}
			d.checkHostPool(hp, "remedy.hostpools."+name)
			if sc.Storage.Backend == "embedding" && hp.Draft != nil {
				d.at(hp.Draft.Pos, "remedy.hostpools.%s.draft: storage.backend embedding has no draft pool", name)
			}
		}
		for _, name := range sortedKeys(r.GPUs) {
			g := r.GPUs[name]
			if !nodes[name] {
				d.at(g.Pos, "remedy.gpus: unknown node %q; nodes: %s", name, strings.Join(nodeNames, ", "))
			}
			d.checkGPU(g, "remedy.gpus."+name)
		}
		for _, name := range sortedKeys(r.NPUs) {
			n := r.NPUs[name]
			if !nodes[name] {
				d.at(n.Pos, "remedy.npus: unknown node %q; nodes: %s", name, strings.Join(nodeNames, ", "))
			}
			d.checkNPU(sc, n, false, "remedy.npus."+name)
		}
		for _, name := range sortedKeys(r.NodeEnv) {
			if !nodes[name] {
				d.at(r.Pos, "remedy.node_env: unknown node %q; nodes: %s", name, strings.Join(nodeNames, ", "))
			}
		}
		d.checkSteps(r.Steps, nodes, gpus, nodeNames)
		d.checkExpect(r.Expect, "remedy.expect", true)
		d.checkByVersion(r.ByVersion)
		d.checkBySGLang(r.BySGLang)
	}
	d.checkPlaceholders(sc)
	d.checkOffloadReserve(sc)
}

// LabelNeedsGPU marks scenarios whose nodes have GPUs: only engines that
// model GPU memory (sim, fake) run them; the real engine skips them.
const LabelNeedsGPU = "needs-gpu"

// checkGPU: a GPU count of at least one (0 = the default, 1), sizes not
// negative.
func (d *decoder) checkGPU(g GPU, where string) {
	if g.Count < 0 {
		d.at(g.Pos, "%s: count must be at least 1 (default 1)", where)
	}
	if g.KVPool < 0 {
		d.at(g.Pos, "%s: kv_pool must not be negative", where)
	}
}

func layoutOf(hp HostPool) string {
	if hp.Layout == "" {
		return "MHA"
	}
	return hp.Layout
}

// pagesOf is a pool's page geometry with the defaults (64 tokens, 256 KiB).
func pagesOf(hp HostPool) [2]int64 {
	g := [2]int64{int64(hp.PageSize), int64(hp.PageBytes)}
	if g[0] == 0 {
		g[0] = 64
	}
	if g[1] == 0 {
		g[1] = 256 << 10
	}
	return g
}

// hasErr reports whether an error mentioning sub was recorded.
func (d *decoder) hasErr(sub string) bool {
	return slices.ContainsFunc(d.errs, func(e FieldError) bool { return strings.Contains(e.Msg, sub) })
}

// checkHostPool: a draft has no draft; shares_main only on a draft, and
// alone (the shared pool has the main pool's layout and size).
func (d *decoder) checkHostPool(hp HostPool, where string) {
	if hp.SharesMain {
		d.at(hp.Pos, "%s.shares_main: only a draft pool can share the main pool (use it under %s.draft)", where, where)
	}
	dr := hp.Draft
	if dr == nil {
		return
	}
	if dr.Draft != nil {
		d.at(dr.Pos, "%s.draft: a draft pool has no draft", where)
	}
	if dr.Builder != "" {
		d.at(dr.Pos, "%s.draft.builder: only the main pool has a builder (the draft pool is kv_cache_builder's)", where)
	}
	if dr.SharesMain && (dr.Layout != "" || dr.Allocator != "" || dr.Size != 0 || dr.PageSize != 0 || dr.PageBytes != 0) {
		d.at(dr.Pos, "%s.draft: shares_main: true takes no other field (the draft is the main pool's tensors)", where)
	}
}

func (d *decoder) checkConfigFile(p Pos, f any) {
	switch f.(type) {
	case nil, string, map[string]any:
	default:
		d.at(p, "file: want a mapping (written as JSON) or a string (written verbatim)")
	}
}

func (d *decoder) checkSteps(steps []Step, nodes, gpus map[string]bool, names []string) {
	for _, s := range steps {
		if s.Node != "" && !nodes[s.Node] {
			d.at(s.Pos, "%s: unknown node %q; nodes: %s", s.Action, s.Node, strings.Join(names, ", "))
		} else if s.Op == TERegister && s.Memory == TEMemoryGPU && !gpus[s.Node] {
			d.at(s.Pos, "te: memory gpu on node %q, which has no GPU (give it topology.nodes[].gpu)", cmp.Or(s.Node, "the first node"))
		}
	}
}

func (d *decoder) checkExpect(e Expect, where string, top bool) {
	if top && e.OK == nil && e.Raises == nil && e.Dies == nil && len(e.Codes) == 0 && len(e.Logs) == 0 && !e.Invariants {
		d.missing(e.Pos, "%s: say what should happen: ok, raises, dies, codes, logs or invariants", where)
	}
	if e.OK != nil && *e.OK && e.Raises != nil {
		d.at(e.Pos, "%s: ok: true and raises contradict each other", where)
	}
	if e.Dies != nil {
		if e.OK != nil && *e.OK {
			d.at(e.Pos, "%s: ok: true and dies contradict each other", where)
		}
		if e.Raises != nil {
			d.at(e.Pos, "%s: raises and dies contradict each other (a dead process raises nothing)", where)
		}
		switch {
		case e.Dies.Signal != "" && e.Dies.Exit != nil:
			d.at(e.Dies.Pos, "%s.dies: signal and exit contradict each other (a process ends by one)", where)
		case e.Dies.Exit != nil && (*e.Dies.Exit < 1 || *e.Dies.Exit > 255):
			d.at(e.Dies.Pos, "%s.dies: exit must be a failing status, 1..255 (got %d)", where, *e.Dies.Exit)
		case e.Dies.Signal == "" && e.Dies.Exit == nil && !d.hasErr(".dies.signal: "): // an invalid signal was reported already
			d.at(e.Dies.Pos, "%s.dies: signal (SIGSEGV, SIGABRT or SIGFPE) or exit (a status) is required", where)
		}
	}
	if e.Raises != nil && e.Raises.Class == "" {
		d.at(e.Raises.Pos, "%s.raises: class is required (e.g. RuntimeError)", where)
	}
	for _, m := range sortedKeys(e.Codes) {
		if !slices.Contains(Methods, m) {
			d.at(e.Codes[m].Pos, "%s.codes: unknown method %q; valid methods: %s", where, m, strings.Join(Methods, ", "))
		}
	}
	if r := e.Duration; r != nil {
		if r.Min == nil && r.Max == nil {
			d.at(r.Pos, "%s.duration: give min, max or both", where)
		}
		if r.Min != nil && r.Max != nil && *r.Min > *r.Max {
			d.at(r.Pos, "%s.duration: min %s > max %s", where, r.Min.D(), r.Max.D())
		}
	}
}

func (d *decoder) checkByVersion(bv ByVersion) {
	for _, ve := range bv {
		if err := checkVersionExpr(ve.Constraint); err != nil {
			d.at(ve.Pos, "by_version: %v", err)
		}
		d.checkExpect(ve.Expect, "by_version."+ve.Constraint, false)
	}
}

func (d *decoder) checkBySGLang(bs BySGLang) {
	all := append(slices.Clone(sglang.NamedVersions), sglang.Versions...)
	for _, ve := range bs {
		if !slices.ContainsFunc(all, func(v string) bool {
			ok, err := mooncake.Constraint(ve.Constraint).Match(mooncake.MustVersion(v))
			return err == nil && ok
		}) {
			d.at(ve.Pos, "by_sglang: %q matches none of the SGLang releases the model follows (%s); write an exact release, >=V, <V, A-B or *",
				ve.Constraint, strings.Join(all, ", "))
		}
		d.checkExpect(ve.Expect, "by_sglang."+ve.Constraint, false)
	}
}

// checkVersionExpr validates an exact version (it must be a known one) or
// a constraint (it must parse and match at least one known version).
func checkVersionExpr(s string) error {
	if _, err := mooncake.ParseVersion(s); err == nil {
		_, err := mooncake.ProfileFor(s)
		return err
	}
	if len(matchingVersions(s)) == 0 {
		if _, err := mooncake.Constraint(s).Match(mooncake.Version{}); err != nil {
			return fmt.Errorf("%v; write an exact version (%s), >=V, <V, A-B, * or pip's >=A,<B, ~=V, !=V, ==0.3.*", err, mooncake.Latest)
		}
		return fmt.Errorf("version constraint %q matches no known Mooncake version; known versions are %s", s, strings.Join(mooncake.Versions, ", "))
	}
	return nil
}

// matchingVersions lists the known versions a constraint matches, oldest first.
func matchingVersions(c string) []string {
	var out []string
	for _, v := range mooncake.Versions {
		if ok, err := mooncake.Constraint(c).Match(mooncake.MustVersion(v)); err == nil && ok {
			out = append(out, v)
		}
	}
	return out
}

func (d *decoder) checkPlaceholders(sc *Scenario) {
	check := func(p Pos, s string) {
		if !strings.Contains(s, "{{") {
			return
		}
		for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
			if m[1] == MethodPlaceholder {
				if CallMethod(sc.Steps) == "" {
					d.at(p, "placeholder {{%s}} names the method of the scenario's call step, and its steps have none", m[1])
				}
				continue
			}
			if !slices.Contains(Roles, m[1]) {
				d.at(p, "unknown placeholder {{%s}}; valid placeholders: {{%s}}", m[1], strings.Join(Roles, "}}, {{"))
			}
		}
	}
	checkEnv := func(p Pos, env Env) {
		for _, k := range sortedKeys(env) {
			if env[k] != nil {
				check(p, *env[k])
			}
		}
	}
	checkEnv(sc.Config.Pos, sc.Config.Env)
	checkEnv(sc.Config.Pos, remedyEnv(sc))
	if sc.Remedy != nil {
		for _, n := range sortedKeys(sc.Remedy.NodeEnv) {
			checkEnv(sc.Remedy.Pos, sc.Remedy.NodeEnv[n])
		}
	}
	for _, n := range sc.Topology.Nodes {
		checkEnv(n.Pos, n.Env)
	}
	walkStrings(sc.Config.File, func(s string) { check(sc.Config.Pos, s) })
	exps := []Expect{sc.Expect}
	for _, ve := range slices.Concat(sc.ByVersion, ByVersion(sc.BySGLang)) {
		exps = append(exps, ve.Expect)
	}
	if sc.Remedy != nil {
		exps = append(exps, sc.Remedy.Expect)
		for _, ve := range slices.Concat(sc.Remedy.ByVersion, ByVersion(sc.Remedy.BySGLang)) {
			exps = append(exps, ve.Expect)
		}
	}
	for _, e := range exps {
		if e.Raises != nil && e.Raises.Message != nil {
			check(e.Raises.Pos, *e.Raises.Message)
		}
		for _, l := range append(append([]string{}, e.Logs...), e.NoLogs...) {
			check(e.Pos, l)
		}
	}
	walkStrings(sc.Config.ExtraConfig, func(s string) { check(sc.Config.Pos, s) })
	walkStrings(sc.Storage.ExtraConfig, func(s string) { check(sc.Storage.Pos, s) })
}

func remedyEnv(sc *Scenario) Env {
	if sc.Remedy == nil {
		return nil
	}
	return sc.Remedy.Env
}

func walkStrings(x any, f func(string)) {
	switch t := x.(type) {
	case string:
		f(t)
	case map[string]any:
		for _, k := range sortedKeys(t) {
			walkStrings(t[k], f)
		}
	case []any:
		for _, v := range t {
			walkStrings(v, f)
		}
	}
}

func applyDefaults(sc *Scenario) {
	if len(sc.Engines) == 0 {
		sc.Engines = engine.Names()
	}
	if sc.Topology.Metadata == "" {
		sc.Topology.Metadata = "P2PHANDSHAKE"
	}
	if len(sc.Topology.Nodes) == 0 {
		sc.Topology.Nodes = []Node{{Name: "tp0"}}
	}
	for i := range sc.Topology.Nodes {
		defaultPools(&sc.Topology.Nodes[i].HostPool)
	}
	if sc.Storage.Backend == "" {
		sc.Storage.Backend = "kv"
	}
	if sc.Storage.TPSize == 0 {
		sc.Storage.TPSize = 1
	}
	if sc.Storage.PPSize == 0 {
		sc.Storage.PPSize = 1
	}
	if sc.Storage.IsMLA == nil {
		mla := sc.Topology.Nodes[0].HostPool.Layout == "MLA"
		sc.Storage.IsMLA = &mla
	}
	if sc.Config.FilePath == "" {
		sc.Config.FilePath = DefaultConfigPath
	}
	for i := range sc.Steps {
		if sc.Steps[i].Node == "" && sc.Steps[i].Action != StepSleep {
			sc.Steps[i].Node = sc.Topology.Nodes[0].Name
		}
	}
	if r := sc.Remedy; r != nil {
		for name, hp := range r.HostPools {
			defaultPools(&hp)
			r.HostPools[name] = hp
		}
		if r.ClearFaults == nil {
			t := true
			r.ClearFaults = &t
		}
		for i := range r.Steps {
			if r.Steps[i].Node == "" && r.Steps[i].Action != StepSleep {
				r.Steps[i].Node = sc.Topology.Nodes[0].Name
			}
		}
	}
}

// defaultPools defaults a pool and its draft (a draft sharing the main
// pool has no fields of its own).
func defaultPools(hp *HostPool) {
	defaultPool(hp)
	if hp.Draft != nil && !hp.Draft.SharesMain {
		defaultPool(hp.Draft)
	}
}

func defaultPool(hp *HostPool) {
	if hp.Layout == "" {
		hp.Layout = "MHA"
	}
	if hp.Allocator == "" {
		// --hicache-storage-backend mooncake makes HiRadixCache ask for the
		// Mooncake allocator (sglang.md §3).
		hp.Allocator = "mooncake"
	}
	if hp.Size == 0 {
		hp.Size = 1 << 30
	}
	if hp.PageSize == 0 {
		hp.PageSize = 64
	}
	if hp.PageBytes == 0 {
		hp.PageBytes = 256 << 10
	}
}

// HasLabel reports whether the scenario carries label l.
func (sc *Scenario) HasLabel(l string) bool { return slices.Contains(sc.Labels, l) }

// StartsSGLang reports whether a phase of the scenario starts SGLang (an
// init step): one whose steps only drive an integration's own store or
// the transfer engine (put, call, te) has no SGLang side.
func (sc *Scenario) StartsSGLang() bool {
	init := func(st Step) bool { return st.Action == StepInit }
	return slices.ContainsFunc(sc.Steps, init) || (sc.Remedy != nil && slices.ContainsFunc(sc.Remedy.Steps, init))
}

// RunsOn reports whether the scenario lists engine e.
func (sc *Scenario) RunsOn(e string) bool { return slices.Contains(sc.Engines, e) }

// Versions is the list of versions the scenario runs at: each exact
// version named, and the newest known version each constraint matches;
// mooncake.Latest when none is named. With override != "", only override,
// and only if some entry matches it (else ok=false).
func (sc *Scenario) Versions(override string) (vs []string, ok bool) {
	exprs := sc.Mooncake.Versions
	if len(exprs) == 0 {
		exprs = mooncake.Defaults
	}
	if override != "" {
		v, err := mooncake.ParseVersion(override)
		if err != nil {
			return nil, false
		}
		for _, e := range exprs {
			if m, err := mooncake.Constraint(e).Match(v); err == nil && m {
				return []string{v.String()}, true
			}
		}
		return nil, false
	}
	seen := map[string]bool{}
	for _, e := range exprs {
		ms := matchingVersions(e)
		if len(ms) == 0 {
			continue
		}
		v := ms[len(ms)-1]
		if !seen[v] {
			seen[v] = true
			vs = append(vs, v)
		}
	}
	return vs, true
}

// AppliesToSGLang reports whether the scenario covers an SGLang release
// ("" = the newest the model follows). A release the model follows only
// where named (sglang.NamedVersions) is covered only by a scenario that
// names it exactly; constraints and an empty list cover the catalog's
// releases and any release the model does not know (real SGLang's).
func (sc *Scenario) AppliesToSGLang(release string) bool {
	if release == "" {
		release = sglang.LatestVersion
	}
	if slices.Contains(sglang.NamedVersions, release) {
		return slices.Contains(sc.SGLang.Versions, release)
	}
	if len(sc.SGLang.Versions) == 0 {
		return true
	}
	v, err := mooncake.ParseVersion(release)
	if err != nil {
		return false
	}
	for _, c := range sc.SGLang.Versions {
		if ok, err := mooncake.Constraint(c).Match(v); err == nil && ok {
			return true
		}
	}
	return false
}

// SGLangReleases are the releases the scenario runs at when the user
// pinned none, oldest first: each exact release it names, and for each
// constraint the newest release of sglang.Versions it matches. No
// sglang.versions: [""], the side's own release.
func (sc *Scenario) SGLangReleases() []string {
	if len(sc.SGLang.Versions) == 0 {
		return []string{""}
	}
	var out []string
	for _, c := range sc.SGLang.Versions {
		if _, err := mooncake.ParseVersion(c); err == nil {
			out = append(out, c)
			continue
		}
		for i := len(sglang.Versions) - 1; i >= 0; i-- {
			if ok, err := mooncake.Constraint(c).Match(mooncake.MustVersion(sglang.Versions[i])); err == nil && ok {
				out = append(out, sglang.Versions[i])
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return mooncake.MustVersion(a).Compare(mooncake.MustVersion(b)) })
	return slices.Compact(out)
}

// ExpectForSGLang is expect with the by_sglang overrides that match the
// SGLang release ("" = the newest the model follows), then the by_version
// overrides of the Mooncake version: a field both set is Mooncake's.
func ExpectForSGLang(base Expect, bv ByVersion, version string, bs BySGLang, release string) Expect {
	if release == "" {
		release = sglang.LatestVersion
	}
	return ExpectFor(ExpectFor(base, ByVersion(bs), release), bv, version)
}

// ExpectFor is expect with the by_version overrides that match version
// applied in file order.
func ExpectFor(base Expect, bv ByVersion, version string) Expect {
	v, err := mooncake.ParseVersion(version)
	if err != nil {
		return base
	}
	out := base
	for _, ve := range bv {
		if ok, err := mooncake.Constraint(ve.Constraint).Match(v); err != nil || !ok {
			continue
		}
		o := ve.Expect
		if o.OK != nil {
			out.OK = o.OK
			if *o.OK {
				out.Raises, out.Dies = nil, nil
			}
		}
		if o.Raises != nil {
			out.Raises, out.Dies = o.Raises, nil
			out.OK = nil
		}
		if o.Dies != nil {
			out.Dies, out.Raises = o.Dies, nil
			out.OK = nil
		}
		if o.Codes != nil {
			m := map[string]CodeExpect{}
			for k, c := range out.Codes {
				m[k] = c
			}
			for k, c := range o.Codes {
				m[k] = c
			}
			out.Codes = m
		}
		if o.Logs != nil {
			out.Logs = o.Logs
		}
		if o.NoLogs != nil {
			out.NoLogs = o.NoLogs
		}
		if o.Duration != nil {
			out.Duration = o.Duration
		}
		if o.Within != nil {
			out.Within = o.Within
		}
	}
	return out
}

func (d *decoder) checkNIC(n NIC) {
	for _, r := range n.RDMA {
		if r.Name == "" {
			d.at(r.Pos, "nic.rdma: name is required (e.g. mlx5_0)")
		}
		if r.MaxMR < 0 || r.LeakedMRs < 0 {
			d.at(r.Pos, "nic.rdma %s: max_mr and leaked_mrs must not be negative", r.Name)
		}
		if r.GIDs < 0 || r.GIDTableLen < 0 || r.GIDs > r.GIDTableLen {
			d.at(r.Pos, "nic.rdma %s: want 0 <= gids <= gid_tbl_len (got gids %d, gid_tbl_len %d)", r.Name, r.GIDs, r.GIDTableLen)
		}
		if r.Subnet != "" {
			if ip, _, err := net.ParseCIDR(r.Subnet); err != nil || ip.To4() == nil {
				d.at(r.Pos, "nic.rdma %s: subnet %q: want an IPv4 CIDR (e.g. 10.0.1.0/24)", r.Name, r.Subnet)
			}
		}
	}
}

// noPageIO: a storage backend whose page I/O is not modelled (the direct
// linker, the embedding store) takes only steps without it.
func (d *decoder) noPageIO(sc *Scenario) {
	steps := slices.Clone(sc.Steps)
	if sc.Remedy != nil {
		steps = append(steps, sc.Remedy.Steps...)
	}
	for _, st := range steps {
		switch st.Action {
		case StepInit, StepSleep, StepHealthCheck, StepCall, StepPut, StepFetch, StepTE, StepBench:
		default:
			d.at(st.Pos, "%s: page I/O is not modelled for storage.backend %s; steps may be init, sleep, health_check, call, put, fetch, te, bench", st.Action, sc.Storage.Backend)
		}
	}
}
