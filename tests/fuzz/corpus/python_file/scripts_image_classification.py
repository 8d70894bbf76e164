"""Train a small CNN on CIFAR-10 and keep the best checkpoint.

    python image_classification.py --data ./data --epochs 30 --batch-size 128 --out runs/cnn

A typical first training script: every statistic is read back to the host as soon as it is computed.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(128, 256, 3, padding=1), nn.BatchNorm2d(256), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.dropout = nn.Dropout(0.2)
        self.classifier = nn.Linear(256, num_classes)

    def forward(self, x):
        # OK: hot by name, but nothing here needs a value on the host.
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(self.dropout(x))


def parse_args():
    p = argparse.ArgumentParser(description="CIFAR-10 CNN")
    p.add_argument("--data", default="./data")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--weight-decay", type=float, default=5e-4)
    p.add_argument("--log-interval", type=int, default=100)
    p.add_argument("--out", default="runs/cnn")
    return p.parse_args()


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    mean, std = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(),
                          T.Normalize(mean, std)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])
    train_set = torchvision.datasets.CIFAR10(args.data, train=True, download=True, transform=train_tf)
    test_set = torchvision.datasets.CIFAR10(args.data, train=False, download=True, transform=test_tf)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=2)
    test_loader = DataLoader(test_set, batch_size=256, shuffle=False, num_workers=2)

    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                                weight_decay=args.weight_decay, nesterov=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs,
                                                    steps_per_epoch=len(train_loader))
    best_acc = 0.0

    for epoch in range(args.epochs):
        model.train()
        running_loss, correct, total = 0.0, 0, 0
        max_grad_norm = 0.0
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device), y.to(device)
#                  ^ SYNC011 warning
#                                ^ SYNC011 warning
            logits = model(x)
            loss = F.cross_entropy(logits, y, label_smoothing=0.1)

            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            # OK: `p.grad is None` is a Python identity test, not a read of the tensor.
            grad_norms = [p.grad.norm().item() for p in model.parameters() if p.grad is not None]
#                         ^ SYNC001 warning "18 reads per step"
            max_grad_norm = max(max_grad_norm, max(grad_norms))
            optimizer.step()
            scheduler.step()

            running_loss += loss.item()
#                           ^ SYNC001 warning
            pred = logits.argmax(dim=1)
            correct += (pred == y).sum().item()
#                      ^ SYNC001 warning
            # OK: sizes and shapes are host metadata.
            total += y.size(0)

            if step % args.log_interval == 0:
                print(f"epoch {epoch} [{step}/{len(train_loader)}] loss {loss:.4f} "
#                                                                        ^ SYNC005 note "logging interval"
                      f"acc {correct / max(total, 1):.3f} max|g| {max_grad_norm:.2f}")

        model.eval()
        all_preds, all_labels = [], []
        with torch.no_grad():
            for x, y in test_loader:
                # OK: asynchronous copy.
                x = x.to(device, non_blocking=True)
                logits = model(x)
                all_preds.append(logits.argmax(dim=1).cpu().numpy())
#                                ^ SYNC003 warning
                # OK: y never left the host.
                all_labels.append(y.numpy())
        preds = np.concatenate(all_preds)
        labels = np.concatenate(all_labels)
        val_acc = float((preds == labels).mean())
        per_class = [float((preds[labels == c] == c).mean()) for c in range(10)]

        print(f"epoch {epoch}: train loss {running_loss / len(train_loader):.4f} "
              f"train acc {correct / total:.3f} val acc {val_acc:.3f} "
              f"worst class {int(np.argmin(per_class))}")
        # OK: val_acc is a Python float.
        if val_acc > best_acc:
            best_acc = val_acc
            torch.save({
                "epoch": epoch,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                # expectation: once per epoch (in the epoch loop, after the step loop) -> note
                "last_loss": loss.item(),
#                            ^ SYNC001 note "once per epoch"
                "val_acc": val_acc,
            }, os.path.join(args.out, "best.pt"))

    print(f"best val acc {best_acc:.3f}")


if __name__ == "__main__":
    main()
