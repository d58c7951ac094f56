package explain

import "testing"

// TestDeathCall: the kind of Mooncake call a Python faulthandler dump
// says the process died in (field corpus mooncake-pr702, sglang#24838).
func TestDeathCall(t *testing.T) {
	const (
		hicache = `"/usr/lib/python3/dist-packages/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py"`
		te      = `"/opt/sglang/srt/disaggregation/mooncake/transfer_engine.py"`
		conn    = `".../sglang/srt/disaggregation/mooncake/conn.py"`
	)
	for _, c := range []struct {
		name, log, kind, frame string
	}{
		{"PD transfer", "Fatal Python error: Segmentation fault\n\nThread 0x00007f4d75ffd640 (most recent call first):\n  File " + te + ", line 102 in batch_transfer_sync\n  File " + conn + ", line 272 in process_layer\n",
			"transfer", "batch_transfer_sync (transfer_engine.py)"},
		{"the outer frame when the inner one is no call", "Fatal Python error: Segmentation fault\n  File " + conn + ", line 90 in _helper\n  File " + conn + ", line 687 in _send_kvcache_generic\n",
			"transfer", "_send_kvcache_generic (conn.py)"},
		{"HiCache put", "Fatal Python error: Segmentation fault\n\nCurrent thread 0x01 (most recent call first):\n  File " + hicache + ", line 412 in _put_batch_zero_copy_impl\n  File " + hicache + ", line 380 in batch_set_v1\n",
			"put", "_put_batch_zero_copy_impl (mooncake_store.py)"},
		{"the thread that took the signal first", "Fatal Python error: Segmentation fault\n\nThread 0x02 (most recent call first):\n  File " + hicache + ", line 500 in batch_exists\n\nCurrent thread 0x01 (most recent call first):\n  File " + hicache + ", line 480 in batch_get_v1\n",
			"get", "batch_get_v1 (mooncake_store.py)"},
		{"a traceback is no death", "Traceback (most recent call last):\n  File " + hicache + ", line 480, in batch_get_v1\n", "", ""},
		{"no Mooncake caller", "Fatal Python error: Segmentation fault\n\nThread 0x03 (most recent call first):\n  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2207 in watchdog_thread\n", "", ""},
	} {
		kind, frame := deathCall(c.log)
		if kind != c.kind || frame != c.frame {
			t.Errorf("%s: %q %q, want %q %q", c.name, kind, frame, c.kind, c.frame)
		}
	}
}
