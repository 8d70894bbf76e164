#!/usr/bin/env python3
"""Step time of a small CNN under four ways of logging training statistics.

usage: cnn_bench.py [--mode MODE... | all] [--batch N...] [--steps 300] [--warmup 50] [--reps 3]
                    [--interval 50] [--order rotate|fixed] [--seed 0] [--json OUT.json]

The network: five 3x3 convolutions, each followed by batch normalisation and ReLU (max-pooling after the
first four), global average pooling and a linear layer to 10 classes: 22 parameter tensors. Synthetic
64x64 RGB images live on the GPU, so no host-to-device copy happens in the loop. SGD with momentum.

Logging modes (what each training step does after optimizer.step()):
  none     nothing
  loss     loss.item()                                     one host-device sync per step
  norms    [p.grad.norm().item() for p in parameters]      22 syncs per step
  batched  the 22 norms and the loss stacked into a GPU buffer; the buffer is copied to the host every
           --interval steps (one sync per interval)
  compute  reference, not a logging style: the batched mode's GPU work (22 norms, stack, buffer write)
           without ever copying, so no sync at all. Against it, the batched mode's difference is the cost
           of its synchronizations alone (docs/validation.md).
  unread   reference: the norms mode without its reads (the 22 norms computed and kept until the next
           step, never read). Against it, the norms mode's difference is the cost of its reads alone:
           compute also stacks the norms and writes them to a buffer, host work that a launch-bound
           step pays for.

Timing: --warmup steps, then --reps repetitions of --steps timed steps each, with torch.cuda.synchronize()
before reading the clock at the start and at the end of each repetition. With several modes in one process,
each mode has its own model and the repetitions are interleaved (rep 0 of every mode, then rep 1, ...), by
default in an order that rotates from one repetition to the next (--order rotate: rep k starts with the k-th
mode), so that each mode follows each other mode equally often and a slow stretch of the machine (or of a
probe) falls on all of them alike; --order fixed keeps the modes' order. The JSON output holds ms/step
for every (mode, batch, rep) and the median per (mode, batch).

Run one configuration per process (for the probe):  cnn_bench.py --mode loss --batch 16
Run the whole grid in one process:                   cnn_bench.py --mode all --batch 16 128
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

try:
    import torch
except ImportError:  # reported by main(), so that --help works without PyTorch
    torch = None

MODES = ("none", "loss", "norms", "batched", "compute", "unread")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", nargs="+", default=["all"], help="logging modes, or 'all' (%s)" % ", ".join(MODES))
    ap.add_argument("--batch", nargs="+", type=int, default=[16, 128])
    ap.add_argument("--steps", type=int, default=300, help="timed steps per repetition")
    ap.add_argument("--warmup", type=int, default=50, help="untimed steps before the first repetition")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--interval", type=int, default=50, help="copy interval of the batched mode")
    ap.add_argument("--order", choices=("rotate", "fixed"), default="rotate",
                    help="order of the modes within each repetition (default: rotate by one each repetition)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write the results here (they are always printed as JSON too)")
    args = ap.parse_args(argv)
    modes = list(MODES) if args.mode == ["all"] else args.mode
    for m in modes:
        if m not in MODES:
            ap.error("unknown mode %r (choose from %s, or all)" % (m, ", ".join(MODES)))
    if min(args.batch) < 1 or args.steps < 1 or args.reps < 1 or args.warmup < 0 or args.interval < 1:
        ap.error("--batch, --steps, --reps and --interval must be positive, --warmup non-negative")
    args.mode = modes
    return args


def build_model():
    nn = torch.nn
    chans = [3, 32, 64, 128, 256, 256]
    layers = []
    for i in range(5):
        layers += [nn.Conv2d(chans[i], chans[i + 1], 3, padding=1), nn.BatchNorm2d(chans[i + 1]), nn.ReLU(inplace=True)]
        if i < 4:
            layers.append(nn.MaxPool2d(2))
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(chans[-1], 10)]
    return nn.Sequential(*layers)


# The logging functions are kept apart (and named log_*) so that the probe's sites for them can be told
# from the harness's own synchronizations (timing) by function name.
def log_loss(loss, sink):
    sink.append(loss.item())


def log_norms(model, sink):
    sink.append([p.grad.norm().item() for p in model.parameters()])


def keep_norms(model):
    """The norms mode without its reads: the 22 norms, kept (until the next step) instead of read."""
    return [p.grad.norm() for p in model.parameters()]


def stats_on_gpu(model, loss, buf, step, interval):
    buf[step % interval] = torch.stack([p.grad.norm() for p in model.parameters()] + [loss.detach()])


def log_batched(model, loss, buf, step, interval, sink):
    stats_on_gpu(model, loss, buf, step, interval)
    if step % interval == interval - 1:
        sink.append(buf.cpu())


class Config:
    """One (mode, batch) training setup: its own model, optimizer, data and step counter."""

    def __init__(self, mode, batch, args):
        dev = torch.device("cuda")
        torch.manual_seed(args.seed)
        self.mode, self.batch, self.interval = mode, batch, args.interval
        self.model = build_model().to(dev)
        nparams = len(list(self.model.parameters()))
        assert nparams == 22, nparams
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)
        self.loss_fn = torch.nn.CrossEntropyLoss()
        self.nbatches = 4  # a few distinct batches, all resident on the GPU
        self.images = torch.randn(self.nbatches, batch, 3, 64, 64, device=dev)
        self.labels = torch.randint(0, 10, (self.nbatches, batch), device=dev)
        self.buf = torch.zeros(args.interval, nparams + 1, device=dev)
        self.sink = []
        self.kept = []
        self.step = 0

    def train_step(self):
        i = self.step % self.nbatches
        model, mode = self.model, self.mode
        out = model(self.images[i])
        loss = self.loss_fn(out, self.labels[i])
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        if mode == "loss":
            log_loss(loss, self.sink)
        elif mode == "norms":
            log_norms(model, self.sink)
        elif mode == "batched":
            log_batched(model, loss, self.buf, self.step, self.interval, self.sink)
        elif mode == "compute":
            stats_on_gpu(model, loss, self.buf, self.step, self.interval)
        elif mode == "unread":
            self.kept = keep_norms(model)
        self.step += 1
        if len(self.sink) > 1000:
            self.sink.clear()

    def timed(self, steps):
        """ms/step over `steps` steps, the GPU drained before both clock reads."""
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(steps):
            self.train_step()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e3 / steps


def rotated(items, rep, order):
    """The order of the modes in repetition `rep`: rotated by one each repetition, or fixed."""
    k = rep % len(items) if order == "rotate" else 0
    return items[k:] + items[:k]


def run_batch(batch, args):
    """All modes of one batch size. The repetitions are interleaved (rep 0 of every mode, then rep 1...)
    so that slow drifts of the machine spread over all modes instead of favouring one."""
    configs = [Config(mode, batch, args) for mode in args.mode]
    for c in configs:
        for _ in range(args.warmup):
            c.train_step()
    results = []
    for rep in range(args.reps):
        for c in rotated(configs, rep, args.order):
            ms = c.timed(args.steps)
            results.append({"lang": "python", "mode": c.mode, "batch": batch, "rep": rep, "ms_per_step": ms})
            print("python mode=%-8s batch=%-4d rep=%d  %.3f ms/step" % (c.mode, batch, rep, ms),
                  file=sys.stderr, flush=True)
    return results, {"%s/%d" % (c.mode, batch): c.step for c in configs}


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if torch is None:
        sys.exit("cnn_bench: PyTorch is not installed")
    if not torch.cuda.is_available():
        sys.exit("cnn_bench: no CUDA device is available")
    results, total_steps = [], {}
    for batch in args.batch:
        res, steps = run_batch(batch, args)
        results += res
        total_steps.update(steps)
    medians = {}
    for r in results:
        medians.setdefault("%s/%d" % (r["mode"], r["batch"]), []).append(r["ms_per_step"])
    doc = {
        "bench": "cnn_bench.py",
        "lang": "python",
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "pid": os.getpid(),
        "config": {"steps": args.steps, "warmup": args.warmup, "reps": args.reps, "interval": args.interval,
                   "order": args.order},
        "total_steps": total_steps,  # steps run per configuration, warm-up included (all calls a probe sees)
        "results": results,
        "median_ms_per_step": {k: statistics.median(v) for k, v in medians.items()},
    }
    text = json.dumps(doc, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
