package mooncake

import (
	"slices"
	"strings"
)

// The MooncakeDistributedStore binding's Python surface per release: which
// methods an integration (SGLang, LMCache, vLLM) can call. A method the
// installed release lacks is pybind11's AttributeError at the attribute
// lookup, before any argument is looked at.
//
// Read from mooncake-integration/store/store_py.cpp at the tags v0.3.0 …
// v0.3.12.post1 (the first tag with `.def("name"`), and checked against
// dir(MooncakeDistributedStore) of every wheel cached on this machine
// (0.3.4, 0.3.4.post2, 0.3.6.post1, 0.3.7.post2, 0.3.8.post1, 0.3.9,
// 0.3.10.post1, 0.3.11.post1, 0.3.12.post1, 0.3.13.post1, 0.3.14;
// 2026-12-02, docs/REAL-FINDINGS.md "Integration and binding out of
// step"). There is no v0.3.13 or v0.3.14 tag to read: the methods first
// seen in the 0.3.13.post1 and 0.3.14 wheels are dated to 0.3.13 and
// 0.3.14, and the *_with_parallelism methods the 0.3.14 wheel no longer
// has end there.
type methodSpan struct {
	since, until string // until "": still bound at the newest release
	names        []string
}

var storeMethods = []methodSpan{
	{"0.3.0", "", []string{"close", "get", "get_buffer", "get_size", "init_all", "is_exist", "put", "put_parts", "remove", "setup"}},
	{"0.3.1", "", []string{"remove_all"}},
	{"0.3.4", "", []string{"get_into", "put_from", "register_buffer"}},
	{"0.3.4.post2", "", []string{"batch_is_exist"}},
	{"0.3.5", "", []string{"batch_get_into", "batch_put_from", "get_batch", "get_hostname", "get_tensor", "put_batch", "put_from_with_metadata", "put_tensor", "unregister_buffer"}},
	{"0.3.6", "", []string{"batch_get_buffer", "remove_by_regex"}},
	{"0.3.7", "", []string{"batch_get_into_multi_buffers", "batch_put_from_multi_buffers"}},
	{"0.3.8", "", []string{"alloc_from_mem_pool", "batch_get_replica_desc", "batch_get_tensor", "batch_get_tensor_into", "batch_get_tensor_with_tp", "batch_get_tensor_with_tp_into", "batch_put_tensor", "batch_put_tensor_with_tp", "get_replica_desc", "get_tensor_into", "get_tensor_with_tp", "get_tensor_with_tp_into", "pub_tensor", "put_tensor_with_tp", "setup_dummy"}},
	{"0.3.8.post1", "", []string{"batch_pub_tensor", "batch_pub_tensor_with_tp", "create_copy_task", "create_move_task", "pub_tensor_with_tp", "query_task"}},
	{"0.3.10", "", []string{"batch_put_tensor_from", "batch_put_tensor_with_tp_from", "health_check", "load_tensor_from_safetensor", "put_tensor_from", "put_tensor_with_tp_from", "save_tensor_to_safetensor"}},
	{"0.3.10.post1", "", []string{"batch_remove"}},
	{"0.3.10.post2", "", []string{"batch_replica_clear", "batch_upsert_from", "batch_upsert_pub_tensor", "batch_upsert_tensor", "batch_upsert_tensor_from", "get_into_ranges", "upsert", "upsert_batch", "upsert_from", "upsert_parts", "upsert_pub_tensor", "upsert_tensor", "upsert_tensor_from"}},
	{"0.3.11", "", []string{"_get_pyclient_capsule", "allocate_and_mount_segment", "get_offload_rpc_read_count", "mount_segment", "unmount_and_free_segment", "unmount_segment"}},
	{"0.3.11", "0.3.14", []string{"batch_get_tensor_with_parallelism", "batch_get_tensor_with_parallelism_into", "batch_put_tensor_with_parallelism", "batch_put_tensor_with_parallelism_from", "batch_upsert_tensor_with_parallelism", "batch_upsert_tensor_with_parallelism_from", "get_tensor_with_parallelism", "get_tensor_with_parallelism_into", "put_tensor_with_parallelism", "put_tensor_with_parallelism_from", "upsert_tensor_with_parallelism", "upsert_tensor_with_parallelism_from"}},
	{"0.3.13", "", []string{"batch_get_into_multi_buffer_ranges", "batch_get_session_end", "batch_get_session_start", "batch_get_tensor_into_cuda", "batch_put_from_multi_buffer_ranges", "batch_put_session_end", "batch_put_session_revoke", "batch_put_session_start", "get_tensor_into_cuda", "unmount_local_disk_segment"}},
	{"0.3.14", "", []string{"batch_probe_key", "begin_weight_snapshot", "get_into_ranges_from_snapshot", "prepare_get_into_ranges_snapshot", "probe_key"}},
}

// HasMethod reports whether the store binding of p's release has the
// Python method name (pybind11's AttributeError when not).
func (p Profile) HasMethod(name string) bool {
	for _, s := range storeMethods {
		if slices.Contains(s.names, name) {
			return p.Version.AtLeast(s.since) && (s.until == "" || !p.Version.AtLeast(s.until))
		}
	}
	return false
}

// NoAttributeError is the text of the AttributeError Python raises for a
// store method p's release does not bind.
func (p Profile) NoAttributeError(name string) string {
	return "'" + p.Class() + "' object has no attribute '" + name + "'"
}

// MethodSince is the first release whose binding has name, and the first
// that no longer has it ("" when it still does); ok false for a name no
// release binds.
func MethodSince(name string) (since, until string, ok bool) {
	for _, s := range storeMethods {
		if slices.Contains(s.names, name) {
			return s.since, s.until, true
		}
	}
	return "", "", false
}

// ValidMethodName reports whether name can be a Python attribute name.
func ValidMethodName(name string) bool {
	if name == "" || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	return strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
}
