"""hetbench's models and training step on a GPU against PyTorch's: the model of reference.py
(torchvision's resnet50, the CosmoFlow and DeepCAM reference structures) gets random weights
and random BatchNorm statistics, which gpu_parity loads by name; both sides then run the
eval-mode forward pass and one training step of the reference optimizer on the same batch, in
fp32 with TF32 off. Prints one JSON line per model with the relative differences
(||C++ - Python|| / ||Python||) of the logits, the loss, the step's parameter updates and the
BatchNorm statistics after it, and whether each is within its bound.

  parity.py --binary build/bench/gpu_parity --model resnet50 --size 224 --batch 8
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

# fp32 without TF32: the same function in another order of operations. A step's update (the
# largest relative difference of any one parameter tensor's change) is bounded looser than the
# forward pass: backward sums over the batch in another order, and Adam's first step (DeepCAM)
# divides each gradient by its own magnitude.
BOUNDS = {"logits": 1e-4, "loss": 1e-5, "update": 1e-3, "buffers": 1e-4}


def relative(a, b):
    a, b = a.detach().double(), b.detach().double()
    scale = b.norm()
    return float((a - b).norm() / scale) if scale > 0 else float((a - b).norm())


def load(path):
    """A file of torch::pickle_save, which this program's own gpu_parity just wrote."""
    return torch.load(path, weights_only=False)


def randomize_batchnorm(model):
    """Random BN statistics and affine parameters, so that eval mode does not reduce to the
    identity (as tests/workloads/models/torchvision_resnet50.py does)."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 1.5)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--model", required=True, choices=["resnet50", "cosmoflow", "deepcam"])
    parser.add_argument("--size", required=True, help="one side, or HEIGHT,WIDTH")
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                        help="cpu: try the comparison where there is no GPU")
    parser.add_argument("--steps", type=int, default=1,
                        help="steps whose losses both sides report (the bounds hold for the first)")
    args = parser.parse_args()
    size = [int(side) for side in args.size.split(",")]

    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.deterministic = True
    torch.manual_seed(0)
    model, criterion, inputs, targets = reference.build(args.model, args.batch, "cpu", size)
    randomize_batchnorm(model)
    before = {name: value.detach().clone() for name, value in model.state_dict().items()}

    with tempfile.TemporaryDirectory() as directory:
        torch.save(dict(before), os.path.join(directory, "weights.pt"))
        torch.save({"input": inputs, "target": targets}, os.path.join(directory, "batch.pt"))
        subprocess.run([args.binary, args.model, args.size, directory, args.device,
                        str(args.steps)], check=True)
        cpp = load(os.path.join(directory, "cpp.pt"))

    device = torch.device(args.device)
    model = model.to(device)
    inputs, targets = inputs.to(device), targets.to(device)
    model.eval()
    with torch.no_grad():
        logits = model(inputs).cpu()
    if args.model != "cosmoflow":  # as gpu_parity: eval mode turns CosmoFlow's dropout off
        model.train()
    optimizer = reference.optimizer_for(args.model, model.parameters(), args.batch)
    optimizer.zero_grad(set_to_none=True)
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    after = {name: value.detach().cpu() for name, value in model.state_dict().items()}
    losses = [float(loss)]
    for _ in range(args.steps - 1):
        optimizer.zero_grad(set_to_none=True)
        later = criterion(model(inputs), targets)
        later.backward()
        optimizer.step()
        losses.append(float(later))

    parameters = {name for name, _ in model.named_parameters()}
    buffers = [name for name in after if name not in parameters and after[name].is_floating_point()]
    cpp_after = {k[len("after."):]: v for k, v in cpp.items() if k.startswith("after.")}
    updates = {n: relative(cpp_after[n].double() - before[n].double(),
                           after[n].double() - before[n].double()) for n in parameters}
    figures = {
        "logits": relative(cpp["logits"], logits),
        "loss": relative(cpp["loss"].reshape(1), loss.detach().cpu().reshape(1)),
        "update": max(updates.values()),
    }
    if buffers:
        figures["buffers"] = max(relative(cpp_after[n], after[n]) for n in buffers)
    missing = sorted(set(after) - set(cpp_after))
    result = {
        "model": args.model,
        "size": size,
        "batch": args.batch,
        "losses_python": losses,
        "losses_cpp": cpp["losses"].tolist(),
        "relative_differences": figures,
        "bounds": {k: BOUNDS[k] for k in figures},
        "worst_updates": sorted(updates.items(), key=lambda item: -item[1])[:3],
        "missing_in_cpp": missing,
        "pass": not missing and all(figures[k] <= BOUNDS[k] for k in figures),
    }
    print(json.dumps(result), flush=True)
    return 0 if result["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
