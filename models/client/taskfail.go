package client

import "github.com/mooncake-faultlab/faultlab/models/mlog"

// transferTaskFailed is the store's transfer task seeing its one task
// failed, whatever the transport (TransferEngineOperationState::
// check_task_status, transfer_task.cpp): up to v0.3.10.post1 "Transfer
// failed for batch B task 0 with status 6" at ERROR (:249); from
// v0.3.10.post2 that line is VLOG(1) and, once every task is terminal,
// "Batch B completed with task failures: task_ids=[0]" at ERROR
// (v0.3.10.post2:282, v0.3.11.post1:306, v0.3.12.post1:791, 3b5a594:801).
// Real 0.3.11.post1 over TCP, a refused connect per key
// (io/peer-departed-stale-segment) and 0.3.13.post1, 0.3.14 at a status
// frame deadline print the second (docs/REAL-FINDINGS.md §72).
func (c *RealClient) transferTaskFailed() {
	c.batches++
	id := transferBatchBase + c.batches*16
	if c.p.TransferBatchFailLogged {
		c.logf(mlog.Error, "Transfer failed for batch %d task 0 with status %d", id, transferStatusFailed)
		return
	}
	c.logf(mlog.Error, "Batch %d completed with task failures: task_ids=[0]", id)
}
