"""Loaders wrapped by a launcher: accelerate's prepared loader copies each batch to the GPU without
non_blocking (a stream sync per step); the batches it yields are already on the device."""
import torch
from accelerate import Accelerator

accelerator = Accelerator()
net = build_network()
opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
train_loader = torch.utils.data.DataLoader(make_dataset(), batch_size=16)
sched = make_schedule(opt)
net, opt, train_loader, sched = accelerator.prepare(net, opt, train_loader, sched)

for epoch in range(3):
    for step, batch in enumerate(train_loader):
#                      ^ SYNC011 warning "loader prepared for the device"
        pixels = batch["pixels"].to(accelerator.device)
        loss = net(pixels).pow(2).mean()
        accelerator.backward(loss)
        opt.step()
        sched.step()
        stats = {"loss": loss.detach().item(), "lr": sched.get_last_lr()[0]}
#                        ^ SYNC001 warning
        accelerator.log(stats, step=step)


def train_step(sample, net, params):
    sample = move_to_cuda(sample)
    loss = net(sample).mean()
    loss.backward()
    gnorm = torch.nn.utils.clip_grad_norm_(params, 1.0)
    if gnorm > 10:
#      ^ SYNC006 warning
        print(f"large gradient norm {gnorm:.2f}")
#                                    ^ SYNC005 warning
    return loss


for step, sample in enumerate(make_iterator()):
    train_step(sample, net, net.parameters())
