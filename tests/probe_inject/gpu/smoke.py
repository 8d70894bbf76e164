"""GPU smoke test of libsynclint_probe.so (run under CUDA_INJECTION64_PATH): known sync sites at known
lines, plus a timing of back-to-back scalar reads for the probe's cost per sync.

  python3 smoke.py [--steps N] [--reads N] [--end normal|raise|sigterm|sigint] [--workers N]
The sites the probe must find are listed in EXPECTED (line numbers in this file).
"""
import argparse
import os
import signal
import time

import torch

EXPECTED = {  # line -> what syncs there
    "to_cuda": 29,
    "loss_item": 33,
    "norms": 37,
    "if_loss": 39,
    "synchronize": 42,
}


def train(steps, device):
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(64, 256)
    target = torch.randint(0, 10, (64,))
    for step in range(steps):
        x, y = data.to(device), target.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        value = loss.item()
        opt.step()
        if step % 5 == 0:
            # one read per parameter: a sync each
            norms = [p.grad.norm().item() for p in model.parameters()]
            del norms
        if loss > 0:
            pass
        if step % 10 == 0:
            torch.cuda.synchronize()
    return value


def time_reads(reads, device):
    t = torch.ones(1, device=device)
    for _ in range(50):
        t.item()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(reads):
        t.item()
    return (time.perf_counter() - start) / reads * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--reads", type=int, default=5000)
    ap.add_argument("--end", default="normal", choices=["normal", "raise", "sigterm", "sigint"])
    ap.add_argument("--workers", type=int, default=0)
    args = ap.parse_args()
    device = torch.device("cuda")
    if args.workers:
        ds = torch.utils.data.TensorDataset(torch.randn(256, 8))
        for (batch,) in torch.utils.data.DataLoader(ds, batch_size=32, num_workers=args.workers):
            batch.to(device)
    train(args.steps, device)
    us = time_reads(args.reads, device)
    print(f"smoke: {args.reads} scalar reads, {us:.2f} us per .item()", flush=True)
    if args.end == "raise":
        raise RuntimeError("smoke: uncaught exception on purpose")
    if args.end == "sigterm":
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)
    if args.end == "sigint":
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(10)


if __name__ == "__main__":
    main()
