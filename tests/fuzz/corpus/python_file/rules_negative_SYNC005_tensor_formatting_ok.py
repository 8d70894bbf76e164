"""Formatting host values: Python numbers, shapes, dtypes and values read once per interval."""
import logging

import torch

log = logging.getLogger("train")
device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)
running = torch.zeros((), device=device)
for step in range(10_000):
    out = model(torch.randn(4, 8, device=device))
    loss = out.square().mean()
    running += loss.detach()
    print(f"step {step} shape {tuple(out.shape)} dtype {out.dtype} device {out.device}")
    log.debug("batch of %d rows", out.size(0))
    print("lr {:.2e}".format(1e-3))
    print("%d/%d" % (step, 10_000))
    if out.is_cuda and not out.is_contiguous():
        # Only on the failure path: the message is built when the error is raised.
        raise RuntimeError(f"unexpected layout for {out}")
