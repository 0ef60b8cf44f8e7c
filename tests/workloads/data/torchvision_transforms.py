"""torchvision's ImageNet transforms on JPEGs, for data_test's comparison with the C++ reader.

Usage: torchvision_transforms.py JOBS
Each line of JOBS is "JPEG OUT val SIZE" or "JPEG OUT train TOP LEFT HEIGHT WIDTH SIZE FLIP":
the JPEG is decoded by torchvision.io (libjpeg), resized with antialiasing in float (as PIL
resizes), normalised with ImageNet's mean and std, and written to OUT as raw float32 [3, S, S].
"""
import sys

import torch
import torchvision.transforms.functional as F
from torchvision.io import ImageReadMode, decode_jpeg, read_file

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


def transform(image, mode, args):
    if mode == "val":
        size = int(args[0])
        return F.center_crop(F.resize(image, size * 256 // 224, antialias=True), size)
    top, left, height, width, size, flip = (int(a) for a in args)
    image = F.resized_crop(image, top, left, height, width, [size, size], antialias=True)
    return F.hflip(image) if flip else image


def main():
    with open(sys.argv[1]) as jobs:
        for line in jobs:
            jpeg, out, mode, *args = line.split()
            image = decode_jpeg(read_file(jpeg), mode=ImageReadMode.RGB).float()
            sample = (transform(image, mode, args) / 255 - MEAN) / STD
            with open(out, "wb") as f:
                f.write(sample.contiguous().numpy().tobytes())


if __name__ == "__main__":
    main()
