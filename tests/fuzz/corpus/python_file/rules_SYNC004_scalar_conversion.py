"""SYNC004: Python number conversions of GPU tensors in a regression loop."""
import math

import torch
import torch.nn as nn


def train(model: nn.Module, loader, device="cuda", epochs=3):
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=3e-4, fused=True)
    for epoch in range(epochs):
        epoch_loss = 0.0
        for features, target in loader:
            features = features.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)
            pred = model(features)
            loss = torch.nn.functional.mse_loss(pred, target)
            if math.isnan(loss):
#              ^ SYNC004 warning
                raise RuntimeError("NaN loss")
            opt.zero_grad()
            loss.backward()
            opt.step()
            epoch_loss += float(loss)
#                         ^ SYNC004 warning
            n_pos = int((pred > 0).sum())
#                   ^ SYNC004 warning
            rmse = round(torch.sqrt(loss), 4)
#                  ^ SYNC004 warning
            _ = (n_pos, rmse)
        print(epoch, epoch_loss)
