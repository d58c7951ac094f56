package mooncake

// Master RPC message sizes on the wire: coro_rpc's 20-byte header plus the
// struct_pack body, request and response, counted by a logging TCP proxy
// between a real client (MooncakeDistributedStore in each installed wheel)
// and its own mooncake_master, one recv per message (docs/REAL-FINDINGS.md
// §21, 2026-11-30). Toxics that act per byte (slicer, bandwidth,
// limit_data) are only as right as these numbers.
//
// Each row was measured with: setup (P2PHANDSHAKE, tcp, segment name
// "127.0.0.1:<5 digits>"), put / is_exist / get of a 64-character key with
// a 4 KiB value, batch_put_from / batch_is_exist / batch_get_into of one
// and of four 68-character keys (BatchPutStart + BatchPutEnd,
// BatchExistKey, BatchGetReplicaList), close; the ping thread's Ping.
// Keyed requests grow by one byte per key character (the 66-character
// key's messages were 2 bytes longer at every version). ReMountSegment is the
// ping thread's remount right after setup: with no segment yet at
// 0.3.7.post2 and 0.3.8.post1 (ping thread from connect), with one at
// 0.3.9 and 0.3.13.post1 (0.3.10.post1 and 0.3.11.post1 sent none: 0.3.9's
// is used; 0.3.12.post1: 0.3.13.post1's). Not measured, taken from the RPC
// with the same arguments: PutRevoke (PutEnd's), Remove (ExistKey's).
// GetReplicaList's reply is a found key's with one memory replica (a
// missing key's is 43–54 bytes shorter). Versions between rows use the
// newest row at or below them; older ones the oldest row.

// wireRow is one version's measured {request, response} bytes, indexed by
// the w* constants.
type wireRow [wN][2]int64

const (
	wServiceReady = iota
	wGetStorageConfig
	wMountSegment
	wReMountSegment
	wUnmountSegment
	wPing
	wPutStart       // one 64-character key
	wPutEnd         // one 64-character key
	wExistKey       // one 64-character key
	wGetReplicaList // one 64-character key
	wN
)

// wireRows are the measured versions, oldest first.
var wireRows = []struct {
	version string
	row     wireRow
}{
	{"0.3.7.post2", wireRow{{20, 26}, {20, 28}, {128, 26}, {66, 26}, {72, 26}, {48, 41}, {124, 84}, {100, 26}, {93, 27}, {93, 95}}},
	{"0.3.8.post1", wireRow{{20, 33}, {20, 41}, {128, 26}, {66, 26}, {72, 26}, {48, 41}, {148, 93}, {122, 26}, {93, 27}, {93, 104}}},
	{"0.3.9", wireRow{{20, 33}, {20, 41}, {134, 26}, {136, 26}, {72, 26}, {48, 41}, {148, 108}, {122, 26}, {93, 27}, {93, 119}}},
	{"0.3.10.post1", wireRow{{20, 33}, {20, 41}, {134, 26}, {136, 26}, {72, 26}, {48, 41}, {150, 108}, {122, 26}, {93, 27}, {93, 119}}},
	{"0.3.11.post1", wireRow{{20, 33}, {20, 41}, {134, 26}, {136, 26}, {72, 26}, {48, 41}, {165, 118}, {122, 26}, {93, 27}, {93, 129}}},
	{"0.3.12.post1", wireRow{{20, 33}, {20, 41}, {137, 26}, {139, 26}, {72, 26}, {48, 41}, {183, 118}, {132, 26}, {105, 27}, {105, 129}}},
	{"0.3.13.post1", wireRow{{20, 33}, {20, 41}, {137, 26}, {139, 26}, {72, 26}, {48, 41}, {195, 126}, {137, 26}, {105, 27}, {105, 140}}},
}

