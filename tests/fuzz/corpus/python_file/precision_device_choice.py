"""A device picked at run time, CUDA when it is there, is a GPU device for the analysis."""
import torch


def rollout(rank, env, policy_net):
    device = torch.device(f"cuda:{rank}" if torch.cuda.is_available() else "cpu")
    policy = policy_net.to(device)
    state = torch.zeros(4, device=device)
    for t in range(1_000):
        move = policy(state).argmax()
        state, gain = env.step(int(move))
#                              ^ SYNC004 warning
        state = torch.tensor(state, device=device)
#               ^ SYNC011 warning


def score(batches, encoder):
    for feats in batches:
        codes = encoder(feats.cuda(non_blocking=True))
        bias = torch.ones(codes.shape[-1]).to(codes.device)
#              ^ SYNC011 warning
        print(codes.add(bias).sum(), end="")
#       ^ SYNC005 warning


def rescale(batches, stats):
    for feats in batches:
        feats = feats.cuda(non_blocking=True)
        scale = torch.tensor(stats)
        scale = scale.to(feats.device)
#               ^ SYNC011 warning
        feats.mul_(scale)
