"""faultlab fork server for real SGLang: imports torch and SGLang once, then forks one scheduler per world.

Importing SGLang costs about 7 s of CPU on a 2-core machine, and the agreement suite starts hundreds of
SGLang schedulers. This process imports what sglang_driver.py imports, once, and serves fork requests on
a SOCK_SEQPACKET Unix socket (argv[1]). A request is one JSON message,
    {"script": ".../sglang_driver.py", "argv": [...], "env": ["K=V", ...], "dir": "..."}
with four file descriptors attached (SCM_RIGHTS): the child's stdin, stdout, stderr and protocol fd (3).
The child gets them as 0-3, its own process group, PR_SET_PDEATHSIG, exactly the given environment and
directory, and runs the script as __main__: what it imports is already loaded, the rest (driver.py,
Mooncake from the world's venv) it imports itself. The reply is {"pid": N}; when the child exits, a
second message {"status": <raw wait status>} follows and the connection closes.

Mooncake must not be imported here: each world appends its own Mooncake venv. If SGLang's import tries
to, this server exits with status 3 and the harness starts schedulers the ordinary way.
Standard library only. stdin closing (the harness went away) kills every child and ends the server.
"""

import array
import ctypes
import json
import os
import runpy
import selectors
import signal
import socket
import sys
import time
import traceback
import warnings

NOT_FORK_SAFE = 3


class _MooncakeImports:
    """Records attempts to import mooncake while SGLang imports (a meta path finder that finds nothing)."""

    def __init__(self):
        self.names = []

    def find_spec(self, name, path=None, target=None):
        if name == "mooncake" or name.startswith("mooncake."):
            self.names.append(name)
        return None


def _import_sglang():
    watch = _MooncakeImports()
    sys.meta_path.insert(0, watch)
    start = time.monotonic()
    with warnings.catch_warnings():  # the same imports, and the same silence, as sglang_driver.py
        warnings.simplefilter("ignore")
        import torch  # noqa: F401
        import sglang
        from sglang.srt.mem_cache.hicache_storage import HiCacheStorageConfig, PoolName  # noqa: F401
        from sglang.srt.mem_cache.storage.backend_factory import StorageBackendFactory  # noqa: F401
        from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool, MLATokenToKVPool  # noqa: F401
        try:
            from sglang.srt.mem_cache.pool_host.mha import MHATokenToKVPoolHost  # noqa: F401
            from sglang.srt.mem_cache.pool_host.mla import MLATokenToKVPoolHost  # noqa: F401
        except ImportError:
            from sglang.srt.mem_cache.memory_pool_host import MHATokenToKVPoolHost, MLATokenToKVPoolHost  # noqa: F401
    sys.meta_path.remove(watch)
    return sglang.__version__, time.monotonic() - start, watch.names


def _child(msg, fds, close):
    """In the forked child: never returns."""
    code = 1
    try:
        os.setpgid(0, 0)
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the server
        for s in close:
            s.close()
        high = [os.dup(fd) for fd in fds]  # out of 0-3 first: a received fd may already sit there
        for fd in fds:
            os.close(fd)
        for target, fd in enumerate(high):
            os.dup2(fd, target)
            os.close(fd)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        sys.stdin = open(0, "r", closefd=False)
        os.chdir(msg["dir"])
        os.environ.clear()
        os.environ.update(dict(kv.split("=", 1) for kv in msg["env"]))
        sys.argv = list(msg["argv"])
        runpy.run_path(msg["script"], run_name="__main__")
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stderr.flush()
        finally:
            os._exit(code)


def _send(conn, obj):
    try:
        conn.send(json.dumps(obj).encode())
    except OSError:
        pass  # the harness closed its end: nobody to tell


def main():
    path = sys.argv[1]
    version, secs, tried = _import_sglang()
    if tried:
        print(json.dumps({"ready": False, "reason": "SGLang %s imports %s at import time" % (version, ", ".join(sorted(set(tried))))}), flush=True)
        sys.exit(NOT_FORK_SAFE)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, "accept")
    sel.register(0, selectors.EVENT_READ, "stdin")
    print(json.dumps({"ready": True, "sglang_version": version, "import_secs": round(secs, 3), "pid": os.getpid()}), flush=True)

    conns = {}     # fd -> socket awaiting its request
    children = {}  # pid -> socket that gets its exit status
    while True:
        for key, _ in sel.select(timeout=0.05):
            if key.data == "stdin":
                if not os.read(0, 4096):
                    for pid in children:
                        try:
                            os.killpg(pid, signal.SIGKILL)
                        except OSError:
                            pass
                    for pid, conn in children.items():  # reaped here: nothing outlives the server
                        _, status = os.waitpid(pid, 0)
                        _send(conn, {"status": status})
                    return
            elif key.data == "accept":
                conn, _ = listener.accept()
                conns[conn.fileno()] = conn
                sel.register(conn, selectors.EVENT_READ, "request")
            else:
                conn = key.fileobj
                sel.unregister(conn)
                del conns[conn.fileno()]
                fds = array.array("i")
                try:
                    data, anc, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(4 * fds.itemsize))
                    for level, typ, raw in anc:
                        if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                            fds.frombytes(raw[: len(raw) - len(raw) % fds.itemsize])
                    msg = json.loads(data)
                    if len(fds) != 4:
                        raise ValueError("want 4 file descriptors (stdin, stdout, stderr, protocol), got %d" % len(fds))
                except Exception as e:
                    for fd in fds:
                        os.close(fd)
                    _send(conn, {"error": "bad fork request: %s" % e})
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    _child(msg, list(fds), [listener, conn, *conns.values(), *children.values()])
                for fd in fds:
                    os.close(fd)
                children[pid] = conn
                _send(conn, {"pid": pid})
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is not None:
                _send(conn, {"status": status})
                conn.close()


if __name__ == "__main__":
    main()
