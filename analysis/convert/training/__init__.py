"""Training scripts: optimizers, schedulers, steps and loops, gradient accumulation, AMP/DDP, idioms."""
