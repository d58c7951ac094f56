package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// A node's npu and the ascend_direct build: every check names its line.
func TestLoadNPU(t *testing.T) {
	const te = "name: t/x\nsteps:\n  - te: {node: tp0, op: initialize}\nexpect: {ok: true}\n"
	for _, c := range []struct {
		name, yaml string
		want       []string
	}{
		{"npu without needs-ascend, bad fields, with a gpu",
			te + "topology:\n  nodes:\n    - name: tp0\n      gpu: {count: 1}\n      npu: {cann: 8.3, link: flapping, transfer_status: 7}\nlabels: [needs-gpu]\n",
			[]string{
				`f.yaml:9:12: topology.nodes.tp0.npu: a scenario with Ascend NPUs carries the label needs-ascend (the real engine has none to run it on)`,
				`f.yaml:9:12: topology.nodes.tp0.npu: a node runs Mooncake's CUDA or its Ascend build, not both: drop gpu or npu`,
				`f.yaml:9:12: topology.nodes.tp0.npu.cann: CANN version "8.3": want MAJOR.MINOR.RCn or MAJOR.MINOR.PATCH (8.3.RC1, 8.2.0)`,
				`f.yaml:9:12: topology.nodes.tp0.npu.transfer_status: 7 is not an adxl::Status a transfer ends in; valid: 103900, 103902, 103904, 203900, 503900`,
				`f.yaml:9:30: topology.nodes[0].npu.link: "flapping" is not one of up, down`,
			}},
		{"ascend_direct without npu, remedy npus of an unknown node",
			te + "labels: [needs-ascend]\ntopology:\n  nodes:\n    - name: tp0\n      build: [ascend_direct]\nremedy:\n  npus: {tp9: {cann: 9}}\n  expect: {ok: true}\n",
			[]string{
				`f.yaml:8:7: topology.nodes.tp0.build: ascend_direct is an Ascend build: the node needs an npu`,
				`f.yaml:11:15: remedy.npus: unknown node "tp9"; nodes: tp0`,
				`f.yaml:11:15: remedy.npus.tp9.cann: CANN version "9": want MAJOR.MINOR.RCn or MAJOR.MINOR.PATCH (8.3.RC1, 8.2.0)`,
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(c.yaml))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("want *LoadError, got %v", err)
			}
			if got := strings.Split(le.Error(), "\n"); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("errors:\n got: %q\nwant: %q", got, c.want)
			}
		})
	}
	ok := te + "labels: [needs-ascend]\ntopology:\n  nodes:\n    - name: tp0\n      build: [ascend_direct]\n      npu: {cann: 8.2.RC1, link: down, transfer_status: 503900}\nremedy:\n  npus: {tp0: {cann: 8.3.RC1}}\n  expect: {ok: true}\n"
	if _, err := Parse("f.yaml", []byte(ok)); err != nil {
		t.Errorf("valid npu: %v", err)
	}
}
