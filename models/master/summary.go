package master

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// MetricReportPeriod is kMetricReportIntervalSeconds: with
// --enable_metric_reporting (default true) the master logs its metrics
// summary at start and every 10 s after (rpc_service.cpp v0.3.4 … v0.3.11.post1,
// master_admin_service.cpp v0.3.12 … 3b5a594; real 0.3.4 … 0.3.14).
const MetricReportPeriod = 10 * time.Second

// metrics is MasterMetricManager's counters the summary prints (the ones
// the model's RPCs move; every other counter of the line is 0 here).
type metrics struct {
	putStart, putStartFail, putEnd, putEndFail, putRevoke, putRevokeFail int64
	get, getFail, exist, existFail, del, delFail, ping                   int64
	// batchPutStart, batchExist: BatchPutStart's and BatchExistKey's
	// requests and items (a key that does not exist is not a failure).
	batchPutStart, batchExist batchCounter
	// evictSuccess/evictAttempts/evictedKeys/evictedSize are
	// inc_eviction_success / inc_eviction_fail (BatchEvict, once a pass).
	evictSuccess, evictAttempts, evictedKeys, evictedSize int64
	// allocFail is put_start_alloc_failures_ (v0.3.11+): a PutStart whose
	// replicas found no space.
	allocFail int64
}

// batchCounter is one batch RPC's counters: requests, failed (every item
// failed), partial successes, items and failed items.
type batchCounter struct{ req, fail, partial, items, failedItems int64 }

// summaryState is the report thread: when it last reported and, from
// v0.3.11, the snapshot its window rates are taken against.
type summaryState struct {
	enabled  bool
	last     time.Duration // the last report's time
	started  bool
	prev     metrics
	prevAt   time.Duration
	havePrev bool
	// batchFailed counts the failed keys of each BatchPutStart in flight.
	batchFailed map[string]int64
}

// SummaryInput is what one report reads: the counters, the gauges and, for
// the window rates of v0.3.11+, the previous report's counters and the
// time since (hasPrev false on the first report: every rate and delta 0).
type SummaryInput struct {
	Now, Prev       metrics
	HasPrev         bool
	Elapsed         time.Duration
	MemUsed, MemCap int64
	Keys, Clients   int
}

// reportDue logs the summaries due by t: the first at the master's start,
// then every MetricReportPeriod. The counters are those of the report's
// tick (catchUp runs the eviction passes up to each tick first).
func (m *Master) reportDue(t time.Duration) {
	s := &m.summary
	if !s.enabled {
		return
	}
	if !s.started {
		s.started = true
		s.last = t
		m.report(t)
		return
	}
	for s.last+MetricReportPeriod <= t {
		s.last += MetricReportPeriod
		m.evictUntil(s.last)
		m.report(s.last)
	}
}

// nextReport is when the next summary is due (ok false: none).
func (m *Master) nextReport() (time.Duration, bool) {
	if !m.summary.enabled || !m.summary.started {
		return 0, false
	}
	return m.summary.last + MetricReportPeriod, true
}

func (m *Master) report(at time.Duration) {
	s := &m.summary
	used, total := m.capacity()
	in := SummaryInput{Now: m.metrics, Prev: s.prev, HasPrev: s.havePrev, Elapsed: at - s.prevAt,
		MemUsed: used, MemCap: total, Keys: len(m.objects), Clients: len(m.okClients)}
	m.log.Log("INFO", SummaryLine(m.cfg.Version.Version, in))
	// get_summary_string_and_update_snapshot (v0.3.11+).
	s.prev, s.prevAt, s.havePrev = m.metrics, at, true
}

// SummaryLine is the report thread's line at version v: up to 0.3.10.x
// "Master Metrics: " + get_summary_string(); from 0.3.11 "Master Admin
// Metrics: role=…, master={…}, ha={…}" with request rates per second of
// the window and AllocFail (and, 0.3.11.x only, the eviction counters) as
// the window's deltas (master_metric_manager.cpp at each tag; the exact
// lines of real 0.3.4, 0.3.6.post1, 0.3.8.post1, 0.3.9, 0.3.10.post1,
// 0.3.11.post1, 0.3.12.post1, 0.3.13.post1, 0.3.14: REAL-FINDINGS §61).
func SummaryLine(v mooncake.Version, in SummaryInput) string {
	at := v.AtLeast
	if !at("0.3.11") {
		return "Master Metrics: " + summaryOld(at, in)
	}
	ha := "HA Metrics Summary: last_seq=0, applied_seq=0, lag=0, pending=0, mutation_queue=0, batch_commits=0, sync_commits=0, skipped=0, checksum_fail=0, etcd_fail=0, watch_disconn=0, state=0"
	if at("0.3.14") {
		ha += ", writer_accepting=false, writer_retry_count=0, writer_retry_delay_ms=0, writer_waiting_slots=0, writer_committed_queue=0, writer_callback_queue=0, writer_durable_batch=0, writer_durable_seq=0, writer_last_error=0"
	}
	return "Master Admin Metrics: role=leader, state=serving, service_ready=true, master={" + summaryWindowed(at, in) + "}, ha={" + ha + "}"
}

