package master

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestSummaryLineReal: the metrics summary per release, the exact lines
// real mooncake_master printed (REAL-FINDINGS §61: the starved and the
// evicting world of io/eviction-starved-leases, a run 21 s past the last
// put) from the counters it had then.
func TestSummaryLineReal(t *testing.T) {
	for _, c := range []struct {
		name, version string
		in            SummaryInput
		want          string
	}{
		{"0.3.4 start", "0.3.4", SummaryInput{Now: metrics{}, Prev: metrics{}, HasPrev: false, Elapsed: 10 * time.Second, MemUsed: 0, MemCap: 0, Keys: 0, Clients: 0},
			"Master Metrics: Storage: 0.00 B / 0.00 B | Keys: 0 | Requests (Success/Total): Put=0/0, Get=0/0, Exist=0/0, Del=0/0, DelAll=0/0,  | Eviction: Success/Attempts=0/0, keys=0, size=0.00 B"},
		{"0.3.4 starved", "0.3.4", SummaryInput{Now: metrics{putStart: 5, putStartFail: 3, putEnd: 2, get: 3, getFail: 1, evictAttempts: 634}, Prev: metrics{}, HasPrev: false, Elapsed: 10 * time.Second, MemUsed: 10485760, MemCap: 16777216, Keys: 2, Clients: 1},
			"Master Metrics: Storage: 10.00 MB / 16.00 MB (62.5%) | Keys: 2 | Requests (Success/Total): Put=4/7, Get=2/3, Exist=0/0, Del=0/0, DelAll=0/0,  | Eviction: Success/Attempts=0/634, keys=0, size=0.00 B"},
		{"0.3.6.post1 revoked puts", "0.3.6.post1", SummaryInput{Now: metrics{putStart: 5, putRevoke: 5, get: 3, getFail: 3}, Prev: metrics{}, HasPrev: false, Elapsed: 10 * time.Second, MemUsed: 0, MemCap: 16777216, Keys: 0, Clients: 1},
			"Master Metrics: Storage: 0 B / 16.00 MB (0.0%) | Keys: 0 (soft-pinned: 0) | Requests (Success/Total): PutStart=5/5, PutEnd=0/0, PutRevoke=5/5, Get=0/3, Exist=0/0, Del=0/0, DelAll=0/0,  | Batch Requests (Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0/0/0, Item=0/0), PutEnd:(Req=0/0/0, Item=0/0), PutRevoke:(Req=0/0/0, Item=0/0), Get:(Req=0/0/0, Item=0/0), ExistKey:(Req=0/0/0, Item=0/0),  | Eviction: Success/Attempts=0/0, keys=0, size=0 B"},
		{"0.3.8.post1 starved", "0.3.8.post1", SummaryInput{Now: metrics{putStart: 5, putStartFail: 2, putEnd: 3, get: 3, ping: 20, evictAttempts: 1545}, Prev: metrics{}, HasPrev: false, Elapsed: 10 * time.Second, MemUsed: 15728640, MemCap: 16777216, Keys: 3, Clients: 1},
			"Master Metrics: Mem Storage: 15.00 MB / 16.00 MB (93.8%) | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 1 | Requests (Success/Total): PutStart=3/5, PutEnd=3/3, PutRevoke=0/0, Get=3/3, Exist=0/0, Del=0/0, DelAll=0/0, Ping=20/20,  | Batch Requests (Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0/0/0, Item=0/0), PutEnd:(Req=0/0/0, Item=0/0), PutRevoke:(Req=0/0/0, Item=0/0), Get:(Req=0/0/0, Item=0/0), ExistKey:(Req=0/0/0, Item=0/0), QueryIp:(Req=0/0/0, Item=0/0), Clear:(Req=0/0/0, Item=0/0), CreateMoveTask:(Req=0/0), CreateCopyTask:(Req=0/0), QueryTask=(Req=0/0), FetchTasks=(Req=0/0), MarkTaskToComplete= (Req=0/0),  | Eviction: Success/Attempts=0/1545, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B"},
		{"0.3.9 start", "0.3.9", SummaryInput{Now: metrics{}, Prev: metrics{}, HasPrev: false, Elapsed: 10 * time.Second, MemUsed: 0, MemCap: 0, Keys: 0, Clients: 0},
			"Master Metrics: Mem Storage: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: 0 (soft-pinned: 0) | Clients: 0 | Requests (Success/Total): PutStart=0/0, PutEnd=0/0, PutRevoke=0/0, Get=0/0, Exist=0/0, Del=0/0, DelAll=0/0, Ping=0/0, CopyStart=0/0, CopyEnd=0/0, CopyRevoke=0/0, MoveStart=0/0, MoveEnd=0/0, MoveRevoke=0/0 | Batch Requests (Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0/0/0, Item=0/0), PutEnd:(Req=0/0/0, Item=0/0), PutRevoke:(Req=0/0/0, Item=0/0), Get:(Req=0/0/0, Item=0/0), ExistKey:(Req=0/0/0, Item=0/0), QueryIp:(Req=0/0/0, Item=0/0), Clear:(Req=0/0/0, Item=0/0), CreateMoveTask:(Req=0/0), CreateCopyTask:(Req=0/0), QueryTask=(Req=0/0), FetchTasks=(Req=0/0), MarkTaskToComplete= (Req=0/0),  | Eviction: Success/Attempts=0/0, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B"},
		{"0.3.9 evicted", "0.3.9", SummaryInput{Now: metrics{putStart: 5, putStartFail: 1, putEnd: 4, get: 3, ping: 10, evictSuccess: 1, evictAttempts: 1, evictedKeys: 1, evictedSize: 5242880}, Prev: metrics{}, HasPrev: false, Elapsed: 10 * time.Second, MemUsed: 15728640, MemCap: 16777216, Keys: 3, Clients: 1},
			"Master Metrics: Mem Storage: 15.00 MB / 16.00 MB (93.8%) | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 1 | Requests (Success/Total): PutStart=4/5, PutEnd=4/4, PutRevoke=0/0, Get=3/3, Exist=0/0, Del=0/0, DelAll=0/0, Ping=10/10, CopyStart=0/0, CopyEnd=0/0, CopyRevoke=0/0, MoveStart=0/0, MoveEnd=0/0, MoveRevoke=0/0 | Batch Requests (Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0/0/0, Item=0/0), PutEnd:(Req=0/0/0, Item=0/0), PutRevoke:(Req=0/0/0, Item=0/0), Get:(Req=0/0/0, Item=0/0), ExistKey:(Req=0/0/0, Item=0/0), QueryIp:(Req=0/0/0, Item=0/0), Clear:(Req=0/0/0, Item=0/0), CreateMoveTask:(Req=0/0), CreateCopyTask:(Req=0/0), QueryTask=(Req=0/0), FetchTasks=(Req=0/0), MarkTaskToComplete= (Req=0/0),  | Eviction: Success/Attempts=1/1, keys=1, size=5.00 MB | Discard: Released/Total=0/0, StagingSize=0 B"},
		{"0.3.10.post1 starved", "0.3.10.post1", SummaryInput{Now: metrics{putStart: 5, putStartFail: 2, putEnd: 3, get: 3, ping: 9, evictAttempts: 555}, Prev: metrics{}, HasPrev: false, Elapsed: 10 * time.Second, MemUsed: 15728640, MemCap: 16777216, Keys: 3, Clients: 1},
			"Master Metrics: Mem Storage: 15.00 MB / 16.00 MB (93.8%) | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 1 | Requests (Success/Total): PutStart=3/5, PutEnd=3/3, PutRevoke=0/0, Get=3/3, Exist=0/0, Del=0/0, DelAll=0/0, Ping=9/9, CopyStart=0/0, CopyEnd=0/0, CopyRevoke=0/0, MoveStart=0/0, MoveEnd=0/0, MoveRevoke=0/0, EvictDiskReplica=0/0 | Batch Requests (Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0/0/0, Item=0/0), PutEnd:(Req=0/0/0, Item=0/0), PutRevoke:(Req=0/0/0, Item=0/0), Get:(Req=0/0/0, Item=0/0), ExistKey:(Req=0/0/0, Item=0/0), QueryIp:(Req=0/0/0, Item=0/0), Clear:(Req=0/0/0, Item=0/0), CreateMoveTask:(Req=0/0), CreateCopyTask:(Req=0/0), QueryTask=(Req=0/0), FetchTasks=(Req=9/9), MarkTaskToComplete= (Req=0/0),  | Eviction: Success/Attempts=0/555, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B | Snapshots: Success=0, Fail=0"},
		{"0.3.11.post1 starved, first window", "0.3.11.post1", SummaryInput{Now: metrics{putStart: 5, putStartFail: 2, putEnd: 3, get: 3, ping: 10, evictAttempts: 554, allocFail: 2}, Prev: metrics{}, HasPrev: true, Elapsed: 10 * time.Second, MemUsed: 15728640, MemCap: 16777216, Keys: 3, Clients: 1},
			"Master Admin Metrics: role=leader, state=serving, service_ready=true, master={Mem Storage: 15.00 MB / 16.00 MB (93.8%) | NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 1 | Requests (Success/Total per sec): PutStart=0.30/0.50, PutEnd=0.30/0.30, PutRevoke=0.00/0.00, Get=0.30/0.30, Exist=0.00/0.00, Del=0.00/0.00, DelAll=0.00/0.00, Ping=1.00/1.00, CopyStart=0.00/0.00, CopyEnd=0.00/0.00, CopyRevoke=0.00/0.00, MoveStart=0.00/0.00, MoveEnd=0.00/0.00, MoveRevoke=0.00/0.00, EvictDiskReplica=0.00/0.00 | Batch Requests (per sec, Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutEnd:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutRevoke:(Req=0.00/0.00/0.00, Item=0.00/0.00), Get:(Req=0.00/0.00/0.00, Item=0.00/0.00), ExistKey:(Req=0.00/0.00/0.00, Item=0.00/0.00), QueryIp:(Req=0.00/0.00/0.00, Item=0.00/0.00), Clear:(Req=0.00/0.00/0.00, Item=0.00/0.00), CreateMoveTask:(Req=0.00/0.00), CreateCopyTask:(Req=0.00/0.00), QueryTask:(Req=0.00/0.00), FetchTasks:(Req=1.00/1.00), MarkTaskToComplete:(Req=0.00/0.00) | Eviction: Success/Attempts=0/554, AllocFail=2, keys=0, size=0 B | Mem Eviction: Success/Attempts=0/554, keys=0, size=0 B | NoF Eviction: Success/Attempts=0/0, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B | Snapshots: Success=0, Fail=0}, ha={HA Metrics Summary: last_seq=0, applied_seq=0, lag=0, pending=0, mutation_queue=0, batch_commits=0, sync_commits=0, skipped=0, checksum_fail=0, etcd_fail=0, watch_disconn=0, state=0}"},
		{"0.3.11.post1 starved, second window", "0.3.11.post1", SummaryInput{Now: metrics{putStart: 5, putStartFail: 2, putEnd: 3, get: 3, ping: 20, evictAttempts: 1524, allocFail: 2}, Prev: metrics{putStart: 5, putStartFail: 2, putEnd: 3, get: 3, ping: 10, evictAttempts: 554, allocFail: 2}, HasPrev: true, Elapsed: 10 * time.Second, MemUsed: 15728640, MemCap: 16777216, Keys: 3, Clients: 1},
			"Master Admin Metrics: role=leader, state=serving, service_ready=true, master={Mem Storage: 15.00 MB / 16.00 MB (93.8%) | NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 1 | Requests (Success/Total per sec): PutStart=0.00/0.00, PutEnd=0.00/0.00, PutRevoke=0.00/0.00, Get=0.00/0.00, Exist=0.00/0.00, Del=0.00/0.00, DelAll=0.00/0.00, Ping=1.00/1.00, CopyStart=0.00/0.00, CopyEnd=0.00/0.00, CopyRevoke=0.00/0.00, MoveStart=0.00/0.00, MoveEnd=0.00/0.00, MoveRevoke=0.00/0.00, EvictDiskReplica=0.00/0.00 | Batch Requests (per sec, Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutEnd:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutRevoke:(Req=0.00/0.00/0.00, Item=0.00/0.00), Get:(Req=0.00/0.00/0.00, Item=0.00/0.00), ExistKey:(Req=0.00/0.00/0.00, Item=0.00/0.00), QueryIp:(Req=0.00/0.00/0.00, Item=0.00/0.00), Clear:(Req=0.00/0.00/0.00, Item=0.00/0.00), CreateMoveTask:(Req=0.00/0.00), CreateCopyTask:(Req=0.00/0.00), QueryTask:(Req=0.00/0.00), FetchTasks:(Req=1.00/1.00), MarkTaskToComplete:(Req=0.00/0.00) | Eviction: Success/Attempts=0/970, AllocFail=0, keys=0, size=0 B | Mem Eviction: Success/Attempts=0/970, keys=0, size=0 B | NoF Eviction: Success/Attempts=0/0, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B | Snapshots: Success=0, Fail=0}, ha={HA Metrics Summary: last_seq=0, applied_seq=0, lag=0, pending=0, mutation_queue=0, batch_commits=0, sync_commits=0, skipped=0, checksum_fail=0, etcd_fail=0, watch_disconn=0, state=0}"},
		{"0.3.11.post1 evicted, second window", "0.3.11.post1", SummaryInput{Now: metrics{putStart: 5, putStartFail: 1, putEnd: 4, get: 3, ping: 20, evictSuccess: 1, evictAttempts: 1, evictedKeys: 1, evictedSize: 5242880, allocFail: 1}, Prev: metrics{putStart: 5, putStartFail: 1, putEnd: 4, get: 3, ping: 10, evictSuccess: 1, evictAttempts: 1, evictedKeys: 1, evictedSize: 5242880, allocFail: 1}, HasPrev: true, Elapsed: 10 * time.Second, MemUsed: 15728640, MemCap: 16777216, Keys: 3, Clients: 1},
			"Master Admin Metrics: role=leader, state=serving, service_ready=true, master={Mem Storage: 15.00 MB / 16.00 MB (93.8%) | NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 1 | Requests (Success/Total per sec): PutStart=0.00/0.00, PutEnd=0.00/0.00, PutRevoke=0.00/0.00, Get=0.00/0.00, Exist=0.00/0.00, Del=0.00/0.00, DelAll=0.00/0.00, Ping=1.00/1.00, CopyStart=0.00/0.00, CopyEnd=0.00/0.00, CopyRevoke=0.00/0.00, MoveStart=0.00/0.00, MoveEnd=0.00/0.00, MoveRevoke=0.00/0.00, EvictDiskReplica=0.00/0.00 | Batch Requests (per sec, Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutEnd:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutRevoke:(Req=0.00/0.00/0.00, Item=0.00/0.00), Get:(Req=0.00/0.00/0.00, Item=0.00/0.00), ExistKey:(Req=0.00/0.00/0.00, Item=0.00/0.00), QueryIp:(Req=0.00/0.00/0.00, Item=0.00/0.00), Clear:(Req=0.00/0.00/0.00, Item=0.00/0.00), CreateMoveTask:(Req=0.00/0.00), CreateCopyTask:(Req=0.00/0.00), QueryTask:(Req=0.00/0.00), FetchTasks:(Req=1.00/1.00), MarkTaskToComplete:(Req=0.00/0.00) | Eviction: Success/Attempts=0/0, AllocFail=0, keys=0, size=0 B | Mem Eviction: Success/Attempts=0/0, keys=0, size=0 B | NoF Eviction: Success/Attempts=0/0, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B | Snapshots: Success=0, Fail=0}, ha={HA Metrics Summary: last_seq=0, applied_seq=0, lag=0, pending=0, mutation_queue=0, batch_commits=0, sync_commits=0, skipped=0, checksum_fail=0, etcd_fail=0, watch_disconn=0, state=0}"},
		{"0.3.12.post1 starved, second window", "0.3.12.post1", SummaryInput{Now: metrics{putStart: 5, putStartFail: 2, putEnd: 3, get: 3, ping: 20, evictAttempts: 1383, allocFail: 2}, Prev: metrics{putStart: 5, putStartFail: 2, putEnd: 3, get: 3, ping: 10, evictAttempts: 517, allocFail: 2}, HasPrev: true, Elapsed: 10 * time.Second, MemUsed: 15728640, MemCap: 16777216, Keys: 3, Clients: 1},
			"Master Admin Metrics: role=leader, state=serving, service_ready=true, master={Mem Storage: 15.00 MB / 16.00 MB (93.8%) | NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 1 | Requests (Success/Total per sec): PutStart=0.00/0.00, PutEnd=0.00/0.00, PutRevoke=0.00/0.00, Get=0.00/0.00, Exist=0.00/0.00, Del=0.00/0.00, DelAll=0.00/0.00, Ping=1.00/1.00, CopyStart=0.00/0.00, CopyEnd=0.00/0.00, CopyRevoke=0.00/0.00, MoveStart=0.00/0.00, MoveEnd=0.00/0.00, MoveRevoke=0.00/0.00, EvictDiskReplica=0.00/0.00 | Batch Requests (per sec, Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutEnd:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutRevoke:(Req=0.00/0.00/0.00, Item=0.00/0.00), Get:(Req=0.00/0.00/0.00, Item=0.00/0.00), ExistKey:(Req=0.00/0.00/0.00, Item=0.00/0.00), QueryIp:(Req=0.00/0.00/0.00, Item=0.00/0.00), Clear:(Req=0.00/0.00/0.00, Item=0.00/0.00), CreateMoveTask:(Req=0.00/0.00), CreateCopyTask:(Req=0.00/0.00), QueryTask:(Req=0.00/0.00), FetchTasks:(Req=1.00/1.00), MarkTaskToComplete:(Req=0.00/0.00) | Eviction: Success/Attempts=0/1383, AllocFail=0, keys=0, size=0 B | Mem Eviction: Success/Attempts=0/1383, keys=0, size=0 B | NoF Eviction: Success/Attempts=0/0, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B | Promotion: in_flight=0, admitted=0, completed=0, failed=0, cancelled=0, expired=0, bytes=0 B, rejected(freq/wm/cap)=0/0/0 | Snapshots: Success=0, Fail=0}, ha={HA Metrics Summary: last_seq=0, applied_seq=0, lag=0, pending=0, mutation_queue=0, batch_commits=0, sync_commits=0, skipped=0, checksum_fail=0, etcd_fail=0, watch_disconn=0, state=0}"},
		{"0.3.13.post1 evicted, first window", "0.3.13.post1", SummaryInput{Now: metrics{putStart: 5, putStartFail: 1, putEnd: 4, get: 3, ping: 10, evictSuccess: 1, evictAttempts: 1, evictedKeys: 1, evictedSize: 5242880, allocFail: 1}, Prev: metrics{}, HasPrev: true, Elapsed: 10 * time.Second, MemUsed: 15728640, MemCap: 16777216, Keys: 3, Clients: 1},
			"Master Admin Metrics: role=leader, state=serving, service_ready=true, master={Mem Storage: 15.00 MB / 16.00 MB (93.8%) | NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 1 | Requests (Success/Total per sec): PutStart=0.40/0.50, PutEnd=0.40/0.40, PutRevoke=0.00/0.00, Get=0.30/0.30, Exist=0.00/0.00, Del=0.00/0.00, DelAll=0.00/0.00, Ping=1.00/1.00, CopyStart=0.00/0.00, CopyEnd=0.00/0.00, CopyRevoke=0.00/0.00, MoveStart=0.00/0.00, MoveEnd=0.00/0.00, MoveRevoke=0.00/0.00, EvictDiskReplica=0.00/0.00 | Batch Requests (per sec, Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutEnd:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutRevoke:(Req=0.00/0.00/0.00, Item=0.00/0.00), Get:(Req=0.00/0.00/0.00, Item=0.00/0.00), ExistKey:(Req=0.00/0.00/0.00, Item=0.00/0.00), QueryIp:(Req=0.00/0.00/0.00, Item=0.00/0.00), Clear:(Req=0.00/0.00/0.00, Item=0.00/0.00), CreateMoveTask:(Req=0.00/0.00), CreateCopyTask:(Req=0.00/0.00), QueryTask:(Req=0.00/0.00), FetchTasks:(Req=1.00/1.00), MarkTaskToComplete:(Req=0.00/0.00) | Eviction: Success/Attempts=1/1, AllocFail=1, PartialAlloc=0, keys=1, size=5.00 MB | Mem Eviction: Success/Attempts=1/1, keys=1, size=5.00 MB | NoF Eviction: Success/Attempts=0/0, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B | Promotion: in_flight=0, admitted=0, completed=0, failed=0, cancelled=0, expired=0, bytes=0 B, rejected(freq/wm/cap)=0/0/0 | Snapshots: Success=0, Fail=0}, ha={HA Metrics Summary: last_seq=0, applied_seq=0, lag=0, pending=0, mutation_queue=0, batch_commits=0, sync_commits=0, skipped=0, checksum_fail=0, etcd_fail=0, watch_disconn=0, state=0}"},
		{"0.3.14 start", "0.3.14", SummaryInput{Now: metrics{}, Prev: metrics{}, HasPrev: false, Elapsed: 10 * time.Second, MemUsed: 0, MemCap: 0, Keys: 0, Clients: 0},
			"Master Admin Metrics: role=leader, state=serving, service_ready=true, master={Mem Storage: 0 B / 0 B | NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: 0 (soft-pinned: 0) | Clients: 0 | Requests (Success/Total per sec): PutStart=0.00/0.00, PutEnd=0.00/0.00, PutRevoke=0.00/0.00, Get=0.00/0.00, Exist=0.00/0.00, Del=0.00/0.00, DelAll=0.00/0.00, Ping=0.00/0.00, CopyStart=0.00/0.00, CopyEnd=0.00/0.00, CopyRevoke=0.00/0.00, MoveStart=0.00/0.00, MoveEnd=0.00/0.00, MoveRevoke=0.00/0.00, EvictDiskReplica=0.00/0.00 | Batch Requests (per sec, Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutEnd:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutRevoke:(Req=0.00/0.00/0.00, Item=0.00/0.00), Get:(Req=0.00/0.00/0.00, Item=0.00/0.00), ExistKey:(Req=0.00/0.00/0.00, Item=0.00/0.00), QueryIp:(Req=0.00/0.00/0.00, Item=0.00/0.00), Clear:(Req=0.00/0.00/0.00, Item=0.00/0.00), CreateMoveTask:(Req=0.00/0.00), CreateCopyTask:(Req=0.00/0.00), QueryTask:(Req=0.00/0.00), FetchTasks:(Req=0.00/0.00), MarkTaskToComplete:(Req=0.00/0.00) | Eviction: Success/Attempts=0/0, AllocFail=0, PartialAlloc=0, keys=0, size=0 B | Mem Eviction: Success/Attempts=0/0, keys=0, size=0 B | NoF Eviction: Success/Attempts=0/0, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B | Promotion: in_flight=0, admitted=0, completed=0, failed=0, cancelled=0, expired=0, bytes=0 B, rejected(freq/wm/cap)=0/0/0}, ha={HA Metrics Summary: last_seq=0, applied_seq=0, lag=0, pending=0, mutation_queue=0, batch_commits=0, sync_commits=0, skipped=0, checksum_fail=0, etcd_fail=0, watch_disconn=0, state=0, writer_accepting=false, writer_retry_count=0, writer_retry_delay_ms=0, writer_waiting_slots=0, writer_committed_queue=0, writer_callback_queue=0, writer_durable_batch=0, writer_durable_seq=0, writer_last_error=0}"},
		{"0.3.14 evicted, second window", "0.3.14", SummaryInput{Now: metrics{putStart: 5, putStartFail: 1, putEnd: 4, get: 3, ping: 20, evictSuccess: 1, evictAttempts: 1, evictedKeys: 1, evictedSize: 5242880, allocFail: 1}, Prev: metrics{putStart: 5, putStartFail: 1, putEnd: 4, get: 3, ping: 10, evictSuccess: 1, evictAttempts: 1, evictedKeys: 1, evictedSize: 5242880, allocFail: 1}, HasPrev: true, Elapsed: 10 * time.Second, MemUsed: 15728640, MemCap: 16777216, Keys: 3, Clients: 1},
			"Master Admin Metrics: role=leader, state=serving, service_ready=true, master={Mem Storage: 15.00 MB / 16.00 MB (93.8%) | NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 1 | Requests (Success/Total per sec): PutStart=0.00/0.00, PutEnd=0.00/0.00, PutRevoke=0.00/0.00, Get=0.00/0.00, Exist=0.00/0.00, Del=0.00/0.00, DelAll=0.00/0.00, Ping=1.00/1.00, CopyStart=0.00/0.00, CopyEnd=0.00/0.00, CopyRevoke=0.00/0.00, MoveStart=0.00/0.00, MoveEnd=0.00/0.00, MoveRevoke=0.00/0.00, EvictDiskReplica=0.00/0.00 | Batch Requests (per sec, Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutEnd:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutRevoke:(Req=0.00/0.00/0.00, Item=0.00/0.00), Get:(Req=0.00/0.00/0.00, Item=0.00/0.00), ExistKey:(Req=0.00/0.00/0.00, Item=0.00/0.00), QueryIp:(Req=0.00/0.00/0.00, Item=0.00/0.00), Clear:(Req=0.00/0.00/0.00, Item=0.00/0.00), CreateMoveTask:(Req=0.00/0.00), CreateCopyTask:(Req=0.00/0.00), QueryTask:(Req=0.00/0.00), FetchTasks:(Req=1.00/1.00), MarkTaskToComplete:(Req=0.00/0.00) | Eviction: Success/Attempts=1/1, AllocFail=0, PartialAlloc=0, keys=1, size=5.00 MB | Mem Eviction: Success/Attempts=1/1, keys=1, size=5.00 MB | NoF Eviction: Success/Attempts=0/0, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B | Promotion: in_flight=0, admitted=0, completed=0, failed=0, cancelled=0, expired=0, bytes=0 B, rejected(freq/wm/cap)=0/0/0}, ha={HA Metrics Summary: last_seq=0, applied_seq=0, lag=0, pending=0, mutation_queue=0, batch_commits=0, sync_commits=0, skipped=0, checksum_fail=0, etcd_fail=0, watch_disconn=0, state=0, writer_accepting=false, writer_retry_count=0, writer_retry_delay_ms=0, writer_waiting_slots=0, writer_committed_queue=0, writer_callback_queue=0, writer_durable_batch=0, writer_durable_seq=0, writer_last_error=0}"}} {
		t.Run(c.name, func(t *testing.T) {
			got := SummaryLine(mooncake.MustVersion(c.version), c.in)
			if got != c.want {
				t.Errorf("SummaryLine(%s):\n got %s\nwant %s", c.version, got, c.want)
			}
		})
	}
}

