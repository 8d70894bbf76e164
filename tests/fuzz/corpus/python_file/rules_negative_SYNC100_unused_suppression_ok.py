"""Suppressions that each silence a finding, and comments that belong to other tools."""
# synclint: ignore-file[SYNC002]
import logging

import torch

logger = logging.getLogger("train")
device = torch.device("cuda")
model = torch.nn.Linear(8, 1).to(device)
for step in range(100):
    x = torch.randn(16, 8, device=device)
    loss = model(x).square().mean()
    loss.backward()
    # OK: the suppression silences the .item() on its line.
    total = loss.item()  # synclint: ignore[SYNC001]
    # OK: by rule name, and with the flake8 spelling.
    worst = loss.abs().max().item()  # synclint: ignore[tensor-item]
    print(f"loss {loss}")  # noqa: SYNC005
    # OK: the file-level suppression silences this .tolist().
    values = model(x).squeeze(1).tolist()
    # OK: a bare noqa belongs to other linters, and other tools' codes are not synclint's.
    count = step + 1  # noqa
    ratio = total / count  # noqa: E501
    # OK: a bare ignore on a line with a finding.
    peak = float(loss)  # synclint: ignore
