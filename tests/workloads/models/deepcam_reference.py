"""DeepCAM as the MLPerf HPC reference describes it, written independently of the C++ model.

The reference network is DeepLabv3_plus(n_input=16, n_classes=3, os=16) in mlcommons/hpc
(deepcam/src/deepCam/architecture/deeplab_xception.py). This script rebuilds that structure from
its description with Debian's torch, under the reference's parameter names, so that the C++
model's names, shapes, count and outputs can be compared with it.

  deepcam_reference.py names               one "name shape..." line per parameter and buffer,
                                           then "parameters N"
  deepcam_reference.py parity DIR H W      writes DIR/weights.pt (state dict) and DIR/io.pt
                                           (a 2x16xHxW input and, in eval mode, the backbone's
                                           features and low-level features, the ASPP output
                                           and the logits)
"""
import sys

import torch
from torch import nn
import torch.nn.functional as F


class WrappedBatchNorm(nn.Module):
    """The reference wraps each BatchNorm2d in a module (GBN) whose only child is "bn"."""

    def __init__(self, channels):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return self.bn(x)


class Separable(nn.Module):
    """Depthwise 3x3 (padding = dilation, so 'same' at stride 1) then pointwise 1x1; no biases."""

    def __init__(self, cin, cout, stride=1, dilation=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cin, 3, stride=stride, padding=dilation, dilation=dilation,
                               groups=cin, bias=False)
        self.pointwise = nn.Conv2d(cin, cout, 1, bias=False)

    def forward(self, x):
        return self.pointwise(self.conv1(x))


class XceptionBlock(nn.Module):
    """reps x (separable, BN, ReLU) without the last ReLU, widening on the first unit
    (grow_first) or the last; then a stride-2 separable when strided, or a stride-1 one when it
    is the last block of a flow. A 1x1 conv + BN skip when the shape changes."""

    def __init__(self, cin, cout, reps, stride=1, dilation=1, end_relu=True, grow_first=True,
                 is_last=False):
        super().__init__()
        self.end_relu = end_relu
        if cin != cout or stride != 1:
            self.skip = nn.Conv2d(cin, cout, 1, stride=stride, bias=False)
            self.skipbn = WrappedBatchNorm(cout)
        else:
            self.skip = None
        widths = [(cin, cout)] + [(cout, cout)] * (reps - 1) if grow_first else \
            [(cin, cin)] * (reps - 1) + [(cin, cout)]
        units = []
        for a, b in widths:
            units += [Separable(a, b, dilation=dilation), WrappedBatchNorm(b), nn.ReLU()]
        units = units[:-1]
        if stride != 1:
            units.append(Separable(cout, cout, stride=2))
        elif is_last:
            units.append(Separable(cout, cout))
        self.rep = nn.Sequential(*units)

    def forward(self, x):
        skip = x if self.skip is None else self.skipbn(self.skip(x))
        y = self.rep(x) + skip
        return F.relu(y) if self.end_relu else y


class Xception(nn.Module):
    """The modified aligned Xception at output stride 16: entry flow, 16 middle blocks, and an
    exit flow whose last three separables are dilated by 2."""

    def __init__(self, cin):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, 32, 3, stride=2, padding=1, bias=False)
        self.bn1 = WrappedBatchNorm(32)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1, bias=False)
        self.bn2 = WrappedBatchNorm(64)
        self.block1 = XceptionBlock(64, 128, 2, stride=2, end_relu=False)
        self.block2 = XceptionBlock(128, 256, 2, stride=2)
        self.block3 = XceptionBlock(256, 728, 2, stride=2, is_last=True)
        for i in range(4, 20):
            setattr(self, f"block{i}", XceptionBlock(728, 728, 3))
        self.block20 = XceptionBlock(728, 1024, 2, end_relu=False, grow_first=False, is_last=True)
        self.conv3 = Separable(1024, 1536, dilation=2)
        self.bn3 = WrappedBatchNorm(1536)
        self.conv4 = Separable(1536, 1536, dilation=2)
        self.bn4 = WrappedBatchNorm(1536)
        self.conv5 = Separable(1536, 2048, dilation=2)
        self.bn5 = WrappedBatchNorm(2048)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        low = F.relu(self.block1(x))
        x = low
        for i in range(2, 21):
            x = getattr(self, f"block{i}")(x)
        x = F.relu(self.bn3(self.conv3(x)))
        x = F.relu(self.bn4(self.conv4(x)))
        x = F.relu(self.bn5(self.conv5(x)))
        return x, low


class AsppBranch(nn.Module):
    def __init__(self, cin, cout, rate):
        super().__init__()
        k = 1 if rate == 1 else 3
        self.atrous_convolution = nn.Conv2d(cin, cout, k, padding=0 if rate == 1 else rate,
                                            dilation=rate, bias=False)
        self.bn = WrappedBatchNorm(cout)

    def forward(self, x):
        return F.relu(self.bn(self.atrous_convolution(x)))


