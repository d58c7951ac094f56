"""faultlab real-SGLang driver: one SGLang scheduler's HiCache storage side, run by SGLang's own code.

It speaks driver.py's protocol (JSON lines on stdin / fd $FAULTLAB_PROTO_FD) and adds the
sglang_* ops. What runs is SGLang's, unmodified: HiCacheStorageConfig, the host KV pool classes
(MHATokenToKVPoolHost / MLATokenToKVPoolHost over a small CPU device pool, through
get_allocator_from_storage), StorageBackendFactory.create_backend -> MooncakeStore.__init__,
register_mem_pool_host, register_mem_host_pool_v2(draft, DRAFT), batch_set_v1 / batch_get_v1 /
batch_exists, and MooncakeEmbeddingStore. The only lines transcribed from SGLang are the
controller's order of those calls and HiCacheController's ValueError wrapping (marked below).

Observation only:
  * mooncake.store.MooncakeDistributedStore is replaced by a proxy class whose instances forward
    every attribute to a real MooncakeDistributedStore and report each call's result (or the
    exception it raised) as an event; results are returned unchanged.
  * SGLang's log records (logger "sglang" and below, level INFO and up, as SGLang logs by
    default) are reported as events with their level and logger.
Events are stderr lines "@@faultlab-event {json}" that the harness turns into trace entries.

Mooncake comes from the Mooncake venv of the world's version: $FAULTLAB_MOONCAKE_SITE is appended
to sys.path, so the SGLang venv wins for every package both have and mooncake comes from there.
"""

import json
import logging
import os
import sys
import time
import warnings

if os.environ.get("FAULTLAB_MOONCAKE_SITE"):
    sys.path.append(os.environ["FAULTLAB_MOONCAKE_SITE"])
# An SGLang checkout (its python/ dir) shadows the venv's sglang package;
# its dependencies still come from the venv of the release it derives from.
if os.environ.get("FAULTLAB_SGLANG_CHECKOUT"):
    sys.path.insert(0, os.environ["FAULTLAB_SGLANG_CHECKOUT"])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import driver  # noqa: E402  protocol fds, rlimits, the op table and serve()


def _event(obj):
    sys.stderr.flush()
    os.write(2, b"@@faultlab-event " + json.dumps(obj, separators=(",", ":")).encode() + b"\n")


class _Capture(logging.Handler):
    def emit(self, record):
        try:
            text = record.getMessage()
        except Exception:  # a bad format string is SGLang's bug; keep what it said
            text = str(record.msg)
        _event({"kind": "log", "level": record.levelname, "logger": record.name, "text": text})


_IMPORT_START = time.monotonic()
# SGLang's import warns about every missing accelerator (this host has none); that is the host,
# not the code under test, so it is not recorded.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import torch
    import sglang
    from sglang.srt.mem_cache.hicache_storage import HiCacheStorageConfig, PoolName
    from sglang.srt.mem_cache.storage.backend_factory import StorageBackendFactory
    from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool, MLATokenToKVPool
    try:  # 0.5.17+: one module per host pool kind
        from sglang.srt.mem_cache.pool_host.mha import MHATokenToKVPoolHost
        from sglang.srt.mem_cache.pool_host.mla import MLATokenToKVPoolHost
    except ImportError:
        from sglang.srt.mem_cache.memory_pool_host import MHATokenToKVPoolHost, MLATokenToKVPoolHost
IMPORT_SECS = time.monotonic() - _IMPORT_START

_sglang_logger = logging.getLogger("sglang")
_sglang_logger.handlers = [_Capture()]
_sglang_logger.setLevel(logging.INFO)
_sglang_logger.propagate = False


def _observe(method, result=None, raised=None):
    ev = {"kind": "call", "method": method}
    if raised is not None:
        ev["raised"] = {"class": type(raised).__name__, "message": str(raised)}
    elif isinstance(result, (bytes, bytearray)):
        ev["code"] = len(result)  # get(): what Python got is the value; its length is the code
    elif isinstance(result, (list, tuple)):
        ev["codes"] = [int(x) for x in result]
    elif isinstance(result, bool) or result is None:
        ev["code"] = int(bool(result))
    elif isinstance(result, int):
        ev["code"] = result
    else:
        ev["code"] = 0
        ev["value"] = repr(result)
    _event(ev)


def _install_observer():
    try:
        import mooncake.store as ms
    except ImportError:  # SGLang raises its own ImportError when it imports it
        return

    real = ms.MooncakeDistributedStore
    if getattr(real, "_faultlab_observed", False):
        return

    class MooncakeDistributedStore:
        """Forwards to a real mooncake.store.MooncakeDistributedStore and reports each call."""

        _faultlab_observed = True

        def __init__(self, *args, **kwargs):
            object.__setattr__(self, "_faultlab_real", real(*args, **kwargs))

        def __getattr__(self, name):
            attr = getattr(self._faultlab_real, name)
            if not callable(attr):
                return attr

            def call(*args, **kwargs):
                _event({"kind": "enter", "method": name})  # a death inside names this call
                try:
                    result = attr(*args, **kwargs)
                except BaseException as e:
                    _observe(name, raised=e)
                    raise
                _observe(name, result=result)
                return result

            return call

    ms.MooncakeDistributedStore = MooncakeDistributedStore


