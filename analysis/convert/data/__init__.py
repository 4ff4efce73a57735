"""Data and files: DataLoader pipelines, torchvision data, checkpoints (save/load/state_dict), model zoo."""
