package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// Merge keys (<<: *defaults) work as yaml.v3's own decoding: own keys win,
// the first of several merged mappings wins, anchors may live under x- keys.
func TestMergeKeys(t *testing.T) {
	src := `name: t/merge
x-env: &env
  MOONCAKE_MASTER: "{{master}}"
  MOONCAKE_PROTOCOL: rdma
x-more: &more
  MOONCAKE_PROTOCOL: ignored
  MOONCAKE_DEVICE: mlx5_0
x-pool: &pool {layout: MLA, size: 16MiB}
topology:
  nodes:
    - name: tp0
      hostpool: {<<: *pool, size: 32MiB}
config:
  env:
    <<: [*env, *more]
    MOONCAKE_PROTOCOL: tcp
steps:
  - init: tp0
expect: &exp
  ok: true
remedy:
  expect:
    <<: *exp
    logs: ["Mooncake store setup successfully."]
`
	sc, err := Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for k, v := range sc.Config.Env {
		env[k] = *v
	}
	if len(env) != 3 || env["MOONCAKE_MASTER"] != "{{master}}" || env["MOONCAKE_PROTOCOL"] != "tcp" || env["MOONCAKE_DEVICE"] != "mlx5_0" {
		t.Fatalf("env %v", env)
	}
	hp := sc.Topology.Nodes[0].HostPool
	if hp.Layout != "MLA" || hp.Size != 32<<20 {
		t.Fatalf("hostpool %+v", hp)
	}
	if r := sc.Remedy.Expect; r.OK == nil || !*r.OK || strings.Join(r.Logs, "|") != "Mooncake store setup successfully." {
		t.Fatalf("remedy expect %+v", r)
	}
}

// A bad merge is refused at the <<; a mistake inside merged text at its
// own line in the anchor.
func TestMergeKeyErrors(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"scalar", validScenario + "config:\n  env:\n    <<: 3\n",
			`f.yaml:8:5: merge key <<: want a mapping or a list of mappings (e.g. <<: *defaults), got the scalar "3"`},
		{"list of a scalar", validScenario + "x-a: &a {A: b}\nconfig:\n  env:\n    <<: [*a, x]\n",
			`f.yaml:9:5: merge key <<: want a mapping or a list of mappings (e.g. <<: *defaults), got the scalar "x"`},
		{"error in the anchor", validScenario + "x-pool: &pool {sise: 1GiB}\ntopology:\n  nodes:\n    - name: tp0\n      hostpool: {<<: *pool}\n",
			`f.yaml:6:16: topology.nodes[0].hostpool: unknown key "sise" (did you mean "size"?); valid keys: allocator, builder, draft, layout, page_bytes, page_size, shares_main, size`},
	} {
		_, err := Parse("f.yaml", []byte(c.yaml))
		var le *LoadError
		if !errors.As(err, &le) || le.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
}
