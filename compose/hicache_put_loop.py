"""The SGLang side of compose.yaml: set up a Mooncake store the way SGLang's
MooncakeStore does (seven positionals + transfer engine None), then put and
get one key per second and print one line per call, so a fault injected
through toxiproxy shows in `docker-compose logs sglang`:

    setup rc=0
    put k1 rc=0
    get k1 bytes=4096
"""
import os
import sys
import time

from mooncake.store import MooncakeDistributedStore

MB = 1 << 20


def main() -> int:
    store = MooncakeDistributedStore()
    rc = store.setup(
        os.environ["MOONCAKE_LOCAL_HOSTNAME"],
        os.environ["MOONCAKE_METADATA"],
        int(os.environ.get("MOONCAKE_GLOBAL_SEGMENT_SIZE", str(64 * MB))),
        16 * MB,
        os.environ.get("MOONCAKE_PROTOCOL", "tcp"),
        "",
        os.environ["MOONCAKE_MASTER"],
        None,
    )
    print(f"setup rc={rc}", flush=True)
    if rc != 0:
        return 1
    value = b"x" * 4096
    i = 0
    while True:
        i += 1
        key = f"k{i}"
        print(f"put {key} rc={store.put(key, value)}", flush=True)
        print(f"get {key} bytes={len(store.get(key))}", flush=True)
        time.sleep(1)


if __name__ == "__main__":
    sys.exit(main())
