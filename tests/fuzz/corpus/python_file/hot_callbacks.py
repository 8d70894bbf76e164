"""Per-step callbacks are hot by name: their bodies run every step even though no loop here calls them."""
import pytorch_lightning as pl
import torch
import torch.nn.functional as F


class LitClassifier(pl.LightningModule):
    def __init__(self, backbone, num_classes=10):
        super().__init__()
        self.backbone = backbone
        self.head = torch.nn.Linear(512, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.log("train/loss", loss)
        if loss > 5.0:
#          ^ SYNC006 warning "`training_step` is a per-step callback"
            print("diverging")
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        preds = self(x).argmax(-1)
        correct = (preds == y).sum().item()
#                 ^ SYNC001 warning "per-step callback"
        return correct

    def on_train_batch_end(self, outputs, batch, batch_idx):
        if batch_idx % 100 == 0:
            print(f"loss {outputs['loss']}")
#                         ^ SYNC005 note

    def configure_optimizers(self):
        # Not a per-step callback, and nothing calls it from a loop.
        return torch.optim.AdamW(self.parameters(), lr=1e-3)
