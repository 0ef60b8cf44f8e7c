"""The references that bench/gpu/figures sets beside hetbench-train: the same model, batch,
precision, layout and optimizer as hetbench-train's synthetic run, trained in PyTorch's Python
eager mode (or through torch.compile), on one fixed random batch kept on the GPU.

It prints one JSON line: samples per second over the timed steps (host clock around them, the
GPU synchronised at both ends, as hetbench-train times an epoch), the median step, the loss of
each step, and the GPU's energy over the timed steps from NVML's energy counter (pynvml), with
samples per watt-hour.

  reference.py --model resnet50 --batch 256 --precision bf16 --channels-last [--compile]

With --profile PATH, the timed steps run under torch.profiler, and PATH receives what
hetbench-train's --profile writes (docs/workloads.md, "Profiling an epoch"): each operator and
CUDA kernel by name with its calls and total time; the figures then include the profiler's
overhead.
"""
import argparse
import contextlib
import json
import math
import os
import sys
import tempfile
import time

import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


class CosmoFlow(nn.Module):
    """The MLPerf HPC reference structure (docs/workloads.md) under the C++ model's names: five
    Conv3d + LeakyReLU(0.3) + MaxPool3d(2) blocks of 32..512 filters (conv1..conv5), then Dense
    128, 64 and 4 (fc1..fc3) with dropout 0.5 after the first two, tanh x 1.2."""

    def __init__(self, side=128, dropout=0.5):
        super().__init__()
        self.dropout = dropout
        cin = 4
        for i, cout in enumerate((32, 64, 128, 256, 512)):
            setattr(self, f"conv{i + 1}", nn.Conv3d(cin, cout, 3, padding=1))
            cin = cout
        self.fc1 = nn.Linear(512 * (side // 32) ** 3, 128)
        self.fc2 = nn.Linear(128, 64)
        self.fc3 = nn.Linear(64, 4)

    def forward(self, x):
        for i in range(5):
            x = F.max_pool3d(F.leaky_relu(getattr(self, f"conv{i + 1}")(x), 0.3), 2)
        x = x.flatten(1)
        x = F.dropout(F.leaky_relu(self.fc1(x), 0.3), self.dropout, self.training)
        x = F.dropout(F.leaky_relu(self.fc2(x), 0.3), self.dropout, self.training)
        return torch.tanh(self.fc3(x)) * 1.2


# The DeepCAM reference's class weights: pixel frequencies to the power -0.125.
DEEPCAM_FREQUENCIES = (0.986267818390377, 0.0004578708870701058, 0.01327431072255291)


def build(model_name, batch, device, size=None):
    """The model, a loss function of (output, target), and one random batch on the device, at
    the benchmark's sample size or at `size` (a list of one or two sides)."""
    if model_name == "resnet50":
        import torchvision
        model = torchvision.models.resnet50()
        side = size[0] if size else 224
        images = torch.randn(batch, 3, side, side, device=device)
        labels = torch.randint(0, 1000, (batch,), device=device)
        criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
        return model, criterion, images, labels
    if model_name == "cosmoflow":
        side = size[0] if size else 128
        model = CosmoFlow(side)
        counts = torch.randint(0, 16, (batch, 4, side, side, side), device=device)
        universes = torch.log1p(counts.float())
        targets = torch.rand(batch, 4, device=device) * 2 - 1
        return model, F.mse_loss, universes, targets
    if model_name == "deepcam":
        sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "workloads", "models"))
        from deepcam_reference import DeepCam
        model = DeepCam()
        height, width = size if size else (768, 1152)
        images = torch.randn(batch, 16, height, width, device=device)
        labels = torch.randint(0, 3, (batch, height, width), device=device)
        weights = torch.tensor([f ** -0.125 for f in DEEPCAM_FREQUENCIES], device=device)

        def criterion(logits, target):
            return F.cross_entropy(logits.float(), target, weight=weights.to(logits.device),
                                   reduction="none").mean()
        return model, criterion, images, labels
    raise SystemExit(f"unknown model {model_name}")


def optimizer_for(model_name, parameters, batch):
    """hetbench-train's defaults (workloads/models/src/descriptor.cc)."""
    if model_name == "resnet50":
        return torch.optim.SGD(parameters, lr=0.1 * batch / 256, momentum=0.9, weight_decay=1e-4)
    if model_name == "cosmoflow":
        return torch.optim.SGD(parameters, lr=0.001 * batch / 64, momentum=0.9)
    return torch.optim.Adam(parameters, lr=1e-3, weight_decay=1e-6, eps=1e-6)


class EnergyCounter:
    """The GPU's energy counter in joules, or None where NVML is missing or has none."""

    def __init__(self, index):
        self.handle = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            self.read()
        except Exception as error:  # noqa: BLE001 - any NVML failure means no energy figure
            print(f"reference.py: energy not measured: {error}", file=sys.stderr)
            self.handle = None

    def read(self):
        if self.handle is None:
            return None
        return self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle) / 1000.0