// wireBatchRows: each batch RPC measured with one and with four keys of
// 68 characters, {req1, resp1, req4, resp4}: the difference is the per-key
// part (the key's length and its framing), the rest the fixed part.
var wireBatchRows = []struct {
	version string
	// BatchExistKey, BatchPutStart, BatchPutEnd, BatchGetReplicaList.
	row [4][4]int64
}{
	{"0.3.7.post2", [4][4]int64{{99, 29, 306, 35}, {132, 86, 366, 206}, {99, 28, 306, 31}, {99, 97, 306, 241}}},
	{"0.3.8.post1", [4][4]int64{{99, 29, 306, 35}, {156, 95, 387, 212}, {123, 28, 330, 31}, {99, 106, 306, 247}}},
	{"0.3.9", [4][4]int64{{99, 29, 306, 35}, {156, 110, 387, 263}, {123, 28, 330, 31}, {99, 121, 306, 298}}},
	{"0.3.10.post1", [4][4]int64{{99, 29, 306, 35}, {158, 110, 389, 263}, {123, 28, 330, 31}, {99, 121, 306, 298}}},
	{"0.3.11.post1", [4][4]int64{{99, 29, 306, 35}, {173, 120, 404, 273}, {128, 28, 335, 31}, {99, 131, 306, 308}}},
	{"0.3.12.post1", [4][4]int64{{111, 29, 318, 35}, {191, 120, 422, 273}, {138, 28, 345, 31}, {111, 131, 318, 308}}},
	{"0.3.13.post1", [4][4]int64{{111, 29, 318, 35}, {203, 128, 434, 281}, {143, 28, 353, 31}, {111, 142, 318, 322}}},
}

// wireBatchOps index wireBatchRows' columns.
var wireBatchOps = map[string]int{"BatchExistKey": 0, "BatchPutStart": 1, "BatchPutEnd": 2, "BatchGetReplicaList": 3}

const (
	wireKeyLen      = 64 // the key of the single-key RPCs measured
	wireBatchKeyLen = 68 // the keys of the batch RPCs measured
)

// The RPCs without keys, and with one key (unmeasured ones map to the
// measured RPC with the same arguments).
var (
	wireFixed = map[string]int{"ServiceReady": wServiceReady, "GetStorageConfig": wGetStorageConfig,
		"MountSegment": wMountSegment, "ReMountSegment": wReMountSegment, "UnmountSegment": wUnmountSegment, "Ping": wPing}
	wireSingleKey = map[string]int{"PutStart": wPutStart, "PutEnd": wPutEnd, "PutRevoke": wPutEnd,
		"ExistKey": wExistKey, "Remove": wExistKey, "GetReplicaList": wGetReplicaList}
)

// WireTable is one version's master RPC sizes.
type WireTable struct {
	// Measured is the row's version.
	Measured string
	row      wireRow
	batch    [4][4]int64
}

// Bytes is the request and response size of op carrying keys; ok is false
// for an RPC the table does not know.
func (t *WireTable) Bytes(op string, keys []string) (req, resp int64, ok bool) {
	if t == nil {
		return 0, 0, false
	}
	keyed := func(m [2]int64) (int64, int64, bool) {
		req := m[0] - wireKeyLen
		for _, k := range keys {
			req += int64(len(k))
		}
		return req, m[1], true
	}
	r := t.row
	if i, ok := wireFixed[op]; ok {
		return r[i][0], r[i][1], true
	}
	if i, ok := wireSingleKey[op]; ok {
		return keyed(r[i])
	}
	if i, ok := wireBatchOps[op]; ok {
		m := t.batch[i]
		perReq, perResp := (m[2]-m[0])/3, (m[3]-m[1])/3
		req, resp = m[0]-perReq, m[1]-perResp
		for _, k := range keys {
			req += perReq - wireBatchKeyLen + int64(len(k))
			resp += perResp
		}
		return req, resp, true
	}
	return 0, 0, false
}

// wireFor is the table of v: the newest measured row at or below it.
func wireFor(v Version) *WireTable {
	i := 0
	for j, r := range wireRows {
		if v.Compare(MustVersion(r.version)) >= 0 {
			i = j
		}
	}
	return &WireTable{Measured: wireRows[i].version, row: wireRows[i].row, batch: wireBatchRows[i].row}
}
