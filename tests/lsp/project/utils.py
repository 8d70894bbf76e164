def log_loss(loss):
    return loss.item()
