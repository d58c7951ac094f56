"""SGLang's own PD KV transfer (disaggregation/mooncake/conn.py's
MooncakeKVManager, KVSender, KVReceiver, bootstrap server) between a prefill
and a decode process on this host, over the real Mooncake wheel's TCP
transport on host memory (MC_FORCE_TCP=1, no GPU, no model weights): one
request per bootstrap room, the scheduler's calls in its order (decode:
try_ensure_parallel_info, init, poll, send_metadata, poll; prefill: poll,
init, send, poll), then failure_exception() of each side that failed.

Not embedded in any engine yet: the measurement behind docs/REAL-FINDINGS.md
("PD's conn.py around a transfer-engine failure") and the start of a pd
world's driver. Run it with any python3:

  python3 realengine/driver/sglang_pd_probe.py --sglang 0.5.17 \
      --mooncake 0.3.13.post1 --mode decode-dies --rooms 2

Modes: ok; decode-dies (the decode exits after sending its metadata, before
the prefill writes); prefill-dies (the prefill exits once the decode has
bootstrapped); decode-unregistered (the decode unregisters its KV buffers
before the prefill writes: a failed write while both live). Each side's
output is printed as it ran: Mooncake's glog lines, SGLang's log records
(LEVEL logger:lineno message), and the probe's own PROBE lines.

SGLang's pinned 0.5.23 venv (realengine/sglangreqs/0.5.23.txt) lacks
modules the scheduler's parallel state imports (openai==2.8.0 with its
dependencies, partial_json_parser, einops): --extra names a directory they
were pip-installed into (pip install --target DIR ...); it is appended to
sys.path after the venv's own packages.
"""

import argparse
import inspect
import logging
import os
import subprocess
import sys
import threading
import time

MODES = ("ok", "decode-dies", "prefill-dies", "decode-unregistered")