# Scenario files: path -> content. SGLang opens the config file by the path the scenario names
# (/etc/sglang/mooncake.json); the driver keeps its copies in its own directory and serves
# exactly those paths from there, so a run never writes outside its temp dir.
_files = {}
_real_open = open


def _open(file, *args, **kwargs):
    if isinstance(file, str) and file in _files:
        file = _files[file]
    return _real_open(file, *args, **kwargs)


def _set_files(files):
    import builtins

    d = os.path.join(os.getcwd(), "files-%d" % os.getpid())
    for i, (path, content) in enumerate(sorted(files.items())):
        os.makedirs(d, exist_ok=True)
        local = os.path.join(d, "%d.json" % i)
        with _real_open(local, "w") as f:
            f.write(content)
        _files[path] = local
    builtins.open = _open


# Directories SGLang creates (0.5.21+ makes a per-rank ssd_offload_path subdir with
# os.makedirs): every missing ancestor of a configured offload path is noted before start
# and removed again (if empty) when the driver exits.
_created_roots = []


def _note_paths(paths):
    for p in paths:
        if not isinstance(p, str) or not p.startswith("/"):
            continue
        missing = None
        cur = os.path.normpath(p)
        while cur != "/" and not os.path.exists(cur):
            missing = cur
            cur = os.path.dirname(cur)
        if missing:
            _created_roots.append(missing)


def _remove_created():
    for root in _created_roots:
        for d, _, _ in sorted(os.walk(root, topdown=False), key=lambda t: -len(t[0])):
            try:
                os.rmdir(d)
            except OSError:
                pass


# Host pools: a small CPU device pool (the geometry) and the host pool SGLang builds from it.
def _geometry(spec, mla):
    page_size = int(spec.get("page_size") or 64)
    page_bytes = int(spec.get("page_bytes") or 256 << 10)
    size = int(spec["size"])
    per_token = page_bytes // page_size  # one component (K, or the MLA row) of one token
    if per_token % 2:
        raise driver.HarnessError("page_bytes/page_size must be even (bf16 elements): %d" % per_token)
    elems = per_token // 2
    tokens = size // (per_token if mla else 2 * per_token)
    if tokens <= page_size or tokens % page_size:
        raise driver.HarnessError("host pool of %d bytes is not a whole number (> 1) of %d-token pages" % (size, page_size))
    return page_size, elems, tokens


def _device_pool(mla, page_size, elems):
    if mla:
        rope = 64 if elems > 64 else 0
        return MLATokenToKVPool(size=page_size, page_size=page_size, dtype=torch.bfloat16,
                                kv_lora_rank=elems - rope, qk_rope_head_dim=rope, layer_num=1,
                                device="cpu", enable_memory_saver=False)
    return MHATokenToKVPool(size=page_size, page_size=page_size, dtype=torch.bfloat16, head_num=1,
                            head_dim=elems, layer_num=1, device="cpu", enable_memory_saver=False)


def _host_pool(spec):
    import inspect

    mla = spec.get("layout") == "MLA"
    page_size, elems, tokens = _geometry(spec, mla)
    dev = _device_pool(mla, page_size, elems)
    cls = MLATokenToKVPoolHost if mla else MHATokenToKVPoolHost
    params = inspect.signature(cls.__init__).parameters
    common = dict(page_size=page_size, layout="page_first", pin_memory=False, device="cpu",
                  allocator_type=spec.get("allocator_type") or "default")
    if "buffer_info" in params:  # 0.5.22+: built from the device pool's buffer info
        info = dev._mla_buffer_info() if mla else dev._mha_buffer_info()
        extra = dict(device_capacity_tokens=page_size, start_layer=0, end_layer=1, host_token_capacity=tokens)
        if "target_layer_num" in params:
            extra["target_layer_num"] = 1
        return cls(info, 1.0, 0, **common, **extra)
    # Older: built from the device pool; size = (int(dev.size * ratio) // page + 1) * page.
    ratio = (tokens - page_size) / page_size
    return cls(dev, ratio, 0, **common)


_state = {"backend": None, "host": None, "kind": None}


def _storage_config(sc):
    import inspect

    params = inspect.signature(HiCacheStorageConfig).parameters
    kw = dict(tp_rank=sc.get("tp_rank", 0), tp_size=max(sc.get("tp_size", 1), 1),
              pp_rank=sc.get("pp_rank", 0), pp_size=max(sc.get("pp_size", 1), 1),
              is_mla_model=bool(sc.get("is_mla_model")), enable_storage_metrics=bool(sc.get("enable_storage_metrics")),
              is_page_first_layout=True, model_name=sc.get("model_name") or None,
              extra_config=sc.get("extra_config"))
    if "attn_cp_rank" in params:
        kw.update(attn_cp_rank=0, attn_cp_size=1)
    return HiCacheStorageConfig(**{k: v for k, v in kw.items() if k in params})