// summaryOld is get_summary_string up to v0.3.10.post2: cumulative counts.
func summaryOld(at func(string) bool, in SummaryInput) string {
	c := in.Now
	bs := byteSizeToString
	if !at("0.3.6") {
		bs = formatBytesV034
	}
	var b strings.Builder
	mem := "Storage: "
	if at("0.3.7.post2") {
		mem = "Mem Storage: "
	}
	b.WriteString(mem + bs(in.MemUsed) + " / " + bs(in.MemCap))
	if in.MemCap > 0 {
		fmt.Fprintf(&b, " (%.1f%%)", float64(in.MemUsed)/float64(in.MemCap)*100)
	}
	if at("0.3.7.post2") {
		b.WriteString(" | SSD Storage: 0 B / 0 B")
	}
	fmt.Fprintf(&b, " | Keys: %d", in.Keys)
	if at("0.3.5") {
		b.WriteString(" (soft-pinned: 0)")
	}
	// Up to 0.3.7.x Clients and Ping are printed only with --enable_ha,
	// which the model's summary does not cover.
	if at("0.3.8") {
		fmt.Fprintf(&b, " | Clients: %d", in.Clients)
	}
	b.WriteString(" | Requests (Success/Total): ")
	pair := func(name string, total, fail int64) { fmt.Fprintf(&b, "%s=%d/%d, ", name, total-fail, total) }
	if !at("0.3.6") {
		fmt.Fprintf(&b, "Put=%d/%d, ", c.putStart-c.putStartFail+c.putEnd-c.putEndFail, c.putStart+c.putEnd)
	} else {
		pair("PutStart", c.putStart, c.putStartFail)
		pair("PutEnd", c.putEnd, c.putEndFail)
		pair("PutRevoke", c.putRevoke, c.putRevokeFail)
	}
	pair("Get", c.get, c.getFail)
	pair("Exist", c.exist, c.existFail)
	pair("Del", c.del, c.delFail)
	b.WriteString("DelAll=0/0, ")
	if at("0.3.8") {
		pair("Ping", c.ping, 0)
	}
	if at("0.3.9") {
		b.WriteString("CopyStart=0/0, CopyEnd=0/0, CopyRevoke=0/0, MoveStart=0/0, MoveEnd=0/0, MoveRevoke=0/0")
		if at("0.3.10") {
			b.WriteString(", EvictDiskReplica=0/0")
		}
	}
	if at("0.3.6") {
		bp := c.batchPutStart
		fmt.Fprintf(&b, " | Batch Requests (Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=%d/%d/%d, Item=%d/%d), ",
			bp.req-bp.fail-bp.partial, bp.partial, bp.req, bp.items-bp.failedItems, bp.items)
		be := c.batchExist
		fmt.Fprintf(&b, "PutEnd:(Req=0/0/0, Item=0/0), PutRevoke:(Req=0/0/0, Item=0/0), Get:(Req=0/0/0, Item=0/0), ExistKey:(Req=%d/0/%d, Item=%d/%d), ",
			be.req, be.req, be.items, be.items)
		if at("0.3.8") {
			b.WriteString("QueryIp:(Req=0/0/0, Item=0/0), Clear:(Req=0/0/0, Item=0/0), ")
		}
		if at("0.3.8.post1") {
			// From 0.3.10 the client's ping thread also calls FetchTasks
			// once a ping (real 0.3.10.post1: FetchTasks=(Req=9/9) beside
			// Ping=9/9).
			fetch := int64(0)
			if at("0.3.10") {
				fetch = c.ping
			}
			fmt.Fprintf(&b, "CreateMoveTask:(Req=0/0), CreateCopyTask:(Req=0/0), QueryTask=(Req=0/0), FetchTasks=(Req=%d/%d), MarkTaskToComplete= (Req=0/0), ", fetch, fetch)
		}
	}
	fmt.Fprintf(&b, " | Eviction: Success/Attempts=%d/%d, keys=%d, size=%s", c.evictSuccess, c.evictAttempts, c.evictedKeys, bs(c.evictedSize))
	if at("0.3.8") {
		b.WriteString(" | Discard: Released/Total=0/0, StagingSize=0 B")
	}
	if at("0.3.10") {
		b.WriteString(" | Snapshots: Success=0, Fail=0")
	}
	return b.String()
}

