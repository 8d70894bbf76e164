"""The same loop with a fused optimizer and the default clip_grad_norm_: nothing syncs."""
import torch

device = torch.device("cuda")
model = torch.nn.Linear(128, 128).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
scaler = torch.amp.GradScaler("cuda")
for step in range(10_000):
    x = torch.randn(32, 128, device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().square().mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    lr_scheduler_step = optimizer.step
    # Host tensors compared on the host.
    assert torch.equal(torch.zeros(2), torch.zeros(2))
