"""SYNC008: data-dependent output sizes in a detection head's loss computation."""
import torch
import torch.nn.functional as F

device = torch.device("cuda")
head = torch.nn.Conv2d(256, 85, 1).to(device)


def detection_loss(features, labels, num_classes=80):
    pred = head(features).flatten(2).transpose(1, 2)
    objectness = pred[..., 4].sigmoid()
    positive = objectness > 0.5
    pos_pred = pred[positive]
#              ^ SYNC008 warning
    idx = positive.nonzero()
#         ^ SYNC008 warning
    picked = torch.masked_select(objectness, positive)
#            ^ SYNC008 warning
    classes = torch.unique(labels)
#             ^ SYNC008 warning
    onehot = F.one_hot(labels)
#            ^ SYNC008 warning
    rows = torch.where(positive)
#          ^ SYNC008 warning
    counts = positive.sum(-1)
    expanded = torch.repeat_interleave(objectness, counts.flatten())
#              ^ SYNC008 warning
    objectness[positive] = objectness.mean()
#   ^ SYNC008 warning
    return pos_pred, idx, picked, classes, onehot, rows, expanded


for images, targets in loader:
    images = images.to(device, non_blocking=True)
    targets = targets.to(device, non_blocking=True)
    detection_loss(images, targets)
