"""A LightningModule whose per-step callbacks keep everything on the GPU: nothing to report."""
import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchmetrics


class Seq2SeqClassifier(pl.LightningModule):
    def __init__(self, vocab_size=32000, dim=512, num_layers=6, num_classes=20):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(nn.TransformerEncoderLayer(dim, 8, batch_first=True) for _ in range(num_layers))
        self.head = nn.Linear(dim, num_classes)
        self.train_acc = torchmetrics.Accuracy(task="multiclass", num_classes=num_classes)

    def forward(self, input_ids, attention_mask=None):
        x = self.embed(input_ids)
        if attention_mask is not None and attention_mask.dim() == 2:
            padding = attention_mask == 0
        else:
            padding = None
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=padding)
        if self.training and x.size(1) > 1:
            x = F.dropout(x, 0.1)
        return self.head(x.mean(dim=1))

    def training_step(self, batch, batch_idx):
        logits = self(batch["input_ids"], batch["attention_mask"])
        loss = F.cross_entropy(logits, batch["labels"])
        self.train_acc(logits.argmax(-1), batch["labels"])
        self.log("train/loss", loss, prog_bar=True)
        self.log("train/acc", self.train_acc, on_step=True)
        if batch_idx % 100 == 0 and self.global_rank == 0:
            self.logger.experiment.add_text("note", f"step {batch_idx}", self.global_step)
        return loss

    def validation_step(self, batch, batch_idx):
        logits = self(batch["input_ids"], batch["attention_mask"])
        self.log("val/loss", F.cross_entropy(logits, batch["labels"]), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=3e-4, fused=True)
