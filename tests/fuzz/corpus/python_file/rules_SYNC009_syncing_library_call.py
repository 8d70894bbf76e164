"""SYNC009: library calls that return host values computed on the GPU, in a mixed-precision loop."""
import torch
from torch.nn.utils import clip_grad_norm_

device = torch.device("cuda")
model = torch.nn.Transformer(d_model=256, nhead=8).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch.amp.GradScaler("cuda")
reference = torch.zeros(10, 32, 256, device=device)
check_outputs = True

for step, (src, tgt) in enumerate(loader):
    src = src.to(device, non_blocking=True)
    tgt = tgt.to(device, non_blocking=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(src, tgt)
        loss = out.float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
#   ^ SYNC009 warning
    scaler.step(optimizer)
#   ^ SYNC009 warning
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    if check_outputs:
        same = torch.equal(out, reference)
#              ^ SYNC009 warning
        close = out.allclose(reference, atol=1e-3)
#               ^ SYNC009 warning
    scale = scaler.get_scale()
#           ^ SYNC009 warning
