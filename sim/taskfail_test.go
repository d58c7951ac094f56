package sim_test

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// The store's line for a failed transfer task is the shared transfer
// task's, whatever the transport (transfer_task.cpp check_task_status):
// "Transfer failed for batch B task 0 with status 6" up to v0.3.10.post1,
// "Batch B completed with task failures: task_ids=[0]" from v0.3.10.post2
// (v0.3.11.post1:306, v0.3.12.post1:791, 3b5a594:801). RDMA: the first
// warmup put of io/rdma-work-completion-error's world (its failed work
// completions; sim only, no RNIC here); TCP: io/peer-departed-stale-segment's
// first batch get after mooncake_client's SIGKILL (real 0.3.11.post1: the
// second line per key; docs/REAL-FINDINGS.md §72).
func TestTransferTaskFailedLine(t *testing.T) {
	const rdma = `name: t/rdma-task
topology:
  nodes:
    - name: tp0
      nic: {rdma: [{name: mlx5_0}]}
      hostpool: {layout: MHA, allocator: default, size: 64MiB}
config:
  env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: rdma, MOONCAKE_DEVICE: mlx5_0, MOONCAKE_GLOBAL_SEGMENT_SIZE: 1gb}
faults:
  - {at: 0s, kind: rdma, target: tp0, mode: local_protection}
steps:
  - init: tp0
expect: {ok: true}
sglang:
  versions: [">=0.5.21"]
`
	const tcp = `name: t/tcp-task
topology:
  mooncake_client: {global_segment_size: 1GiB}
config:
  env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "0"}
faults:
  - {after: step 2, at: 0s, kind: process, target: client, action: stop}
steps:
  - init: tp0
  - set: {pages: 1, want: [true]}
  - sleep: 1s
  - get: {pages: 1, want: [false]}
expect: {ok: true}
`
	task := regexp.MustCompile(`^(Transfer failed for batch|Batch \d+ completed|Transfer failed for key)`)
	for _, c := range []struct {
		name, src, version string
		want               []string // the first task lines, in order
	}{
		{"rdma put 0.3.9", rdma, "0.3.9", []string{
			"Transfer failed for batch 94528297200016 task 0 with status 6",
			"Transfer failed for batch 94528297200032 task 0 with status 6",
		}},
		{"rdma put 0.3.10.post1", rdma, "0.3.10.post1", []string{
			"Transfer failed for batch 94528297200016 task 0 with status 6",
			"Transfer failed for batch 94528297200032 task 0 with status 6",
		}},
		{"rdma put 0.3.11.post1", rdma, "0.3.11.post1", []string{
			"Batch 94528297200016 completed with task failures: task_ids=[0]",
			"Batch 94528297200032 completed with task failures: task_ids=[0]",
		}},
		{"tcp batch get 0.3.10.post1", tcp, "0.3.10.post1", []string{
			"Transfer failed for batch 94528297200016 task 0 with status 6",
			"Transfer failed for key: page0_0_k with error: -800",
			"Transfer failed for batch 94528297200032 task 0 with status 6",
			"Transfer failed for key: page0_0_v with error: -800",
		}},
		{"tcp batch get 0.3.11.post1", tcp, "0.3.11.post1", []string{
			"Batch 94528297200016 completed with task failures: task_ids=[0]",
			"Transfer failed for key: page0_0_k with error: -800",
			"Batch 94528297200032 completed with task failures: task_ids=[0]",
			"Transfer failed for key: page0_0_v with error: -800",
		}},
	} {
		sc, err := scenarios.Parse("task.yaml", []byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := scenarios.RunVersion(context.Background(), sc, sim.New(), c.version, scenarios.Options{Seed: 1})
		var got []string
		for _, l := range r.Observed.Logs {
			if task.MatchString(l) && len(got) < len(c.want) {
				got = append(got, l)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: task lines\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}
