"""SYNC003: host copies of GPU tensors inside a segmentation validation loop."""
import numpy as np
import torch
import torch.nn as nn

device = "cuda"
net = nn.Conv2d(3, 21, 1).to(device)


def validate(loader):
    ious, masks = [], []
    for images, targets in loader:
        images = images.to(device, non_blocking=True)
        out = net(images)
        # One finding per chain: after .cpu() the value is on the host.
        pred = out.argmax(1).detach().cpu().numpy()
#              ^ SYNC003 warning
        probs = out.softmax(1).to("cpu")
#               ^ SYNC003 warning
        masks.append(out.argmax(1).numpy(force=True))
#                    ^ SYNC003 warning
        ious.append(np.array([out.mean().cpu(), out.std().cpu()]))
#                             ^ SYNC003 warning
#                                               ^ SYNC003 warning
        _ = (pred, probs)
    return ious, masks


for epoch in range(10):
    validate(val_loader)
