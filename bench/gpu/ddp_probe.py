#!/usr/bin/env python3
"""Data-parallel training (DistributedDataParallel) with a per-step loss read on some ranks, for the probe.

usage: python3 -m torch.distributed.run --nproc_per_node=2 ddp_probe.py [--backend nccl|gloo]
           [--reads rank0|all|none|ab] [--steps 300] [--rounds 12] [--block 50] [--batch 256] [--width 2048]
           [--same-gpu] [--pid-dir DIR] [--json OUT.json]

The model: four linear layers of --width with ReLU between them, SGD, synthetic data on the GPU (no copy in
the loop). Each step: forward, MSE loss, backward (DDP all-reduces the gradients), optimizer step, then
`loss.item()` on the ranks --reads names:
  rank0   rank 0 reads every step, the other ranks never do
  all     every rank reads every step
  none    no rank reads
  ab      in-process A/B for the whole job: --rounds rounds of two blocks of --block steps each, one block
          with rank 0's read and one without, their order alternating from round to round; each block ends
          with torch.cuda.synchronize() and a barrier, so its time is the whole job's. Prints and writes
          (--json, rank 0) the block times and the median saving per step of removing rank 0's read.
--same-gpu puts every rank on GPU 0 (machines with one GPU); NCCL refuses two ranks on one GPU, gloo runs.
--pid-dir writes pid-rank<R> files there (for tests that signal one rank).
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=("nccl", "gloo"), default="nccl")
    ap.add_argument("--reads", choices=("rank0", "all", "none", "ab"), default="rank0")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--block", type=int, default=50)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--same-gpu", action="store_true")
    ap.add_argument("--pid-dir")
    ap.add_argument("--json")
    return ap.parse_args(argv)


def train_step(model, opt, x, y, read):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    if read:
        return loss.item()
    return None


def timed_block(model, opt, x, y, steps, read):
    torch.cuda.synchronize()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(steps):
        train_step(model, opt, x, y, read)
    torch.cuda.synchronize()
    dist.barrier()
    return time.perf_counter() - start


def main(argv):
    args = parse_args(argv)
    dist.init_process_group(args.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    device = torch.device("cuda", 0 if args.same_gpu else local)
    torch.cuda.set_device(device)
    if args.pid_dir:
        with open(os.path.join(args.pid_dir, f"pid-rank{rank}"), "w") as f:
            f.write(str(os.getpid()))
    torch.manual_seed(0)
    layers = []
    for i in range(4):
        layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
    model = DistributedDataParallel(torch.nn.Sequential(*layers[:-1]).to(device),
                                    device_ids=[device.index] if args.backend == "nccl" else None)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(args.batch, args.width, device=device)
    y = torch.randn(args.batch, args.width, device=device)

    for _ in range(args.warmup):
        train_step(model, opt, x, y, False)
    torch.cuda.synchronize()

    result = {"rank": rank, "world": world, "backend": args.backend, "reads": args.reads,
              "same_gpu": args.same_gpu, "batch": args.batch, "width": args.width}
    if args.reads == "ab":
        with_read, without = [], []
        for r in range(args.rounds):
            order = (True, False) if r % 2 == 0 else (False, True)
            for read in order:
                t = timed_block(model, opt, x, y, args.block, read and rank == 0)
                (with_read if read else without).append(t * 1000.0 / args.block)
        saving = [a - b for a, b in zip(with_read, without)]
        result.update(rounds=args.rounds, block=args.block, ms_per_step_with_read=with_read,
                      ms_per_step_without=without, median_saving_ms_per_step=statistics.median(saving),
                      read_steps=args.rounds * args.block)
        if rank == 0:
            print(f"ab: {args.rounds} rounds x {args.block} steps; ms/step with rank 0's read "
                  f"{statistics.median(with_read):.3f}, without {statistics.median(without):.3f}; median saving "
                  f"{result['median_saving_ms_per_step']:.3f} ms/step over {result['read_steps']} read steps",
                  flush=True)
    else:
        reads = {"rank0": rank == 0, "all": True, "none": False}[args.reads]
        torch.cuda.synchronize()
        start = time.perf_counter()
        for step in range(args.steps):
            train_step(model, opt, x, y, reads)
            if step % 50 == 0:
                print(f"rank {rank} step {step}", flush=True)
        torch.cuda.synchronize()
        result["ms_per_step"] = (time.perf_counter() - start) * 1000.0 / args.steps
        print(f"rank {rank}: {result['ms_per_step']:.3f} ms/step", flush=True)
    if args.json and rank == 0:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