// since is c's counts since p, field by field, never below 0.
func (c metrics) since(p metrics) metrics {
	d := func(a, b int64) int64 { return max(a-b, 0) }
	bd := func(a, b batchCounter) batchCounter {
		return batchCounter{d(a.req, b.req), d(a.fail, b.fail), d(a.partial, b.partial), d(a.items, b.items), d(a.failedItems, b.failedItems)}
	}
	return metrics{
		putStart: d(c.putStart, p.putStart), putStartFail: d(c.putStartFail, p.putStartFail),
		putEnd: d(c.putEnd, p.putEnd), putEndFail: d(c.putEndFail, p.putEndFail),
		putRevoke: d(c.putRevoke, p.putRevoke), putRevokeFail: d(c.putRevokeFail, p.putRevokeFail),
		get: d(c.get, p.get), getFail: d(c.getFail, p.getFail), exist: d(c.exist, p.exist), existFail: d(c.existFail, p.existFail),
		del: d(c.del, p.del), delFail: d(c.delFail, p.delFail), ping: d(c.ping, p.ping),
		batchPutStart: bd(c.batchPutStart, p.batchPutStart), batchExist: bd(c.batchExist, p.batchExist),
		evictSuccess: d(c.evictSuccess, p.evictSuccess), evictAttempts: d(c.evictAttempts, p.evictAttempts),
		evictedKeys: d(c.evictedKeys, p.evictedKeys), evictedSize: d(c.evictedSize, p.evictedSize),
		allocFail: d(c.allocFail, p.allocFail),
	}
}