def side(role, bport, distport, room0, nrooms, mode, go_file):
    """One scheduler's side, in the SGLang venv's interpreter."""
    # After the venv's own packages, as realengine's SGLang side adds the
    # world's Mooncake venv.
    sys.path.extend(p for p in os.environ["PROBE_PATHS"].split(os.pathsep) if p)
    logging.basicConfig(
        level=logging.INFO,
        format="%(levelname)s %(name)s:%(lineno)d %(message)s",
        stream=sys.stdout,
    )
    import numpy as np
    import torch

    from sglang.srt.distributed import parallel_state as ps
    from sglang.srt.server_args import ServerArgs

    model = os.path.join(os.environ["PROBE_DIR"], "model")
    sa = ServerArgs(
        model_path=model,
        device="cpu",
        disaggregation_mode=role,
        disaggregation_transfer_backend="mooncake",
        skip_server_warmup=True,
        host="127.0.0.1",
        port=30000,
        disaggregation_bootstrap_port=bport,
    )
    # The scheduler's context, as each release publishes it.
    try:
        from sglang.srt import runtime_context as rc
    except ImportError:
        rc = None
    if rc is not None and hasattr(rc, "publish"):
        if hasattr(rc, "SpawnRanks"):  # 0.5.23: the launcher's rank bundle
            rc.publish(sa, role="scheduler", ranks=rc.SpawnRanks(world_rank=0))
        else:
            rc.publish(sa, role="scheduler")
    ps.init_distributed_environment(
        world_size=1,
        rank=0,
        local_rank=0,
        distributed_init_method=f"tcp://127.0.0.1:{distport}",
        backend="gloo",
    )
    if "tensor_model_parallel_size" in inspect.signature(
        ps.initialize_model_parallel
    ).parameters:
        ps.initialize_model_parallel(
            tensor_model_parallel_size=1, pipeline_model_parallel_size=1
        )
    else:  # 0.5.23: the widths come from the published context
        ps.initialize_model_parallel()
    from sglang.srt.layers import dp_attention

    if len(inspect.signature(dp_attention.initialize_dp_attention).parameters) == 2:
        from sglang.srt.configs.model_config import ModelConfig

        dp_attention.initialize_dp_attention(sa, ModelConfig.from_server_args(sa))
    else:
        dp_attention.initialize_dp_attention(sa)
    from sglang.srt.distributed.device_communicators import (
        mooncake_transfer_engine as mte,
    )

    init = mte.maybe_init_shared_mooncake_transfer_engine
    if "server_args" in inspect.signature(init).parameters:
        init(server_args=sa, gpu_id=0)
    else:
        init(gpu_id=0)
    print("PROBE session", mte.get_mooncake_transfer_engine().get_session_id(), flush=True)

    from sglang.srt.disaggregation.base.conn import KVArgs, KVPoll
    from sglang.srt.disaggregation.mooncake import conn
    from sglang.srt.disaggregation.utils import DisaggregationMode

    # Two layers of K and V, 16 pages of 256 bytes; 64-byte aux rows.
    layers, pages, item = 2, 16, 256
    kv = [torch.zeros(pages * item, dtype=torch.uint8) for _ in range(2 * layers)]
    aux = torch.zeros(pages * 64, dtype=torch.uint8)
    a = KVArgs()
    for k, v in dict(
        engine_rank=0, pp_rank=0, system_dp_rank=0, kv_cache_dtype_str="float32",
        prefill_start_layer=0, prefill_end_layer=layers, mla_compression_ratios=None,
        kv_data_ptrs=[t.data_ptr() for t in kv], kv_data_lens=[t.numel() for t in kv],
        kv_item_lens=[item] * (2 * layers), kv_layer_ids=[], kv_head_num=4,
        total_kv_head_num=4, page_size=1, aux_data_ptrs=[aux.data_ptr()],
        aux_data_lens=[aux.numel()], aux_item_lens=[64], ib_device=None,
        ib_traffic_class=None, gpu_id=0, state_types=[], state_data_ptrs=[],
        state_data_lens=[], state_item_lens=[], state_layer_ids=[],
        state_dim_per_tensor=[], state_slice_outer_counts=[],
        is_hybrid_mla_backend=False, state_conv_shard_groups=[], kv_layout=None,
        swa_kv_cache_layout=None, rust_http_port=None, num_draft_entries=0,
    ).items():
        setattr(a, k, v)
    rooms = [room0 + i for i in range(nrooms)]
    addr = f"127.0.0.1:{bport}"

    def wait(obj, done, secs):
        deadline = time.time() + secs
        st = obj.poll()
        while st not in done and time.time() < deadline:
            time.sleep(0.05)
            st = obj.poll()
        return st

    def report(tag, obj, st, room):
        names = {KVPoll.Failed: "Failed", KVPoll.Success: "Success"}
        print("PROBE", tag, room, names.get(st, int(st)), flush=True)
        if st == KVPoll.Failed:
            try:
                obj.failure_exception()
            except Exception as e:  # the scheduler formats it with str()
                print("PROBE exception", type(e).__name__, str(e), flush=True)

    if role == "prefill":
        conn.MooncakeKVBootstrapServer(host="127.0.0.1", port=bport)
        mgr = conn.MooncakeKVManager(a, DisaggregationMode.PREFILL, sa, False)
        old = "dest_tp_ranks" in inspect.signature(conn.MooncakeKVSender.__init__).parameters
        snds = [
            conn.MooncakeKVSender(mgr, addr, r, [0], 0)
            if old
            else conn.MooncakeKVSender(mgr=mgr, bootstrap_addr=addr, bootstrap_room=r)
            for r in rooms
        ]
        print("PROBE ready", flush=True)
        for r, snd in zip(rooms, snds):
            st = wait(snd, (KVPoll.WaitingForInput, KVPoll.Failed), 60)
            print("PROBE bootstrapped", r, int(st), flush=True)
        if mode == "prefill-dies":
            os._exit(0)
        while go_file and not os.path.exists(go_file):
            time.sleep(0.05)
        for i, (r, snd) in enumerate(zip(rooms, snds)):
            snd.init(4, i)
            snd.send(np.arange(4 * i, 4 * i + 4, dtype=np.int32))
            report("sender", snd, wait(snd, (KVPoll.Success, KVPoll.Failed), 60), r)
    else:
        mgr = conn.MooncakeKVManager(a, DisaggregationMode.DECODE, sa, False)
        print("PROBE parallel_info", mgr.try_ensure_parallel_info(addr), flush=True)
        rcvs = [conn.MooncakeKVReceiver(mgr, addr, r) for r in rooms]
        for i, (r, rcv) in enumerate(zip(rooms, rcvs)):
            rcv.init(0)
            st = wait(rcv, (KVPoll.WaitingForInput, KVPoll.Failed), 30)
            if st == KVPoll.Failed:
                report("receiver", rcv, st, r)
                os._exit(1)
            rcv.send_metadata(np.arange(4 * i, 4 * i + 4, dtype=np.int32), i)
        print("PROBE metadata_sent", flush=True)
        if mode == "decode-unregistered":
            mgr.engine.batch_deregister(a.kv_data_ptrs)
            open(go_file, "w").close()
        if mode == "decode-dies":
            time.sleep(1.0)  # zmq's I/O thread sends the metadata first
            os._exit(0)
        for r, rcv in zip(rooms, rcvs):
            report("receiver", rcv, wait(rcv, (KVPoll.Success, KVPoll.Failed), 60), r)
    os._exit(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sglang", required=True, help="SGLang release (its faultlab venv)")
    ap.add_argument("--mooncake", required=True, help="Mooncake release (its faultlab venv)")
    ap.add_argument("--mode", choices=MODES, default="ok")
    ap.add_argument("--rooms", type=int, default=1)
    ap.add_argument("--room", type=int, default=4242)
    ap.add_argument("--port", type=int, default=28998, help="the bootstrap port; +1, +2 the gloo ports")
    ap.add_argument("--extra", default="", help="a directory of modules the SGLang venv lacks")
    ap.add_argument("--cache", default=os.environ.get("FAULTLAB_CACHE", os.path.expanduser("~/.cache/faultlab")))
    ap.add_argument("--role", help=argparse.SUPPRESS)
    ap.add_argument("--go-file", help=argparse.SUPPRESS)
    ap.add_argument("--distport", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.role:
        side(args.role, args.port, args.distport, args.room, args.rooms, args.mode, args.go_file)
        return

    import tempfile

    work = tempfile.mkdtemp(prefix="sglang-pd-probe-")
    os.makedirs(os.path.join(work, "model"))
    # A tiny Llama config: ServerArgs reads the model's HF config; no weights.
    with open(os.path.join(work, "model", "config.json"), "w") as f:
        f.write('{"architectures": ["LlamaForCausalLM"], "model_type": "llama", '
                '"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4, '
                '"num_key_value_heads": 4, "num_hidden_layers": 2, "vocab_size": 256, '
                '"max_position_embeddings": 512, "rms_norm_eps": 1e-6, "torch_dtype": "float32"}')
    py = os.path.join(args.cache, "sglang", args.sglang, "venv", "bin", "python")
    site = os.path.join(args.cache, "mooncake", args.mooncake, "venv", "lib",
                        f"python{sys.version_info.major}.{sys.version_info.minor}", "site-packages")
    paths = [site] + ([args.extra] if args.extra else [])
    env = dict(os.environ, MC_FORCE_TCP="1", PROBE_DIR=work,
               PROBE_PATHS=os.pathsep.join(paths))
    go_file = os.path.join(work, "go") if args.mode in ("decode-dies", "decode-unregistered") else ""

    def start(role, distport):
        return subprocess.Popen(
            [py, os.path.abspath(__file__), "--sglang", args.sglang, "--mooncake", args.mooncake,
             "--mode", args.mode, "--rooms", str(args.rooms), "--room", str(args.room),
             "--port", str(args.port), "--role", role, "--distport", str(distport),
             "--go-file", go_file],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    out = {"prefill": [], "decode": []}
    ready = threading.Event()

    def pump(role, p):
        for line in p.stdout:
            out[role].append(line.rstrip("\n"))
            if line.startswith("PROBE ready"):
                ready.set()

    procs = {}
    procs["prefill"] = start("prefill", args.port + 1)
    threading.Thread(target=pump, args=("prefill", procs["prefill"]), daemon=True).start()
    if not ready.wait(120):
        procs["prefill"].kill()
    else:
        procs["decode"] = start("decode", args.port + 2)
        threading.Thread(target=pump, args=("decode", procs["decode"]), daemon=True).start()
        procs["decode"].wait(150)
        if go_file and args.mode == "decode-dies":
            open(go_file, "w").close()
    for p in procs.values():
        try:
            p.wait(150)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    time.sleep(0.2)  # the pumps' last lines
    import shutil

    shutil.rmtree(work, ignore_errors=True)
    for role in ("prefill", "decode"):
        print(f"===== {role}")
        for line in out[role]:
            if "warn" not in line.lower() or line.startswith(("W1", "WARNING sglang.srt.disagg")):
                print(line)


if __name__ == "__main__":
    main()
