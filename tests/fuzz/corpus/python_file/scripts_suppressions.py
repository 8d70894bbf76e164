# synclint: ignore-file[SYNC002]
"""Tabular regression with a small MLP; a few syncs are deliberate and suppressed, and a few suppression
comments have gone stale since the code around them changed.

    python suppressions.py --csv data/housing.csv --epochs 50
"""
import argparse
import logging
import math

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

logger = logging.getLogger("tabular")


def load(csv_path, target):
    df = pd.read_csv(csv_path)
    y = df.pop(target).to_numpy(dtype=np.float32)
    x = df.select_dtypes("number").fillna(0.0).to_numpy(dtype=np.float32)
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-6)
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y[:, None]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--csv", required=True)
    p.add_argument("--target", default="price")
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--patience", type=int, default=5)
    args = p.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    ds = load(args.csv, args.target)
    loader = DataLoader(ds, batch_size=512, shuffle=True, num_workers=2, pin_memory=True)
    model = nn.Sequential(nn.Linear(ds.tensors[0].shape[1], 256), nn.SiLU(), nn.Linear(256, 256), nn.SiLU(),
                          nn.Linear(256, 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)

    best, bad_epochs = math.inf, 0
    for epoch in range(args.epochs):
        total, count = 0.0, 0
        residuals = []
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            pred = model(x)
            loss = nn.functional.mse_loss(pred, y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

            # Deliberate: the early-stopping metric needs the exact sum; the cost was measured and accepted.
            total += loss.item() * y.size(0)  # synclint: ignore[SYNC001]
            count += y.size(0)
            # Silenced with the flake8-style spelling.
            logger.debug("batch loss %s", loss.item())  # noqa: SYNC001
            # Suppressed by the file-level comment at the top.
            residuals.extend((pred - y).squeeze(1).tolist())
            # A rule name works as well as an id.
            worst = (pred - y).abs().max().item()  # synclint: ignore[tensor-item]
            # Not a synclint code: ignored, never reported as unused.
            logger.debug("worst abs residual in this batch: %.4f (mean target %.4f, batch size %d)", worst, float(y.mean()), y.size(0))  # noqa: E501
#                                                                                                           ^ SYNC004 warning
            # Stale: the loss is accumulated as a Python float now, nothing here syncs.
            count_check = count  # synclint: ignore[SYNC001]
#                                ^ SYNC100 warning
            # Stale for one of its two rules: only the .item() is still there.
            last = loss.item()  # synclint: ignore[SYNC001, SYNC005]
#                               ^ SYNC100 warning
            # Suppresses SYNC005 but the line also reads .item(): that one is still reported.
            print(f"{epoch}: {pred.mean()} {loss.item():.4f}", end="\r")  # noqa: SYNC005
#                                           ^ SYNC001 warning

        epoch_loss = total / max(count, 1)
        logger.info("epoch %d loss %.5f (last %.5f, count %d, median residual %.4f)",
                    epoch, epoch_loss, last, count_check, float(np.median(residuals)))
        if epoch_loss < best:
            best, bad_epochs = epoch_loss, 0
            torch.save(model.state_dict(), "best_mlp.pt")
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                break


if __name__ == "__main__":
    main()
