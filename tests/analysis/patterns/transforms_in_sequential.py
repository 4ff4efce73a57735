import torch
import torch.nn as nn
import torchvision.transforms as T

preprocess = nn.Sequential(T.Resize(224), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]))  # 1 expect: MS-API-MAPPED=torch.nn.Sequential, MS-CONTAINERS, MS-TRANSFORM-IN-MODEL=torchvision.transforms.Resize@manual | marked
layers = nn.ModuleList([nn.Linear(4, 4), T.Normalize([0.5], [0.5])])  # 2 expect: MS-API-MAPPED=torch.nn.ModuleList, MS-CONTAINERS, MS-API-MAPPED=torch.nn.Linear, MS-TRANSFORM-IN-MODEL=torchvision.transforms.Normalize@manual | marked
images = preprocess(torch.rand(1, 3, 256, 256))
