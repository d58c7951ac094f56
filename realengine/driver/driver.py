"""faultlab real-engine driver: one SGLang-like process that calls real Mooncake.

Protocol: JSON lines. Requests arrive on stdin, one object per line:
    {"id": 7, "op": "setup", "store": 1, "positional": [...], "kwargs": [["tenant_id", "t1"]]}
Responses go to fd $FAULTLAB_PROTO_FD (the harness passes a pipe as fd 3;
without it, the original stdout), one object per line:
    {"id": 7, "ok": true, "result": 0}
    {"id": 7, "ok": false, "error": {"class": "TypeError", "message": "setup(): ..."}}
    {"id": 7, "ok": false, "harness": "unknown op 'x'"}      (a bug in the caller, not Python behaviour)
The first line, unasked, is {"id": 0, "ok": true, "result": {"ready": true, ...}}.

Mooncake writes glog to stderr and (0.3.9) yalantinglibs logs to stdout, so the
protocol has its own fd: only this file writes it, and stdout and stderr stay
separate streams (sharing one pipe interleaves their partial writes). Bytes
travel as {"b64": "..."}, or {"fill": byte, "size": n} when they are all one
byte (a scenario's values are zeros: base64 and JSON of megabytes would be the
harness's own time inside a timed call). Standard library only.
"""

import base64
import ctypes
import json
import mmap
import os
import resource
import sys
import traceback

# Keep the protocol stream private so C++ code printing to stdout cannot corrupt it.
if os.environ.get("FAULTLAB_PROTO_FD"):
    _proto = os.fdopen(int(os.environ["FAULTLAB_PROTO_FD"]), "w", buffering=1)
else:  # run by hand: protocol on the original stdout, C++ stdout to stderr
    _proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
sys.stdout = sys.stderr

# No core files: a crash is reported by its signal, and dumping a process with
# Mooncake's buffers mapped takes seconds and gigabytes.
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

# The node's RLIMIT_MEMLOCK (NodeSpec.MemlockBytes), set before Mooncake loads.
if os.environ.get("FAULTLAB_MEMLOCK_BYTES"):
    _memlock = int(os.environ["FAULTLAB_MEMLOCK_BYTES"])
    # Only the soft limit: ibv_reg_mr checks it, and raising the hard limit
    # above the host's needs CAP_SYS_RESOURCE (the Go side skips such nodes).
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (_memlock, resource.getrlimit(resource.RLIMIT_MEMLOCK)[1]))


