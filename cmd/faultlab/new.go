package main

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// schemaModeline makes editors with a YAML language server (VS Code's
// YAML extension, Neovim's yamlls, JetBrains) validate and complete the
// file against the scenario schema.
const schemaModeline = "# yaml-language-server: $schema=" + scenarios.SchemaID

// logConfig is what a field log says about the configuration.
type logConfig struct {
	env      map[string]string
	metadata string
	source   string // env, file, extra_config
}

var (
	reProtocol  = regexp.MustCompile(`(?:auto discovery is disabled for protocol|protocol)[:=] ?(tcp|rdma)\b`)
	reDevices   = regexp.MustCompile(`Using specified RDMA devices: ([\w,]+)`)
	reSegment   = regexp.MustCompile(`Mounting segment: (\d+) bytes`)
	reLocalBuf  = regexp.MustCompile(`Registering local memory: (\d+) bytes`)
	reSource    = regexp.MustCompile(`Mooncake Configuration loaded from (\w+) successfully`)
	reMetaHTTP  = regexp.MustCompile(`https?://[\w.\-]+:\d+/metadata`)
	reException = regexp.MustCompile(`(?m)^(?:.*\s)?([A-Z]\w*(?:Error|Exception)): (.+)$`)
	reCode      = regexp.MustCompile(`(setup|register buffer)[^,]*, error code: (-?\d+)`)
)

// configFromLog reads the config lines SGLang and Mooncake print.
func configFromLog(log string) logConfig {
	c := logConfig{env: map[string]string{"MOONCAKE_MASTER": "{{master}}"}, metadata: "P2PHANDSHAKE", source: "env"}
	if m := reProtocol.FindStringSubmatch(log); m != nil {
		c.env["MOONCAKE_PROTOCOL"] = m[1]
	} else if strings.Contains(log, "RdmaTransport") {
		c.env["MOONCAKE_PROTOCOL"] = "rdma"
	} else {
		c.env["MOONCAKE_PROTOCOL"] = "tcp"
	}
	if m := reDevices.FindStringSubmatch(log); m != nil {
		c.env["MOONCAKE_DEVICE"] = m[1]
	}
	if m := reSegment.FindStringSubmatch(log); m != nil {
		c.env["MOONCAKE_GLOBAL_SEGMENT_SIZE"] = m[1]
	}
	if m := reSource.FindStringSubmatch(log); m != nil {
		c.source = m[1]
	}
	if reMetaHTTP.MatchString(log) || strings.Contains(log, "Failed to set location of") {
		c.metadata = "http"
		c.env["MOONCAKE_TE_META_DATA_SERVER"] = "{{metadata}}"
	}
	_ = reLocalBuf // SGLang's local buffer size is not a MooncakeStore env setting
	return c
}

// node builds a YAML node from a Go value (mappings keep insertion order
// through yaml.Node, so the file reads top-down like the catalog's).
func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		v, ok := kv[i+1].(*yaml.Node)
		if !ok {
			v = &yaml.Node{}
			_ = v.Encode(kv[i+1])
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[i].(string)}, v)
	}
	return n
}

func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if v == nil {
				m.Content = slices.Delete(m.Content, i, i+2)
			} else {
				m.Content[i+1] = v
			}
			return
		}
	}
	if v != nil {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
}

// newFromLog writes a starting scenario for a field log: the world,
// faults, steps and remedy of the catalog scenario that explains it best
// (if any), the config the log's lines show, and the outcome the log ends
// in as expect.
func newFromLog(cmd *cobra.Command, cf catalogFlags, log, name, version string) ([]byte, error) {
	res, err := explainLog(cmd, cf, log, version)
	if err != nil {
		return nil, err
	}
	if version == "" {
		version = mooncake.Latest
		if len(res.Candidates) > 0 {
			version = res.Candidates[0].Version
		}
	}
	cfg := configFromLog(log)
	root := mapping("name", name)
	comment := "no catalog scenario ends like this log: add the faults that reproduce it"
	var based *scenarios.Scenario
	if len(res.Candidates) > 0 {
		catalog, err := cf.load()
		if err != nil {
			return nil, usageErr(err)
		}
		for _, sc := range catalog {
			if sc.Name == res.Candidates[0].Scenario {
				based = sc
			}
		}
	}
	summary := "Field report: " + firstLine(log)
	if based != nil {
		comment = "based on " + based.Name + " (faultlab explain's best match): " + res.Candidates[0].Cause
		src, err := scenarios.SourceOf(based)
		if err != nil {
			return nil, err
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(src, &doc); err != nil {
			return nil, fmt.Errorf("catalog %s: %w", based.Name, err)
		}
		root = doc.Content[0]
		setKey(root, "name", mapping("x", name).Content[1])
		for _, k := range []string{"refs", "by_version", "engines"} {
			setKey(root, k, nil)
		}
	}
	setKey(root, "summary", mapping("x", summary).Content[1])
	setKey(root, "labels", mapping("x", []string{"field"}).Content[1])
	setKey(root, "mooncake", mapping("versions", []string{version}))
	topo := mapping()
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "topology" {
			topo = root.Content[i+1]
		}
	}
	setKey(topo, "metadata", mapping("x", cfg.metadata).Content[1])
	setKey(root, "topology", topo)
	env := mapping()
	for _, k := range slices.Sorted(maps.Keys(cfg.env)) {
		env.Content = append(env.Content, mapping(k, cfg.env[k]).Content...)
	}
	config := mapping("env", env)
	if cfg.source != "env" {
		config.HeadComment = "the log says the config came from " + cfg.source + ": move these settings there"
	}
	setKey(root, "config", config)
	if based == nil {
		setKey(root, "steps", mapping("x", []map[string]string{{"init": "tp0"}}).Content[1])
	}
	setKey(root, "expect", expectFromLog(log, res))
	root.HeadComment = comment
	var b strings.Builder
	b.WriteString(schemaModeline + "\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("encode scenario: %w", err)
	}
	out := []byte(b.String())
	// What new writes, run must accept.
	if _, err := scenarios.Parse(name+".yaml", out); err != nil {
		return nil, fmt.Errorf("generated scenario does not load (a faultlab bug):\n%w", err)
	}
	return out, nil
}