// summaryWindowed is get_summary_string_and_update_snapshot from v0.3.11:
// request rates over the window since the previous report (none before
// the first: every rate and delta 0).
func summaryWindowed(at func(string) bool, in SummaryInput) string {
	var w metrics
	if in.HasPrev {
		w = in.Now.since(in.Prev)
	}
	rate := func(n int64) string {
		secs := in.Elapsed.Seconds()
		if !in.HasPrev || secs <= 0 {
			return "0.00"
		}
		return strconv.FormatFloat(float64(n)/secs, 'f', 2, 64)
	}
	var b strings.Builder
	b.WriteString("Mem Storage: " + byteSizeToString(in.MemUsed) + " / " + byteSizeToString(in.MemCap))
	if in.MemCap > 0 {
		fmt.Fprintf(&b, " (%.1f%%)", float64(in.MemUsed)/float64(in.MemCap)*100)
	}
	fmt.Fprintf(&b, " | NVMe-oF SSD: 0 B / 0 B | SSD Storage: 0 B / 0 B | Keys: %d (soft-pinned: 0) | Clients: %d", in.Keys, in.Clients)
	b.WriteString(" | Requests (Success/Total per sec): ")
	pair := func(name string, total, fail int64) {
		fmt.Fprintf(&b, "%s=%s/%s, ", name, rate(total-fail), rate(total))
	}
	pair("PutStart", w.putStart, w.putStartFail)
	pair("PutEnd", w.putEnd, w.putEndFail)
	pair("PutRevoke", w.putRevoke, w.putRevokeFail)
	pair("Get", w.get, w.getFail)
	pair("Exist", w.exist, w.existFail)
	pair("Del", w.del, w.delFail)
	b.WriteString("DelAll=0.00/0.00, ")
	pair("Ping", w.ping, 0)
	b.WriteString("CopyStart=0.00/0.00, CopyEnd=0.00/0.00, CopyRevoke=0.00/0.00, MoveStart=0.00/0.00, MoveEnd=0.00/0.00, MoveRevoke=0.00/0.00, EvictDiskReplica=0.00/0.00")
	bp := w.batchPutStart
	fmt.Fprintf(&b, " | Batch Requests (per sec, Req=Success/PartialSuccess/Total, Item=Success/Total): PutStart:(Req=%s/%s/%s, Item=%s/%s), ",
		rate(bp.req-bp.fail-bp.partial), rate(bp.partial), rate(bp.req), rate(bp.items-bp.failedItems), rate(bp.items))
	eReq, eItems := rate(w.batchExist.req), rate(w.batchExist.items)
	fmt.Fprintf(&b, "PutEnd:(Req=0.00/0.00/0.00, Item=0.00/0.00), PutRevoke:(Req=0.00/0.00/0.00, Item=0.00/0.00), Get:(Req=0.00/0.00/0.00, Item=0.00/0.00), ExistKey:(Req=%s/0.00/%s, Item=%s/%s), QueryIp:(Req=0.00/0.00/0.00, Item=0.00/0.00), Clear:(Req=0.00/0.00/0.00, Item=0.00/0.00), ",
		eReq, eReq, eItems, eItems)
	fetch := rate(w.ping)
	fmt.Fprintf(&b, "CreateMoveTask:(Req=0.00/0.00), CreateCopyTask:(Req=0.00/0.00), QueryTask:(Req=0.00/0.00), FetchTasks:(Req=%s/%s), MarkTaskToComplete:(Req=0.00/0.00)", fetch, fetch)
	// 0.3.11.x prints the eviction counters as the window's deltas; from
	// 0.3.12 they are cumulative (the comment at v0.3.12's line: "eviction
	// totals are used to track long-running pressure").
	ev := w
	if at("0.3.12") {
		ev = in.Now
	}
	fmt.Fprintf(&b, " | Eviction: Success/Attempts=%d/%d, AllocFail=%d, ", ev.evictSuccess, ev.evictAttempts, w.allocFail)
	if at("0.3.13") {
		b.WriteString("PartialAlloc=0, ")
	}
	fmt.Fprintf(&b, "keys=%d, size=%s", ev.evictedKeys, byteSizeToString(ev.evictedSize))
	// Every eviction of the model is of memory replicas (no NVMe-oF tier).
	fmt.Fprintf(&b, " | Mem Eviction: Success/Attempts=%d/%d, keys=%d, size=%s", ev.evictSuccess, ev.evictAttempts, ev.evictedKeys, byteSizeToString(ev.evictedSize))
	b.WriteString(" | NoF Eviction: Success/Attempts=0/0, keys=0, size=0 B | Discard: Released/Total=0/0, StagingSize=0 B")
	if at("0.3.12") {
		b.WriteString(" | Promotion: in_flight=0, admitted=0, completed=0, failed=0, cancelled=0, expired=0, bytes=0 B, rejected(freq/wm/cap)=0/0/0")
	}
	// The 0.3.14 wheel's line has no Snapshots section (real 0.3.14).
	if !at("0.3.14") {
		b.WriteString(" | Snapshots: Success=0, Fail=0")
	}
	return b.String()
}

// byteSizeToString is utils.h byte_size_to_string (v0.3.6+): below 1 KiB
// an integer and " B", else two decimals of KB, MB, GB or TB.
func byteSizeToString(n int64) string {
	return scaledBytes(n, []string{"B", "KB", "MB", "GB", "TB"}, true)
}

// formatBytesV034 is get_summary_string's own format_bytes up to v0.3.5:
// two decimals also below 1 KiB ("0.00 B"), no TB.
func formatBytesV034(n int64) string {
	return scaledBytes(n, []string{"B", "KB", "MB", "GB"}, false)
}

// scaledBytes divides n by 1024 while a larger unit is left and it is at
// least 1024, and prints two decimals (an integer of bytes if wholeBytes).
func scaledBytes(n int64, units []string, wholeBytes bool) string {
	f, u := float64(n), 0
	for u+1 < len(units) && f >= 1024 {
		f /= 1024
		u++
	}
	if u == 0 && wholeBytes {
		return strconv.FormatInt(n, 10) + " B"
	}
	return strconv.FormatFloat(f, 'f', 2, 64) + " " + units[u]
}

// countBatchPutStart counts one key of a BatchPutStart: its item, and at
// its last key the request (failed when every key failed, a partial
// success when some did).
func (m *Master) countBatchPutStart(b BatchPos, failed bool) {
	s := &m.summary
	if s.batchFailed == nil {
		s.batchFailed = map[string]int64{}
	}
	bc := &m.metrics.batchPutStart
	if b.Index == 0 {
		s.batchFailed[b.ID] = 0
	}
	bc.items++
	if failed {
		bc.failedItems++
		s.batchFailed[b.ID]++
	}
	if b.Index == b.N-1 {
		bc.req++
		switch n := s.batchFailed[b.ID]; {
		case n == int64(b.N):
			bc.fail++
		case n > 0:
			bc.partial++
		}
		delete(s.batchFailed, b.ID)
	}
}
