package scenarios

import (
	"net"
	"strconv"

	"github.com/mooncake-faultlab/faultlab/sglang"
)

// PD disaggregation's request that a te transfer with pd: true stands for:
// the router's bootstrap room and each side's request id (any values; the
// field's differ per request), and the decode rank's ZMQ port the prefill
// names in its failure (not the Mooncake session's port).
const (
	pdRoom          = "4242"
	pdPrefillRID    = "'5f2c1e9a0d8b4c7e9a1f3b6d2e4c8a01'"
	pdDecodeRID     = "'8b3d2f6e1a9c4d5b8e7f0a2c4b6d8e13'"
	pdDecodeZMQPort = 36565
)

// pdSendFailed prints what SGLang's PD side logs when MooncakeKVManager's
// send of a KV chunk returns non-zero, as real SGLang 0.5.14 … 0.5.23 does
// (docs/REAL-FINDINGS.md §74, sglang_pd_probe.py): the prefill's KV
// manager marks the decode's Mooncake session failed (ERROR, mooncake/
// conn.py) and records the room's failure, the prefill scheduler logs the
// request's KVTransferError (WARNING, prefill.py), and the decode, told
// the room failed, logs its own (ERROR, decode.py) - unless it is paused,
// and so hears nothing. Neither raises: the request is aborted (HTTP 500).
func (r *run) pdSendFailed(s Step, prefill, decode *teNode) {
	if decode == nil {
		return
	}
	session := decode.session()
	host, _, err := net.SplitHostPort(session)
	if err != nil {
		host = session
	}
	kvErr := func(reason string) string { return "KVTransferError(bootstrap_room=" + pdRoom + "): " + reason }
	r.tr.Log(sglangSource, sglang.LevelError, "Session "+session+" failed.")
	r.tr.Log(sglangSource, sglang.LevelWarning, "Prefill transfer failed for request rank=0 req.rid="+pdPrefillRID+" req.bootstrap_room="+pdRoom+
		" with exception "+kvErr("Failed to send kv chunk of "+pdRoom+" to "+host+":"+strconv.Itoa(pdDecodeZMQPort)))
	if !decode.paused {
		r.tr.Log(sglangSource, sglang.LevelError, "Decode transfer failed for request rank=0 decode_req.req.rid="+pdDecodeRID+" decode_req.req.bootstrap_room="+pdRoom+
			" with exception "+kvErr("Failed to get kvcache from prefill instance, it might be dead"))
	}
}
