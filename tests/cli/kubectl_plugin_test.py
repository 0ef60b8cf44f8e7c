#!/usr/bin/python3
"""hetbench as kubectl sees it (tests/cli/CMakeLists.txt), one check per CTest test.

  kubectl_plugin_test.py plugin WORK KUBESIM HETBENCH BUILD_DIR
      The build puts kubectl-hetbench and kubectl_complete-hetbench beside hetbench, and
      `cmake --install` installs all three; with that directory on PATH, `kubectl plugin list`
      lists the plugin, `kubectl hetbench report` reports a run of a kubesim in the kubeconfig
      context's namespace (-n, --namespace and -A as kubectl takes them), errors name the command
      as `kubectl hetbench report`, and `kubectl __complete hetbench ...` offers the subcommands and
      the runs through kubectl_complete-hetbench.
  kubectl_plugin_test.py completion WORK KUBESIM HETBENCH
      The script of `hetbench completion bash`, sourced by bash and called as bash calls it,
      completes subcommands, flag values, run names of the cluster and file names; so does the
      zsh script, where zsh is installed (with compadd and _files stubbed).

WORK is a scratch directory, emptied first and left for inspection; the kubesim is stopped before
a check returns. Exit status: 0 passed, 1 failed, 77 skipped (kubectl not installed).
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "packaging"))
from crd_check import apply_crds, create_run  # noqa: E402
from packaging_test import Failure, Kubesim, run_with_kubectl  # noqa: E402


def judged_status(throughput):
    stat = {"mean": throughput, "stddev": 1.5, "min": throughput - 2, "max": throughput + 2,
            "n": 3, "unit": "samples/s"}
    return {"phase": "Succeeded", "progress": "3/3", "trialsTotal": 3, "trialsDone": 3,
            "verdict": "Pass",
            "results": [{"trial": 0, "parameters": {"gpus": "4"}, "verdict": "Pass",
                         "repetitions": 3, "metrics": {"effective_throughput": stat}}]}


class Cli:
    """Runs programs with the build directory first on PATH and a kubesim's kubeconfig."""

    def __init__(self, bin_dir, kubeconfig, cwd):
        self.env = dict(os.environ, PATH=f"{bin_dir}:/usr/bin:/bin", KUBECONFIG=str(kubeconfig),
                        HOME=str(cwd))
        self.cwd = cwd

    def run(self, *args, kubeconfig=None):
        env = dict(self.env, KUBECONFIG=str(kubeconfig)) if kubeconfig else self.env
        result = subprocess.run(list(args), capture_output=True, text=True, env=env,
                                cwd=self.cwd, timeout=30)
        return result.returncode, result.stdout, result.stderr


def start(work, kubesim):
    """A kubesim with the CRDs, the run resnet-a in default and resnet-b in lab."""
    cluster = Kubesim(kubesim, work)
    try:
        apply_crds(cluster)
        cluster.create_namespace("lab")
        create_run(cluster, "resnet-a", "default", judged_status(2950.5))
        create_run(cluster, "resnet-b", "lab", judged_status(1234.5))
    except BaseException:
        cluster.stop()
        raise
    return cluster


def lab_kubeconfig(cluster, cli, work):
    """A copy of the kubesim's kubeconfig whose context has the namespace lab."""
    copy = work / "kubeconfig-lab"
    shutil.copy(cluster.kubeconfig, copy)
    code, out, err = cli.run("kubectl", "config", "set-context", "--current", "--namespace=lab",
                             kubeconfig=copy)
    if code != 0:
        raise Failure(f"kubectl config set-context: {out}{err}")
    return copy


def expect(problems, what, got, want_in=(), want_out=(), code=0):
    rc, out, err = got
    text = out + err
    if rc != code:
        problems.append(f"{what}: exit {rc}, wanted {code}:\n{text}")
    for want in want_in:
        if want not in text:
            problems.append(f"{what}: no {want!r} in:\n{text}")
    for unwanted in want_out:
        if unwanted in text:
            problems.append(f"{what}: {unwanted!r} in:\n{text}")