class ChannelAffine(nn.Module):
    """Per-channel scale and shift (parameters "weights" and "bias", shape Cx1x1)."""

    def __init__(self, channels):
        super().__init__()
        self.weights = nn.Parameter(torch.ones(channels, 1, 1))
        self.bias = nn.Parameter(torch.zeros(channels, 1, 1))

    def forward(self, x):
        return self.weights * x + self.bias


class ImagePooling(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.global_average_pool = nn.Sequential(nn.AdaptiveAvgPool2d(1),
                                                 nn.Conv2d(cin, cout, 1, bias=False),
                                                 ChannelAffine(cout), nn.ReLU())

    def forward(self, x):
        return self.global_average_pool(x)


class Aspp(nn.Module):
    """The reference's "bottleneck": rates 1, 6, 12, 18 plus image pooling, fused by 1x1 + BN."""

    def __init__(self, cin=2048, cout=256):
        super().__init__()
        for i, rate in enumerate((1, 6, 12, 18), start=1):
            setattr(self, f"aspp{i}", AsppBranch(cin, cout, rate))
        self.global_avg_pool = ImagePooling(cin, cout)
        self.conv = nn.Conv2d(5 * cout, cout, 1, bias=False)
        self.bn = WrappedBatchNorm(cout)

    def forward(self, x):
        branches = [getattr(self, f"aspp{i}")(x) for i in range(1, 5)]
        pooled = self.global_avg_pool(x).expand(-1, -1, x.shape[2], x.shape[3])
        return F.relu(self.bn(self.conv(torch.cat(branches + [pooled], 1))))


def deconv(cin, cout):
    """A transposed 3x3 convolution that doubles height and width exactly."""
    return nn.ConvTranspose2d(cin, cout, 3, stride=2, padding=1, output_padding=1, bias=False)


class Decoder(nn.Module):
    """Two deconvolutions to 1/4, the low-level features joined, two 3x3 and a 1x1 convolution,
    and two more deconvolutions to full resolution (the last without BN or bias)."""

    def __init__(self, classes):
        super().__init__()
        self.deconv1 = nn.Sequential(deconv(256, 256), WrappedBatchNorm(256), nn.ReLU(),
                                     deconv(256, 256), WrappedBatchNorm(256), nn.ReLU())
        self.conv1 = nn.Sequential(nn.Conv2d(304, 256, 3, padding=1, bias=False),
                                   WrappedBatchNorm(256), nn.ReLU(),
                                   nn.Conv2d(256, 256, 3, padding=1, bias=False),
                                   WrappedBatchNorm(256), nn.ReLU(),
                                   nn.Conv2d(256, 256, 1))
        self.deconv2 = nn.Sequential(deconv(256, 256), WrappedBatchNorm(256), nn.ReLU())
        self.last_deconv = nn.Sequential(deconv(256, classes))

    def forward(self, x, low):
        x = self.conv1(torch.cat((self.deconv1(x), low), 1))
        return self.last_deconv(self.deconv2(x))


class DeepCam(nn.Module):
    def __init__(self, n_input=16, n_classes=3):
        super().__init__()
        self.xception_features = Xception(n_input)
        self.bottleneck = Aspp()
        self.conv2 = nn.Conv2d(128, 48, 1, bias=False)
        self.bn2 = WrappedBatchNorm(48)
        self.upsample = Decoder(n_classes)

    def forward(self, x):
        x, low = self.xception_features(x)
        low = F.relu(self.bn2(self.conv2(low)))
        return self.upsample(self.bottleneck(x), low)


def names(model):
    for name, tensor in model.state_dict().items():
        print(name, *tensor.shape)
    print("parameters", sum(p.numel() for p in model.parameters()))


def parity(model, out_dir, height, width):
    """Random BN statistics and affine parameters, so that loading them is part of the check."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.num_batches_tracked.fill_(7)
            elif isinstance(m, ChannelAffine):
                m.weights.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
    model.eval()
    x = torch.randn(2, 16, height, width)
    with torch.no_grad():
        features, low_level = model.xception_features(x)
        aspp = model.bottleneck(features)
        y = model(x)
    torch.save(dict(model.state_dict()), f"{out_dir}/weights.pt")
    torch.save({"input": x, "features": features, "low_level": low_level, "aspp": aspp,
                "output": y}, f"{out_dir}/io.pt")


def main():
    torch.manual_seed(0)
    model = DeepCam()
    if sys.argv[1:2] == ["names"]:
        names(model)
    elif sys.argv[1:2] == ["parity"] and len(sys.argv) == 5:
        parity(model, sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