func TestByteSizeToString(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.00 KB", 5 << 20: "5.00 MB", 15 << 20: "15.00 MB", 3 << 30: "3.00 GB", 1 << 40: "1.00 TB"} {
		if got := byteSizeToString(n); got != want {
			t.Errorf("byteSizeToString(%d) = %q, want %q", n, got, want)
		}
	}
	if got := formatBytesV034(0); got != "0.00 B" {
		t.Errorf("formatBytesV034(0) = %q, want 0.00 B", got)
	}
}

type tclock struct{ t time.Duration }

func (c *tclock) Now() time.Duration { return c.t }

// TestSummaryStarvedCounts: a store full of leased objects after a failed
// PutStart: each 10 ms pass is an attempt that frees nothing, counted at
// the summary's tick, not at the RPC that found it due.
func TestSummaryStarvedCounts(t *testing.T) {
	ctx := context.Background()
	p := mooncake.MustProfile("0.3.9")
	cfg, err := ConfigFor(p, map[string]string{"default_kv_lease_ttl": "60000"})
	if err != nil {
		t.Fatal(err)
	}
	clk := &tclock{}
	var lines []string
	m := New(cfg, clk, mlog.Func(func(_, text string) {
		if strings.HasPrefix(text, "Master Metrics: ") {
			lines = append(lines, text)
		}
	}), rng.Stream(1, "master"))
	id := UUID{Hi: 1, Lo: 2}
	if err := m.MountSegment(ctx, Segment{ID: UUID{Lo: 9}, Name: "h:1", Base: 0x1000, Size: 16 << 20, TEEndpoint: "h:1"}, id); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kv0", "kv1", "kv2"} {
		if _, err := m.PutStart(ctx, k, 5<<20, ReplicateConfig{ReplicaNum: 1}); err != nil {
			t.Fatal(err)
		}
		if err := m.PutEnd(ctx, k); err != nil {
			t.Fatal(err)
		}
		if _, err := m.GetReplicaList(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	clk.t = time.Second
	if _, err := m.PutStart(ctx, "kv3", 5<<20, ReplicateConfig{ReplicaNum: 1}); err == nil {
		t.Fatal("kv3: want NO_AVAILABLE_HANDLE")
	}
	// One ping 10.5 s in: the 10 s tick's summary counts the passes from
	// 1 s to 10 s (900), not those up to the ping.
	clk.t = 10*time.Second + 500*time.Millisecond
	if _, err := m.Ping(ctx, id); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("summaries = %d, want 2 (start, 10 s): %q", len(lines), lines)
	}
	const want = "Master Metrics: Mem Storage: 15.00 MB / 16.00 MB (93.8%) | SSD Storage: 0 B / 0 B | Keys: 3 (soft-pinned: 0) | Clients: 0 | Requests (Success/Total): PutStart=3/4, PutEnd=3/3, PutRevoke=0/0, Get=3/3, Exist=0/0, Del=0/0, DelAll=0/0, Ping=0/0, CopyStart=0/0, CopyEnd=0/0, CopyRevoke=0/0, MoveStart=0/0, MoveEnd=0/0, MoveRevoke=0/0 | Batch Requests (Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=0/0/0, Item=0/0), PutEnd:(Req=0/0/0, Item=0/0), PutRevoke:(Req=0/0/0, Item=0/0), Get:(Req=0/0/0, Item=0/0), ExistKey:(Req=0/0/0, Item=0/0), QueryIp:(Req=0/0/0, Item=0/0), Clear:(Req=0/0/0, Item=0/0), CreateMoveTask:(Req=0/0), CreateCopyTask:(Req=0/0), QueryTask=(Req=0/0), FetchTasks=(Req=0/0), MarkTaskToComplete= (Req=0/0),  | Eviction: Success/Attempts=0/900, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B"
	if lines[1] != want {
		t.Errorf("10 s summary:\n got %s\nwant %s", lines[1], want)
	}
}
