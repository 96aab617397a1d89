"""Names a subset of a KernelBench suite as `--problems` patterns for `kbench run` (aa_run.sh).

Usage: select_problems.py PROBLEMS.json SUBSET   (PROBLEMS.json: `kbench list --json`)
SUBSET:
  all          every problem (prints nothing: no selection)
  failed44     every third problem of level 1 (numbers 1, 4, ..., 100) and every tenth of level 2
               (1, 11, ..., 91): the 44 of the first full-size H200 run, 16 of which ran out of memory
  biggest:N    the N problems with the largest footprint of one call's inputs and weights, sized
               on torch's meta device (no memory allocated; needs torch in this Python)
  memory       failed44 and biggest:8
Prints one problem id per line.
"""
import importlib.util
import json
import sys


def number(problem_id):
    # L<level>_<number>_<name>
    return int(problem_id.split("_")[1])


def failed44(problems):
    keep = []
    for p in problems:
        n = number(p["id"])
        if (p["level"] == 1 and (n - 1) % 3 == 0) or (p["level"] == 2 and (n - 1) % 10 == 0):
            keep.append(p["id"])
    return keep


def footprint_bytes(path):
    import torch

    spec = importlib.util.spec_from_file_location("kb_problem", path)
    module = importlib.util.module_from_spec(spec)
    with torch.device("meta"):
        spec.loader.exec_module(module)
        inputs = module.get_inputs()
        model = module.Model(*module.get_init_inputs())
    total = sum(t.numel() * t.element_size() for t in inputs if isinstance(t, torch.Tensor))
    total += sum(t.numel() * t.element_size() for t in model.parameters())
    total += sum(t.numel() * t.element_size() for t in model.buffers())
    return total


def biggest(problems, n):
    sized = []
    for p in problems:
        try:
            sized.append((footprint_bytes(p["file"]), p["id"]))
        except Exception as error:  # a problem that cannot be sized on meta is left out, said so
            print(f"select_problems: {p['id']}: not sized ({type(error).__name__})", file=sys.stderr)
    sized.sort(reverse=True)
    for size, pid in sized[:n]:
        print(f"select_problems: {pid}: {size / 2**30:.2f} GiB of inputs and weights", file=sys.stderr)
    return [pid for _, pid in sized[:n]]


def main(listing_path, subset):
    problems = json.load(open(listing_path))["problems"]
    if subset == "all":
        return
    if subset == "failed44":
        chosen = failed44(problems)
    elif subset.startswith("biggest:"):
        chosen = biggest(problems, int(subset.split(":", 1)[1]))
    elif subset == "memory":
        chosen = failed44(problems)
        chosen += [pid for pid in biggest(problems, 8) if pid not in chosen]
    else:
        sys.exit(f"select_problems: unknown subset '{subset}' (all, failed44, biggest:N, memory)")
    print("\n".join(chosen))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
