"""Look-alike: a device fixed to the CPU keeps an environment loop free of host-device copies."""
import torch

cpu = torch.device("cpu")


def play(env, scorer, steps=500):
    scorer = scorer.to(cpu)
    obs = torch.zeros(4, device=cpu)
    done, t = False, 0
    while not done and t < steps:
        choice = int(scorer(obs).argmax())
        obs, done = env.step(choice)
        obs = torch.tensor(obs, device=cpu)
        t += 1


def embed(batches, encoder):
    for feats in batches:
        codes = encoder(feats.cuda(non_blocking=True))
        bias = torch.ones(codes.shape[-1], device=codes.device)
        codes.add_(bias)


def normalise(batches, stats):
    mean = torch.tensor(stats)
    for feats in batches:
        feats = feats.cuda(non_blocking=True)
        # Rebound to its device copy: only the first iteration copies.
        mean = mean.to(feats.device)
        feats.sub_(mean)
