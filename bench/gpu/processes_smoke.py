#!/usr/bin/env python3
"""Processes the probe must follow, on a GPU machine: CUDA DataLoader workers and one process per rank.

  processes_smoke.py workers [--steps N]   a training loop whose DataLoader workers (spawned, 2 of them)
                                           make and read CUDA tensors in __getitem__: every worker is a
                                           CUDA process of its own and syncs at processes_smoke.py:WORKER_LINE
  processes_smoke.py ranks [--steps N]     one rank of a torch.distributed (gloo) job: run it under
                                           `python3 -m torch.distributed.run --nproc_per_node=2`; every rank
                                           uses GPU 0 (so it runs on a one-GPU machine), copies its loss to
                                           the host each step and all-reduces it there
Both print one line per process at the end and exit 0.
"""
import argparse
import os
import sys

import torch
import torch.nn as nn


class CudaItems(torch.utils.data.Dataset):
    """Each item is made on the GPU and read back by the worker: a sync in every worker process."""

    def __len__(self):
        return 256

    def __getitem__(self, i):
        t = torch.full((4096,), float(i), device="cuda")
        return torch.tensor([t.sum().item() / t.numel()])  # worker-side read (one sync per item): i


def model_and_opt():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 10)).cuda()
    return model, torch.optim.SGD(model.parameters(), lr=0.01)


def workers(steps):
    model, opt = model_and_opt()
    loader = torch.utils.data.DataLoader(CudaItems(), batch_size=8, num_workers=2,
                                         multiprocessing_context="spawn", persistent_workers=False)
    x = torch.randn(64, 256, device="cuda")
    done = 0
    while done < steps:
        for batch in loader:
            loss = model(x + 1e-3 * batch.mean().cuda()).square().mean()  # items 0..255: keep the input small
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            last = loss.item()  # main-process read, once per step
            done += 1
            if done >= steps:
                break
    print("workers: pid %d, %d steps, loss %.4f" % (os.getpid(), done, last))


def ranks(steps):
    import torch.distributed as dist
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model, opt = model_and_opt()
    x = torch.randn(64, 256, device="cuda")
    for _ in range(steps):
        loss = model(x).square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        t = loss.detach().cpu()  # a read per step on every rank
        dist.all_reduce(t)
    print("ranks: rank %d of %d, pid %d, %d steps, mean loss %.4f" % (rank, dist.get_world_size(), os.getpid(),
                                                                      steps, float(t) / dist.get_world_size()))
    dist.destroy_process_group()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["workers", "ranks"])
    ap.add_argument("--steps", type=int, default=200)
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("processes_smoke: no CUDA device", file=sys.stderr)
        return 2
    (workers if args.what == "workers" else ranks)(args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
