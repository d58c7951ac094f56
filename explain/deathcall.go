package explain

import (
	"regexp"
	"strings"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// reFaultFrame is a frame of Python's faulthandler dump of a fatal signal,
// innermost first: `  File "/…/conn.py", line 687 in _send_kvcache_generic`
// (a traceback's frame has a comma, "line 687, in f", and is no death).
var reFaultFrame = regexp.MustCompile(`^\s*File "([^"]+)", line \d+ in (\w+)\s*$`)

// reFaultThread opens one thread's frames ("Current thread 0x… (most
// recent call first):" for the thread that took the signal).
var reFaultThread = regexp.MustCompile(`^(Current thread|Thread) 0x[0-9a-fA-F]+ .*\(most recent call first\):`)

// pyCallKinds: the functions of Mooncake's Python callers that make one
// kind of Mooncake call (scenarios.CallKind), the innermost Python frame
// while it runs. SGLang's HiCache store (mem_cache/storage/mooncake_store/
// mooncake_store.py: warmup's first call is put), its PD transfer engine
// wrapper and KV manager (disaggregation/mooncake/transfer_engine.py,
// conn.py), vLLM's and LMCache's Mooncake connectors, Mooncake's own
// wrappers: the binding's method names themselves too.
var pyCallKinds = map[string]string{
	"__init__": scenarios.CallSetup, "initialize": scenarios.CallSetup, "setup": scenarios.CallSetup, "init_engine": scenarios.CallSetup,
	"register_mem_pool_host": scenarios.CallRegister, "register_buffer": scenarios.CallRegister, "register": scenarios.CallRegister,
	"batch_register": scenarios.CallRegister, "register_buffer_to_engine": scenarios.CallRegister, "register_memory": scenarios.CallRegister,
	"warmup": scenarios.CallPut, "batch_set": scenarios.CallPut, "batch_set_v1": scenarios.CallPut, "_put_batch_zero_copy_impl": scenarios.CallPut,
	"set": scenarios.CallPut, "put": scenarios.CallPut, "batch_put": scenarios.CallPut, "batch_put_from": scenarios.CallPut, "put_from": scenarios.CallPut,
	"batched_put": scenarios.CallPut,
	"batch_get":   scenarios.CallGet, "batch_get_v1": scenarios.CallGet, "_get_batch_zero_copy_impl": scenarios.CallGet, "get": scenarios.CallGet,
	"batch_get_into": scenarios.CallGet, "get_into": scenarios.CallGet, "batched_get": scenarios.CallGet,
	"exists": scenarios.CallExist, "batch_exists": scenarios.CallExist, "_batch_exist": scenarios.CallExist, "batch_is_exist": scenarios.CallExist, "is_exist": scenarios.CallExist,
	"transfer_sync": scenarios.CallTransfer, "batch_transfer_sync": scenarios.CallTransfer, "transfer_sync_write": scenarios.CallTransfer,
	"batch_transfer_sync_write": scenarios.CallTransfer, "send_kvcache": scenarios.CallTransfer, "_send_kvcache_generic": scenarios.CallTransfer,
	"send_kvcache_slice": scenarios.CallTransfer, "process_layer": scenarios.CallTransfer, "send_aux": scenarios.CallTransfer, "transfer_worker": scenarios.CallTransfer,
}

// deathCall is the kind of Mooncake call the log's process died in, and
// the frame that says so: the innermost faulthandler frame in a file of a
// Mooncake caller (its path names mooncake) whose function pyCallKinds
// knows, in the thread that took the signal when the dump names it, else
// in the first thread that has one. "" when no frame says.
func deathCall(log string) (kind, frame string) {
	var first, current string
	var firstKind, currentKind string
	inCurrent, seen := false, false // seen: this thread's innermost caller frame is taken
	for _, l := range strings.Split(log, "\n") {
		if m := reFaultThread.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			inCurrent, seen = m[1] == "Current thread", false
			continue
		}
		m := reFaultFrame.FindStringSubmatch(l)
		if m == nil || seen || !strings.Contains(strings.ToLower(m[1]), "mooncake") {
			continue
		}
		k, ok := pyCallKinds[m[2]]
		if !ok {
			continue
		}
		seen = true
		f := m[2] + " (" + m[1][strings.LastIndex(m[1], "/")+1:] + ")"
		switch {
		case inCurrent && current == "":
			current, currentKind = f, k
		case first == "":
			first, firstKind = f, k
		}
	}
	if current != "" {
		return currentKind, current
	}
	return firstKind, first
}

// sameDeath reports whether a process that died in a call of kind log can
// be one that dies in a call of kind world: the same kind, or a data
// transfer either way - a PD caller's TransferEngine transfer and a
// store's put or get move data through the same transfer engine, so the
// cause is the same and only the caller differs.
func sameDeath(world, log string) bool {
	data := func(k string) bool {
		return k == scenarios.CallPut || k == scenarios.CallGet || k == scenarios.CallTransfer
	}
	return world == log || (data(world) && data(log) && (world == scenarios.CallTransfer || log == scenarios.CallTransfer))
}
