import torch


def shape_of(item):
    image, label = item
    return image.size()  # 1 expect: MS-API-MAPPED=torch.Tensor.size@unresolved | has image.shape