def _start_kv(req):
    spec = req["host_pool"]
    host = _host_pool(spec)
    draft = None
    d = spec.get("draft")
    if d:
        draft = host if d.get("shares_main") else _host_pool(d)
    _state["host"] = host
    cfg = _storage_config(req.get("storage_config") or {})
    # HiCacheController.attach_storage_backend, in its order (transcribed):
    backend = StorageBackendFactory.create_backend("mooncake", cfg, host)
    _state["backend"] = backend
    backend.register_mem_pool_host(host)
    if draft is not None:  # the draft pool, registered as the controller registers pool entries
        backend.register_mem_host_pool_v2(draft, PoolName.DRAFT)


def _start_embedding(req):
    try:  # 0.5.22+: the encoder server builds it through the factory
        from sglang.srt.mem_cache.embedding_store import EmbeddingStoreFactory

        store = EmbeddingStoreFactory.create_backend("mooncake")
    except ImportError:  # EmbeddingCacheController: self.mooncake_store = MooncakeEmbeddingStore()
        from sglang.srt.mem_cache.storage.mooncake_store.mooncake_embedding_store import MooncakeEmbeddingStore

        store = MooncakeEmbeddingStore()
    _state["backend"] = store
    pool = torch.empty(int(req["host_pool"]["size"]), dtype=torch.uint8, pin_memory=False)
    _state["host"] = pool
    store.register_buffer(pool)


def _raised(e):
    return {"class": type(e).__name__, "message": str(e)}


def op_sglang_start(req):
    # The scenario's environment (MOONCAKE_*, MC_*): a process prepared before the world's time
    # started gets it here, before SGLang reads it and before Mooncake's library loads.
    os.environ.update(req.get("env") or {})
    _install_observer()
    _set_files(req.get("files") or {})
    sc = req.get("storage_config") or {}
    extra = sc.get("extra_config") or {}
    _note_paths([os.environ.get("MOONCAKE_OFFLOAD_FILE_STORAGE_PATH"), extra.get("ssd_offload_path")]
                + [_try_json(c).get("ssd_offload_path") for c in (req.get("files") or {}).values()])
    kind = req.get("backend") or "kv"
    _state["kind"] = kind
    try:
        if kind == "embedding":
            _start_embedding(req)
        else:
            try:
                _start_kv(req)
            except ValueError as e:  # HiCacheController.__init__ (transcribed)
                raise ValueError(f"Failed to create storage backend: {e}") from e
    except Exception as e:  # what the scheduler dies with
        return {"raised": _raised(e)}
    return {"raised": None}


def _try_json(s):
    try:
        v = json.loads(s)
        return v if isinstance(v, dict) else {}
    except Exception:
        return {}


def _kv():
    if _state["kind"] != "kv" or _state["backend"] is None:
        raise driver.HarnessError("no started KV storage backend")
    return _state["backend"]


def _indices(req):
    if req.get("indices") is not None:  # the host slots the step names
        return torch.tensor(req["indices"], dtype=torch.int64)
    return torch.arange(len(req["keys"]) * _state["host"].page_size, dtype=torch.int64)


def _io(fn):
    try:
        return {"result": fn(), "raised": None}
    except Exception as e:
        return {"result": None, "raised": _raised(e)}


def op_sglang_batch_set(req):
    b = _kv()
    return _io(lambda: [bool(x) for x in b.batch_set_v1(req["keys"], _indices(req))])


def op_sglang_batch_get(req):
    b = _kv()
    return _io(lambda: [bool(x) for x in b.batch_get_v1(req["keys"], _indices(req))])


def op_sglang_batch_exists(req):
    b = _kv()
    return _io(lambda: int(b.batch_exists(req["keys"])))


def op_sglang_health_check(req):
    b = _state["backend"]
    if b is None:
        raise driver.HarnessError("no started storage backend")
    return _io(lambda: int(b.store.health_check()))


def op_sglang_hello(req):
    return {"sglang_version": sglang.__version__, "import_secs": round(IMPORT_SECS, 3),
            "mooncake_version": driver._mooncake_version()}


_exit = driver.op_exit


def op_exit(req):
    _remove_created()
    _exit(req)


driver.OPS.update({name[3:]: fn for name, fn in globals().items() if name.startswith("op_sglang_")})
driver.OPS["exit"] = op_exit
_hello = driver.op_hello


def _hello_with_sglang(req):
    h = _hello(req)
    h.update(op_sglang_hello(req))
    return h


driver.op_hello = _hello_with_sglang

if __name__ == "__main__":
    driver.serve()
