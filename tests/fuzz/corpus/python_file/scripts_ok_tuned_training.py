"""ResNet-18 on CIFAR-10, written so the step loop never waits for the GPU.

    python ok_tuned_training.py --data ./data --epochs 20 --batch-size 256

- batches come from pinned memory and are copied with non_blocking=True;
- every statistic (loss, accuracy, gradient norms, non-finite count) stays on the GPU, one slot per step,
  and is copied to the host once, after training;
- epoch times are measured with CUDA events, read after the final synchronize;
- AdamW is fused, so GradScaler.step keeps found_inf on the device.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="./data")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--mixup-alpha", type=float, default=0.2)
    p.add_argument("--drop-image-prob", type=float, default=0.05)
    p.add_argument("--out", default="runs/resnet18")
    return p.parse_args()


def main():
    args = parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cudnn.benchmark = True

    tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(),
                    T.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))])
    train_set = torchvision.datasets.CIFAR10(args.data, train=True, download=True, transform=tf)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=8,
                              pin_memory=True, persistent_workers=True, drop_last=True)

    model = torchvision.models.resnet18(num_classes=10).to(device, memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05, fused=True)
    scaler = torch.amp.GradScaler("cuda")

    steps_per_epoch = len(train_loader)
    total_steps = args.epochs * steps_per_epoch
    loss_hist = torch.zeros(total_steps, device=device)
    correct_hist = torch.zeros(total_steps, device=device)
    grad_norm_hist = torch.zeros(total_steps, device=device)
    max_param_grad_hist = torch.zeros(total_steps, device=device)
    nonfinite_steps = torch.zeros((), dtype=torch.int32, device=device)
    epoch_events = []

    step = 0
    for epoch in range(args.epochs):
        model.train()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for x, y in train_loader:
            x = x.to(device, non_blocking=True, memory_format=torch.channels_last)
            y = y.to(device, non_blocking=True)

            # Mixup with a host-side coefficient, and a few images blanked out entirely.
            lam = float(np.random.beta(args.mixup_alpha, args.mixup_alpha))
            dropped = torch.rand(x.size(0), device=device) < args.drop_image_prob
            x[dropped] = 0.0
            y_soft = F.one_hot(y, num_classes=10).float()
            x = lam * x + (1.0 - lam) * x.flip(0)
            y_soft = lam * y_soft + (1.0 - lam) * y_soft.flip(0)

            with torch.autocast("cuda", dtype=torch.float16):
                logits = model(x)
                loss = F.cross_entropy(logits, y_soft)

            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            grads = [p.grad for p in model.parameters() if p.grad is not None]
            per_param = torch.stack([g.norm() for g in grads])
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()

            loss_hist[step] = loss.detach()
            correct_hist[step] = (logits.argmax(dim=1) == y).sum()
            grad_norm_hist[step] = grad_norm
            max_param_grad_hist[step] = per_param.max()
            nonfinite_steps += (~torch.isfinite(loss)).int()
            step += 1
        end.record()
        epoch_events.append((start, end))

    # Training is over: one synchronize, one copy.
    torch.cuda.synchronize()
    epoch_ms = [s.elapsed_time(e) for s, e in epoch_events]
    stats = torch.stack([loss_hist, correct_hist, grad_norm_hist, max_param_grad_hist]).cpu()
    per_epoch = stats.view(4, args.epochs, steps_per_epoch).mean(dim=2)
    for epoch in range(args.epochs):
        print(f"epoch {epoch}: loss {per_epoch[0, epoch]:.4f} "
              f"acc {per_epoch[1, epoch] / args.batch_size:.3f} "
              f"grad norm {per_epoch[2, epoch]:.3f} max param grad {per_epoch[3, epoch]:.3f} "
              f"({epoch_ms[epoch] / steps_per_epoch:.2f} ms/step)")
    print(f"non-finite losses: {int(nonfinite_steps)}")

    os.makedirs(args.out, exist_ok=True)
    torch.save({"model": model.state_dict(), "stats": stats}, os.path.join(args.out, "final.pt"))


if __name__ == "__main__":
    main()