def check_plugin(work, kubesim, hetbench, build_dir):
    bin_dir = pathlib.Path(hetbench).parent
    problems = []
    for name in ("kubectl-hetbench", "kubectl_complete-hetbench"):
        link = bin_dir / name
        if not link.is_symlink() or os.readlink(link) != "hetbench":
            problems.append(f"{link} is not a link to hetbench")
    prefix = work / "prefix"
    install = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", str(prefix)],
                             capture_output=True, text=True, timeout=60)
    if install.returncode != 0:
        problems.append(f"cmake --install failed:\n{install.stdout}{install.stderr}")
    for name in ("kubectl-hetbench", "kubectl_complete-hetbench"):
        link = prefix / "bin" / name
        if not link.is_symlink() or os.readlink(link) != "hetbench":
            problems.append(f"cmake --install did not install {name} as a link to hetbench")
    help_text = subprocess.run([str(prefix / "bin" / "kubectl-hetbench"), "--help"],
                               capture_output=True, text=True, timeout=30)
    if "Usage: kubectl hetbench COMMAND" not in help_text.stdout:
        problems.append(f"the installed kubectl-hetbench --help says:\n{help_text.stdout}")

    cluster = start(work, kubesim)
    try:
        cli = Cli(bin_dir, cluster.kubeconfig, work)
        expect(problems, "kubectl plugin list", cli.run("kubectl", "plugin", "list"),
               [str(bin_dir / "kubectl-hetbench")], ["kubectl_complete-hetbench"])
        report = ("kubectl", "hetbench", "report")
        expect(problems, "kubectl hetbench report", cli.run(*report),
               ["default/resnet-a", "NVIDIA-A100-SXM4-40GB", "Pass"], ["resnet-b"])
        lab = lab_kubeconfig(cluster, cli, work)
        expect(problems, "kubectl hetbench report in a context of namespace lab",
               cli.run(*report, kubeconfig=lab), ["lab/resnet-b"], ["resnet-a"])
        expect(problems, "... -n default", cli.run(*report, "-n", "default", kubeconfig=lab),
               ["default/resnet-a"], ["resnet-b"])
        expect(problems, "... --namespace=lab", cli.run(*report, "--namespace=lab"),
               ["lab/resnet-b"], ["resnet-a"])
        expect(problems, "... -A", cli.run(*report, "-A"), ["default/resnet-a", "lab/resnet-b"])
        expect(problems, "... resnet-b -n lab --format json",
               cli.run(*report, "resnet-b", "-n", "lab", "--format", "json"), ["1234.5"])
        expect(problems, "... resnet-b (not in default)", cli.run(*report, "resnet-b"),
               ["kubectl hetbench report: no BenchmarkRun resnet-b"], code=1)
        expect(problems, "... --bogus", cli.run(*report, "--bogus"),
               ["kubectl hetbench report: unknown flag --bogus"], code=2)
        expect(problems, "kubectl hetbench report --help", cli.run(*report, "--help"),
               ["Usage: kubectl hetbench report [RUN...]", "-n, --namespace string",
                "-A, --all-namespaces"])

        # kubectl runs kubectl_complete-hetbench with the words after `hetbench`.
        for words, want, unwanted in [
                (["re"], ["report\n"], ["compare"]),
                (["report", ""], ["resnet-a\n"], ["resnet-b"]),
                (["report", "-n", "lab", ""], ["resnet-b\n"], ["resnet-a"]),
                (["report", "--format", ""], ["table\n", "markdown\n", "csv\n", "json\n"], []),
                (["completion", ""], ["bash\n", "zsh\n"], [])]:
            code, out, err = cli.run("kubectl", "__complete", "hetbench", *words)
            lines = out.splitlines()
            if code != 0 or not lines or lines[-1] != ":4":
                problems.append(f"kubectl __complete hetbench {words}: exit {code}, no :4 "
                                f"directive last:\n{out}{err}")
            expect(problems, f"kubectl __complete hetbench {words}", (code, out, ""), want,
                   unwanted)
    finally:
        cluster.stop()
    if problems:
        raise Failure("\n".join(problems))
    print("plugin: kubectl hetbench reports, takes kubectl's namespace flags and completes")


