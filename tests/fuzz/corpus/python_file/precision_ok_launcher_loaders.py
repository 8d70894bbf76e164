"""Look-alikes: Fabric's wrapped loaders copy with non_blocking, their batches are on the device already,
and host values from a scheduler or a summary method of the model are not GPU tensors."""
import torch
from lightning.fabric import Fabric

fabric = Fabric(accelerator="cuda")
net = build_network()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
net, opt = fabric.setup(net, opt)
loader = fabric.setup_dataloaders(make_loader())
sched = make_schedule(opt)

for epoch in range(3):
    for inputs, targets in loader:
        targets = targets.to(fabric.device)
        loss = torch.nn.functional.cross_entropy(net(inputs), targets)
        fabric.backward(loss)
        opt.step()
        flops = net.estimate_flops(0.5)
        print(f"flops {flops:.2e} lr {sched.get_last_lr()[0]:.2e}")


def prepare(sample):
    sample = move_to_cuda(sample)
    if sample == "DUMMY":
        raise ValueError("placeholder batch")
    return sample
