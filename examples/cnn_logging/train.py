"""A small CNN trained on synthetic 64x64 images, with four ways of logging training statistics.

    python3 train.py --log {none,loss,norms,batched} [--batch 16] [--steps 300] [--log-every 50]

  none     no statistics at all
  loss     the loss read as a Python number every step (one host-device synchronization per step)
  norms    the gradient norm of each of the 22 parameter tensors read as a Python number every step
           (22 synchronizations per step)
  batched  the same statistics stacked on the GPU and copied to the host once every --log-every steps

Prints the mean time per step. Runs on the GPU when there is one, on the CPU otherwise.
"""

import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    """Five convolution + batch-norm blocks and a linear head: 22 parameter tensors."""

    def __init__(self, channels=(3, 32, 64, 64, 128, 128), num_classes=10):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out), nn.ReLU())
            for c_in, c_out in zip(channels[:-1], channels[1:])
        )
        self.head = nn.Linear(channels[-1], num_classes)

    def forward(self, x):
        for block in self.blocks:
            x = F.max_pool2d(block(x), 2)
        return self.head(x.mean(dim=(2, 3)))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log", choices=["none", "loss", "norms", "batched"], default="none")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--log-every", type=int, default=50)
    return parser.parse_args()


def main():
    args = parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)

    model = SmallCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    # A few synthetic batches, made on the device once, so the loop measures training and logging only.
    images = torch.randn(8, args.batch, 3, 64, 64, device=device)
    labels = torch.randint(0, 10, (8, args.batch), device=device)

    history = []
    # The statistics of the steps since the last copy: the loss and one gradient norm per parameter.
    stats = torch.zeros(args.log_every, 1 + len(list(model.parameters())), device=device)
    start = time.perf_counter()
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            # Start the clock once the warm-up work queued on the GPU has finished.
            if device == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()

        x, y = images[step % 8], labels[step % 8]
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

        if args.log == "loss":
            history.append(loss.item())
        elif args.log == "norms":
            norms = {}
            for name, param in model.named_parameters():
                norms[name] = param.grad.norm().item()
            history.append(norms)
        elif args.log == "batched":
            row = step % args.log_every
            stats[row, 0] = loss.detach()
            stats[row, 1:] = torch.stack([param.grad.norm() for param in model.parameters()])
            if (step + 1) % args.log_every == 0:
                history.extend(stats.tolist())

    if device == "cuda":
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    n_params = sum(1 for _ in model.parameters())
    print(f"device={device} batch={args.batch} log={args.log} parameter_tensors={n_params} "
          f"steps={args.steps}: {1000 * elapsed / args.steps:.2f} ms/step ({len(history)} records)")


if __name__ == "__main__":
    main()