def check_completion(work, kubesim, hetbench):
    bin_dir = pathlib.Path(hetbench).parent
    problems = []
    (work / "run.yaml").write_text("kind: BenchmarkRun\n")
    cluster = start(work, kubesim)
    try:
        cli = Cli(bin_dir, cluster.kubeconfig, work)
        for words, cword, want in [
                (["hetbench", "re"], 1, "report"),
                (["hetbench", "co"], 1, "compare completion"),
                (["hetbench", "report", "--format", ""], 3, "table markdown csv json html"),
                (["hetbench", "report", "--fo"], 2, "--format"),
                (["hetbench", "report", ""], 2, "resnet-a"),
                (["hetbench", "report", "-n", "lab", ""], 4, "resnet-b"),
                (["hetbench", "report", "-A", "resnet-"], 3, "resnet-a resnet-b"),
                (["hetbench", "compare", "resnet-a", "resnet-a", ""], 4, ""),
                (["hetbench", "validate", "ru"], 2, "run.yaml"),
                (["hetbench", "completion", ""], 2, "bash zsh")]:
            script = ('source <(hetbench completion bash)\n'
                      f'COMP_WORDS=({" ".join(json.dumps(w) for w in words)})\n'
                      f'COMP_CWORD={cword}\n'
                      '_hetbench\n'
                      'echo "${COMPREPLY[*]}"\n')
            code, out, err = cli.run("bash", "-c", script)
            if code != 0 or out.strip() != want:
                problems.append(f"bash completion of {words} (word {cword}): {out.strip()!r}, "
                                f"wanted {want!r}; exit {code}\n{err}")
        code, out, err = cli.run("hetbench", "completion", "zsh")
        if code != 0 or not out.startswith("#compdef hetbench\n"):
            problems.append(f"hetbench completion zsh: exit {code}:\n{out}{err}")
        if shutil.which("zsh"):
            (work / "_hetbench").write_text(out)
            code, _, err = cli.run("zsh", "-n", str(work / "_hetbench"))
            if code != 0:
                problems.append(f"zsh -n rejects the zsh script:\n{err}")
            # Outside a completion widget: compadd and _files stubbed to print what they get.
            for words, want in [(["hetbench", "re"], "compadd -- report"),
                                (["hetbench", "report", "-n", "lab", ""], "compadd -- resnet-b"),
                                (["hetbench", "validate", ""], "_files")]:
                script = ("autoload -U compinit; compinit -u -D\n"
                          "source <(hetbench completion zsh)\n"
                          'compadd() { print -r -- "compadd $*"; }\n'
                          "_files() { print _files; }\n"
                          f'words=({" ".join(json.dumps(w) for w in words)})\n'
                          f"CURRENT={len(words)}\n"
                          "_hetbench\n")
                code, got, err = cli.run("zsh", "-c", script)
                if code != 0 or got.strip() != want:
                    problems.append(f"zsh completion of {words}: {got.strip()!r}, wanted "
                                    f"{want!r}; exit {code}\n{err}")
        else:
            print("completion: zsh not installed, its script not run")
        expect(problems, "hetbench completion fish", cli.run("hetbench", "completion", "fish"),
               ["hetbench completion: want bash or zsh"], code=2)
    finally:
        cluster.stop()
    if problems:
        raise Failure("\n".join(problems))
    print("completion: the scripts complete commands, flag values, runs and files")


def main(argv):
    checks = {"plugin": (6, check_plugin), "completion": (5, check_completion)}
    if len(argv) < 2 or argv[1] not in checks or len(argv) != checks[argv[1]][0]:
        print(__doc__, file=sys.stderr)
        return 2
    return run_with_kubectl(argv[1], argv[2], checks[argv[1]][1],
                            *[os.path.abspath(a) for a in argv[3:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