def _drop_cap(bit):
    """Drops a capability from this process (capset): root keeps its uid,
    but the kernel's capable() checks fail from here on."""
    import platform

    class _Hdr(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class _Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    capget, capset = {"x86_64": (125, 126), "aarch64": (90, 91)}[platform.machine()]
    libc = ctypes.CDLL(None, use_errno=True)
    hdr, data = _Hdr(0x20080522, 0), (_Data * 2)()  # _LINUX_CAPABILITY_VERSION_3
    if libc.syscall(capget, ctypes.byref(hdr), data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    word, mask = bit // 32, ~(1 << (bit % 32)) & 0xFFFFFFFF
    for f in ("effective", "permitted", "inheritable"):
        setattr(data[word], f, getattr(data[word], f) & mask)
    if libc.syscall(capset, ctypes.byref(hdr), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


# A node with a memlock limit and without cap_ipc_lock: a root run must not
# keep CAP_IPC_LOCK, or ib_umem_get ignores RLIMIT_MEMLOCK.
if os.environ.get("FAULTLAB_DROP_CAP_IPC_LOCK"):
    _drop_cap(14)  # CAP_IPC_LOCK
# A non_root node: binds below ip_unprivileged_port_start fail (EACCES).
if os.environ.get("FAULTLAB_DROP_CAP_NET_BIND_SERVICE"):
    _drop_cap(10)  # CAP_NET_BIND_SERVICE

PACKAGE = "mooncake-transfer-engine-non-cuda"
MAP_HUGETLB = 0x40000  # not exported by Python's mmap module

_stores = {}     # handle -> MooncakeDistributedStore
_next_store = 1
_buffers = {}    # ptr -> object that keeps the memory alive
_host_alloc = None


class HarnessError(Exception):
    """A malformed request: reported as {"harness": ...}, never as a Python exception of the app."""


def _sync(rid):
    # Marks the end of this call's log lines on stderr, so the harness has
    # read every line a call printed before it reports the call's result.
    sys.stderr.flush()
    os.write(2, b"@@faultlab-sync %d@@\n" % rid)


def _send(obj):
    if obj.get("id"):
        _sync(obj["id"])
    _proto.write(json.dumps(obj, separators=(",", ":")) + "\n")
    _proto.flush()


def _decode(v):
    if isinstance(v, dict) and "b64" in v:
        return base64.b64decode(v["b64"])
    if isinstance(v, dict) and "fill" in v:
        return bytes([v["fill"]]) * v["size"]
    if isinstance(v, list):
        return [_decode(x) for x in v]
    return v


def _encode(v):
    if isinstance(v, (bytes, bytearray)):
        if len(v) > 1 and v.count(v[:1]) == len(v):
            return {"fill": v[0], "size": len(v)}
        return {"b64": base64.b64encode(bytes(v)).decode("ascii")}
    if isinstance(v, (list, tuple)):
        return [_encode(x) for x in v]
    return v


def _store_module():
    import mooncake.store  # ImportError travels back as data
    return mooncake.store


def _store(req):
    h = req.get("store")
    if h not in _stores:
        raise HarnessError("no store handle %r" % (h,))
    return _stores[h]


def _mooncake_version():
    # The installer records which distribution it installed (the non-CUDA
    # wheel, or a CUDA wheel for versions without one: realengine/recipe.go).
    from importlib import metadata
    for name in (os.environ.get("FAULTLAB_MOONCAKE_PACKAGE", ""), PACKAGE):
        if not name:
            continue
        try:
            return metadata.version(name)
        except Exception:  # not installed under this name
            pass
    return ""


def op_hello(req):
    return {"ready": True, "pid": os.getpid(), "python": sys.version.split()[0], "mooncake_version": _mooncake_version()}


def op_new_store(req):
    global _next_store
    s = _store_module().MooncakeDistributedStore()
    h = _next_store
    _next_store += 1
    _stores[h] = s
    return h


def op_setup(req):
    pos = [_decode(v) for v in req.get("positional", [])]
    kw = {}
    for name, value in req.get("kwargs", []):
        kw[name] = _decode(value)
    return _store(req).setup(*pos, **kw)


def op_setup_dummy(req):
    return _store(req).setup_dummy(req["mem_pool_size"], req["local_buffer_size"], req["server_address"])


def op_register_buffer(req):
    return _store(req).register_buffer(req["ptr"], req["size"])


def op_unregister_buffer(req):
    return _store(req).unregister_buffer(req["ptr"])


def op_put(req):
    return _store(req).put(req["key"], _decode(req["value"]))


def op_get(req):
    return _encode(_store(req).get(req["key"]))


def op_get_buffer(req):
    # The buffer's size; None (a miss or a failure) is 0.
    b = _store(req).get_buffer(req["key"])
    return 0 if b is None else int(b.size())


def op_remove(req):
    return _store(req).remove(req["key"])


def op_is_exist(req):
    return _store(req).is_exist(req["key"])


def op_batch_put_from(req):
    return list(_store(req).batch_put_from(req["keys"], req["ptrs"], req["sizes"]))


def op_batch_get_into(req):
    return list(_store(req).batch_get_into(req["keys"], req["ptrs"], req["sizes"]))


def op_batch_is_exist(req):
    return list(_store(req).batch_is_exist(req["keys"]))


def op_batch_get_session_start(req):
    # The get-session API (0.3.13+): one code per key; the session is left
    # to lapse (batch_get_session_end only drops the cached replica).
    return list(_store(req).batch_get_session_start(req["keys"]))


def op_lookup(req):
    # The attribute lookup an integration's call begins with; not called.
    getattr(_store(req), req["name"])
    return None


def op_health_check(req):
    return _store(req).health_check()


def op_get_hostname(req):
    return _store(req).get_hostname()


def op_close(req):
    return _store(req).close()


def op_alloc(req):
    global _host_alloc
    size = int(req["size"])
    kind = req["allocator"]
    if kind == "default":
        m = mmap.mmap(-1, size)
    elif kind == "hugepage":
        m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB)
    elif kind == "mooncake-shm":
        # SGLang's MooncakeHostTensorAllocator: from mooncake.store import MooncakeHostMemAllocator
        from mooncake.store import MooncakeHostMemAllocator
        if _host_alloc is None:
            _host_alloc = MooncakeHostMemAllocator()
        ptr = _host_alloc.alloc(size)
        _buffers[ptr] = _host_alloc
        return ptr
    else:
        raise HarnessError("unknown allocator %r (default, hugepage, mooncake-shm)" % (kind,))
    ptr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    _buffers[ptr] = m
    return ptr


def op_poke(req):
    data = _decode(req["data"])
    ctypes.memmove(req["ptr"], data, len(data))
    return len(data)


def op_peek(req):
    return _encode(ctypes.string_at(req["ptr"], req["size"]))


_tes = {}        # handle -> mooncake.engine.TransferEngine (PD disaggregation's binding)


def op_new_te(req):
    from mooncake.engine import TransferEngine
    h = len(_tes) + 1
    _tes[h] = TransferEngine()
    return h


def _te(req):
    try:
        return _tes[req["te"]]
    except KeyError:
        raise HarnessError("no TransferEngine %r" % (req.get("te"),))


def op_te_initialize(req):
    return _te(req).initialize(req["local_hostname"], req["metadata_server"], req["protocol"], req["device_name"])


def op_te_rpc_port(req):
    return _te(req).get_rpc_port()


def op_te_register_memory(req):
    return _te(req).register_memory(req["ptr"], req["size"])


def op_te_unregister_memory(req):
    return _te(req).unregister_memory(req["ptr"])


def op_te_transfer_sync_write(req):
    t = _te(req)
    n = req["entries"]
    if n:
        step = req["length"] // n
        return t.batch_transfer_sync_write(req["target"], [req["local"] + i * step for i in range(n)],
                                           [req["peer"] + i * step for i in range(n)], [step] * n)
    return t.transfer_sync_write(req["target"], req["local"], req["peer"], req["length"])


def op_exit(req):
    _send({"id": req.get("id", 0), "ok": True, "result": 0})
    sys.stderr.flush()
    # Skip interpreter teardown: Mooncake's static destructors are not what is under test.
    os._exit(0)


OPS = {name[3:]: fn for name, fn in globals().items() if name.startswith("op_")}


def serve():
    _send({"id": 0, "ok": True, "result": op_hello({})})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rid = 0
        try:
            req = json.loads(line)
            rid = req.get("id", 0)
            fn = OPS.get(req.get("op"))
            if fn is None:
                raise HarnessError("unknown op %r" % (req.get("op"),))
            result = fn(req)
            _send({"id": rid, "ok": True, "result": result})
        except HarnessError as e:
            _send({"id": rid, "ok": False, "harness": str(e)})
        except (KeyError, json.JSONDecodeError) as e:
            _send({"id": rid, "ok": False, "harness": "bad request: %s: %s" % (type(e).__name__, e)})
        except Exception as e:  # what the application would see raised
            _send({"id": rid, "ok": False, "error": {"class": type(e).__name__, "message": str(e)},
                   "traceback": traceback.format_exc(limit=3)})
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    serve()
