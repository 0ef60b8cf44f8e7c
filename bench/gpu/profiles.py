"""Sets profiles side by side: hetbench-train's --profile files and bench/gpu/reference.py's
(the same format, docs/workloads.md, "Profiling an epoch"), as milliseconds per step.

For each profile it prints the wall time per step, the time the device spent in its kernels,
copies and fills per step and how busy that kept it, and that device time split into kinds of
kernel (from their names); then the kernels that take the most time across the profiles.

  profiles.py NAME=PATH [NAME=PATH ...] [--json OUT] [--top N]

(Not profile.py: that name would hide Python's own profile module, which torch imports, from
the scripts of this directory.)
"""
import argparse
import json
import re
import sys

# The kinds of device activity, the first whose pattern a kernel's name matches. cuDNN's
# BatchNorm kernels are named cudnn::bn_*, so BatchNorm comes before the convolutions.
KINDS = [
    ("batch norm", r"batch_norm|batchnorm|\bbn_|welford"),
    ("optimizer", r"multi_tensor_apply|foreach|fused_(adam|sgd)"),
    ("generated (Triton)", r"^triton_"),
    ("convolution, matmul", r"conv|gemm|xmma|cutlass|cudnn|dgrad|wgrad|fprop|sm\d+_|implicit"),
    ("layout, copy, fill", r"memcpy|memset|copy|nchwtonhwc|nhwctonchw|transpose|fill"),
    ("pooling", r"pool"),
    ("loss, softmax, reductions", r"softmax|nll|cross_entropy|reduce|sum_|mean"),
    ("elementwise", r"elementwise|vectorized|unrolled|functor|relu|threshold|activation|add|mul"),
]


def kind_of(name):
    lowered = name.lower()
    for kind, pattern in KINDS:
        if re.search(pattern, lowered):
            return kind
    return "other"


def summarize(profile):
    steps = max(1, profile["steps"])
    device = [e for e in profile["entries"] if e["device"] == "cuda"]
    kinds = {}
    for entry in device:
        kind = kind_of(entry["name"])
        kinds[kind] = kinds.get(kind, 0.0) + entry["total_us"] / 1000 / steps
    device_ms = sum(entry["total_us"] for entry in device) / 1000 / steps
    wall_ms = profile["wall_seconds"] * 1000 / steps
    return {
        "steps": profile["steps"],
        "wall_ms_per_step": wall_ms,
        "device_ms_per_step": device_ms,
        "device_busy": device_ms / wall_ms if wall_ms > 0 else None,
        "device_launches_per_step": sum(entry["calls"] for entry in device) / steps,
        "kinds_ms_per_step": dict(sorted(kinds.items(), key=lambda kv: -kv[1])),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("profiles", nargs="+", metavar="NAME=PATH")
    parser.add_argument("--json", help="also write the summaries here")
    parser.add_argument("--top", type=int, default=12, help="kernels to list (default 12)")
    args = parser.parse_args()

    loaded = {}
    for item in args.profiles:
        name, _, path = item.partition("=")
        if not path:
            parser.error(f"{item}: give NAME=PATH")
        with open(path, encoding="utf-8") as f:
            loaded[name] = json.load(f)
    summaries = {name: summarize(profile) for name, profile in loaded.items()}

    names = list(loaded)
    width = max(12, *(len(name) for name in names))
    print(f"{'ms per step':28}" + "".join(f"{name:>{width + 2}}" for name in names))

    def row(label, values, form="{:.2f}"):
        cells = "".join(f"{(form.format(v) if v is not None else '-'):>{width + 2}}"
                        for v in values)
        print(f"{label:28}{cells}")

    row("wall", [summaries[n]["wall_ms_per_step"] for n in names])
    row("device (kernels, copies)", [summaries[n]["device_ms_per_step"] for n in names])
    row("device busy", [summaries[n]["device_busy"] for n in names], "{:.1%}")
    row("device launches", [summaries[n]["device_launches_per_step"] for n in names], "{:.0f}")
    kinds = [kind for kind, _ in KINDS] + ["other"]
    for kind in kinds:
        values = [summaries[n]["kinds_ms_per_step"].get(kind) for n in names]
        if any(v is not None for v in values):
            row(f"  {kind}", values)

    print(f"\nthe {args.top} kernels that take the most time (ms per step)")
    totals = {}
    for name, profile in loaded.items():
        steps = max(1, profile["steps"])
        for entry in profile["entries"]:
            if entry["device"] == "cuda":
                per_step = totals.setdefault(entry["name"], {})
                per_step[name] = entry["total_us"] / 1000 / steps
    ranked = sorted(totals.items(), key=lambda kv: -max(kv[1].values()))[: args.top]
    for kernel, per_profile in ranked:
        cells = "".join(f"{per_profile.get(n, 0.0):>{width + 2}.2f}" for n in names)
        print(f"{kernel[:80]:80}{cells}")

    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(summaries, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
