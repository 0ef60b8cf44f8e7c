"""The Python side of train_bench: torchvision's resnet50 training steps with torch.optim.SGD,
set up as the C++ side sets up hetbench-train's step (same batch, image size, threads, SGD with
momentum, fp32). After its warm-up steps it prints "ready"; then each line "step" on stdin runs
one step and prints its seconds, so that the C++ side can interleave its own steps with these
and both see the same load on the machine; "quit" ends it.

Usage: train_bench.py BATCH IMAGE_SIZE THREADS WARMUP LR WEIGHT_DECAY
"""
import sys
import time

import torch
import torchvision


def main():
    batch, size, threads, warmup = (int(a) for a in sys.argv[1:5])
    lr, weight_decay = float(sys.argv[5]), float(sys.argv[6])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = torchvision.models.resnet50()
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9,
                                weight_decay=weight_decay)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    images = torch.randn(batch, 3, size, size)
    labels = torch.randint(0, 1000, (batch,))

    def step():
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        return loss.item()

    for _ in range(warmup):
        step()
    print("ready", flush=True)
    for command in sys.stdin:
        if command.strip() != "step":
            break
        start = time.perf_counter()
        step()
        print(time.perf_counter() - start, flush=True)


if __name__ == "__main__":
    main()
