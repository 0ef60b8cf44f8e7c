"""torchvision's ResNet-50, the reference of the C++ ResNet50.

  torchvision_resnet50.py DIR SIZE

builds torchvision.models.resnet50() with seed 0, gives every BatchNorm random statistics and
affine parameters (so that loading them matters), and writes DIR/weights.pt (its state dict,
buffers included, as a plain dict) and DIR/io.pt (a 2x3xSIZExSIZE input and the eval-mode
logits).
"""
import sys

import torch
import torchvision


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out_dir, size = sys.argv[1], int(sys.argv[2])
    torch.manual_seed(0)
    model = torchvision.models.resnet50()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.num_batches_tracked.fill_(7)
    model.eval()
    x = torch.randn(2, 3, size, size)
    with torch.no_grad():
        y = model(x)
    torch.save(dict(model.state_dict()), f"{out_dir}/weights.pt")
    torch.save({"input": x, "output": y}, f"{out_dir}/io.pt")


if __name__ == "__main__":
    main()
