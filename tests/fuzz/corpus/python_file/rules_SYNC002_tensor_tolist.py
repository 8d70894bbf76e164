"""SYNC002: `.tolist()` of GPU predictions while evaluating a text classifier."""
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, vocab=30522, dim=256, classes=4):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens, offsets):
        return self.head(self.embed(tokens, offsets))


def evaluate(model, loader, device):
    model.eval()
    predictions, labels = [], []
    with torch.no_grad():
        for tokens, offsets, y in loader:
            tokens = tokens.to(device, non_blocking=True)
            offsets = offsets.to(device, non_blocking=True)
            logits = model(tokens, offsets)
            predictions.extend(logits.argmax(-1).tolist())
#                              ^ SYNC002 warning
            labels.extend(y.tolist())
            top2 = logits.topk(2, dim=-1).indices
            for row in top2.tolist():
#                      ^ SYNC002 warning
                labels.append(row)
    return predictions, labels


def main(loader):
    device = torch.device("cuda")
    model = Classifier().to(device)
    return evaluate(model, loader, device)