# The Chrome trace categories of the activities that run on the GPU; the rest ran on the CPU.
DEVICE_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset"}


def write_profile(profiler, path, steps, seconds, device):
    """The profile as hetbench-train's --profile writes it, from the profiler's Chrome trace."""
    with tempfile.TemporaryDirectory() as scratch:
        trace_path = os.path.join(scratch, "trace.json")
        profiler.export_chrome_trace(trace_path)
        with open(trace_path, encoding="utf-8") as f:
            trace = json.load(f)
    totals = {}
    for event in trace.get("traceEvents", []):
        if event.get("ph") != "X" or "dur" not in event:
            continue
        side = "cuda" if event.get("cat") in DEVICE_CATEGORIES else "cpu"
        calls, total = totals.get((side, event["name"]), (0, 0.0))
        totals[(side, event["name"])] = (calls + 1, total + float(event["dur"]))
    entries = [{"device": side, "name": name, "calls": calls, "total_us": total}
               for (side, name), (calls, total) in totals.items()]
    entries.sort(key=lambda entry: -entry["total_us"])
    report = {"v": 1, "epoch": 0, "rank": 0, "steps": steps, "wall_seconds": seconds,
              "device": str(device), "torch": torch.__version__, "entries": entries}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, choices=["resnet50", "cosmoflow", "deepcam"])
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="bf16")
    parser.add_argument("--channels-last", action="store_true")
    parser.add_argument("--compile", action="store_true", help="torch.compile the model")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                        help="cpu: try the script where there is no GPU")
    parser.add_argument("--size", help="a reduced sample size: one side, or HEIGHT,WIDTH")
    parser.add_argument("--profile", metavar="PATH", help="profile the timed steps into PATH")
    args = parser.parse_args()
    size = [int(side) for side in args.size.split(",")] if args.size else None

    device = torch.device(args.device)
    cuda = device.type == "cuda"
    torch.backends.cudnn.benchmark = True  # as hetbench-train sets it
    torch.manual_seed(0)
    model, criterion, inputs, targets = build(args.model, args.batch, device, size)
    model = model.to(device)
    if args.channels_last:
        layout = torch.channels_last if inputs.dim() == 4 else torch.channels_last_3d
        model = model.to(memory_format=layout)
        inputs = inputs.contiguous(memory_format=layout)
    model.train()
    optimizer = optimizer_for(args.model, model.parameters(), args.batch)
    forward = torch.compile(model) if args.compile else model
    autocast = args.precision == "bf16"

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=autocast):
            loss = criterion(forward(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss.detach()

    def synchronize():
        if cuda:
            torch.cuda.synchronize()

    started = time.perf_counter()
    for _ in range(args.warmup):
        step()
    synchronize()
    warmup_seconds = time.perf_counter() - started

    energy = EnergyCounter(torch.cuda.current_device()) if cuda else None
    losses, step_ms = [], []
    joules_before = energy.read() if energy else None
    activities = [torch.profiler.ProfilerActivity.CPU]
    if cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    profiling = torch.profiler.profile(activities=activities) if args.profile else None
    with profiling or contextlib.nullcontext():
        started = time.perf_counter()
        if cuda:
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(args.steps + 1)]
            ends[0].record()
        for i in range(args.steps):
            before = time.perf_counter()
            losses.append(step())
            if cuda:
                ends[i + 1].record()
            else:
                step_ms.append((time.perf_counter() - before) * 1000)
        synchronize()
        seconds = time.perf_counter() - started
        joules_after = energy.read() if energy else None
    if profiling:
        write_profile(profiling, args.profile, args.steps, seconds, device)
    if cuda:
        step_ms = [ends[i].elapsed_time(ends[i + 1]) for i in range(args.steps)]
    step_ms.sort()

    samples = args.batch * args.steps
    result = {
        "side": "python",
        "model": args.model,
        "mode": "compile" if args.compile else "eager",
        "batch": args.batch,
        "precision": args.precision,
        "channels_last": args.channels_last,
        "steps": args.steps,
        "warmup_seconds": round(warmup_seconds, 2),
        "samples_per_s": samples / seconds,
        "step_ms_median": step_ms[len(step_ms) // 2],
        "losses": [round(float(loss), 5) for loss in losses],
        "torch": torch.__version__,
    }
    if cuda:
        result["gpu"] = torch.cuda.get_device_name()
        result["peak_memory_gib"] = torch.cuda.max_memory_allocated() / 2**30
    if joules_before is not None and joules_after is not None:
        joules = joules_after - joules_before
        result["energy_joules"] = joules
        result["samples_per_wh"] = samples / (joules / 3600.0) if joules > 0 else math.nan
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