// expectFromLog: the exception the log ends in, the code in its message,
// and the best candidate's expected lines the log has.
func expectFromLog(log string, res explain.Result) *yaml.Node {
	var kv []any
	ms := reException.FindAllStringSubmatch(log, -1)
	if len(ms) == 0 && len(res.Candidates) > 0 {
		// No traceback line (a log cut before it, or only SGLang's "An
		// error occurred while loading the configuration: <message>"):
		// the exception the best match raises, if its message is in the
		// log word for word.
		if class, msg, ok := strings.Cut(res.Candidates[0].Outcome, ": "); ok && msg != "" && strings.Contains(log, msg) {
			ms = [][]string{{"", class, msg}}
		}
	}
	if len(ms) > 0 {
		m := ms[len(ms)-1]
		kv = append(kv, "raises", mapping("class", m[1], "message", strings.TrimSpace(m[2])))
		if c := reCode.FindStringSubmatch(m[2]); c != nil {
			method := map[string]string{"setup": "setup", "register buffer": "register_buffer"}[c[1]]
			var code int
			fmt.Sscan(c[2], &code)
			kv = append(kv, "codes", mapping(method, code))
		}
	} else {
		kv = append(kv, "ok", true)
	}
	if len(res.Candidates) > 0 && len(res.Candidates[0].MatchedLogs) > 0 {
		kv = append(kv, "logs", res.Candidates[0].MatchedLogs)
	}
	return mapping(kv...)
}

func firstLine(log string) string {
	ms := reException.FindAllStringSubmatch(log, -1)
	if len(ms) > 0 {
		return ms[len(ms)-1][1] + ": " + strings.TrimSpace(ms[len(ms)-1][2])
	}
	for _, l := range strings.Split(log, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return short(l, 100)
		}
	}
	return "(empty log)"
}

func newCmd() *cobra.Command {
	var cf catalogFlags
	var fromLog, name, version, out string
	cmd := &cobra.Command{
		Use:   "new --from-log LOG",
		Short: "Write a starting scenario YAML from a field log (that `faultlab run` accepts)",
		Long: `Write a starting scenario for a field log: the world, faults, steps and
remedy of the catalog scenario that explains the log best (faultlab explain),
the config the log's config lines show (protocol, devices, segment size,
metadata service), and the exception the log ends in as expect. The file
starts with a modeline for editors' YAML language server (the JSON Schema).

` + newExitHelp,
		Example: "  faultlab new --from-log sglang.log --name field/my-bug > my-bug.yaml\n  faultlab run ./my-bug.yaml --engine sim,real --emit-expect",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := readLog(cmd, []string{fromLog})
			if err != nil {
				return err
			}
			b, err := newFromLog(cmd, cf, log, name, version)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(b)
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return fmt.Errorf("write %s: %w", out, err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: run it with faultlab run %s\n", out, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&fromLog, "from-log", "", "the field log (- = stdin)")
	cmd.Flags().StringVar(&name, "name", "field/from-log", "the new scenario's name")
	cmd.Flags().StringVar(&version, "mooncake-version", "", "the Mooncake version of the log (default: the best match's)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the YAML to this file (default: stdout)")
	markOutput(cmd, "output", outputFile)
	cmd.Flags().StringVar(&cf.dir, "catalog", "", "load the catalog from this directory instead of the built-in one")
	_ = cmd.MarkFlagRequired("from-log")
	return cmd
}
