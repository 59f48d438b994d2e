"""GF(p) rank: the GEMM LU against FLINT and against the machine's GEMM limit, in one run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import flint
import numpy as np

from attndepth.rank.arithmetic.modular_rank import limb_bits, rank_mod_gemm
from attndepth.rank.degree_blocks import BLOCK_PRIME
from attndepth.simulations.threads import available_cores
from bench.timing import best_of


def gemm_rate(size: int) -> float:
    """float64 GEMM multiply-adds per second on size × size matrices (best of 3)."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    out = np.empty((size, size))
    return size**3 / best_of(lambda: np.matmul(a, b, out=out), 3)


def _deficient(size: int, prime: int) -> np.ndarray:
    """A size × size matrix of rank size − 50 over GF(prime) (50 columns repeated × 3)."""
    rng = np.random.default_rng(size)
    matrix = rng.integers(0, prime, (size, size))
    matrix[:, -50:] = matrix[:, :50] * 3 % prime
    return matrix


def rank_vs_flint(size: int, prime: int = BLOCK_PRIME) -> dict:
    """Seconds of one rank, best of 3 runs (2 from 6000²): GEMM LU, FLINT's rank alone
    (``nmod_mat`` built untimed, every core), and FLINT from the NumPy matrix
    (conversion included, what ``rank_mod`` paid); the GEMM LU's share of the
    (2/3)n³ multiply-adds at this run's GEMM rate."""
    matrix = _deficient(size, prime)
    repeats = 3 if size <= 3000 else 2  # best of the same number of runs for both
    ours = best_of(lambda: rank_mod_gemm(matrix, prime), repeats)
    start = time.perf_counter()
    nmod = flint.nmod_mat(flint.fmpz_mat(matrix.tolist()), prime)
    convert = time.perf_counter() - start
    previous, flint.ctx.threads = flint.ctx.threads, available_cores()
    try:
        flint_seconds = best_of(nmod.rank, repeats)
        flint_rank = nmod.rank()
    finally:
        flint.ctx.threads = previous
    limit = (2 / 3) * size**3 / gemm_rate(min(size, 4000))
    return {"matrix": f"{size}²", "prime": prime, "limbs": 2 if limb_bits(prime) else 1,
            "gemm LU s": ours, "flint rank s": flint_seconds,
            "flint incl. conversion s": flint_seconds + convert,
            "speed-up vs flint": flint_seconds / ours,
            "speed-up vs flint incl. conversion": (flint_seconds + convert) / ours,
            "GEMM-limit s": limit, "fraction of GEMM speed": limit / ours,
            "same rank": rank_mod_gemm(matrix, prime) == flint_rank == size - 50}


#: Configurations with |Q| ≥ d, in increasing bound (d, L, N; balanced partition).
REACH_CASES = [(2, 3, 4), (2, 4, 4), (3, 3, 6), (2, 5, 4), (4, 3, 8)]


def _run_limited(command: list[str], limit_seconds: float) -> tuple[str, float] | None:
    """Run ``command``; its stdout and its own peak memory (GiB), or None past the limit.

    The peak is the child's VmHWM (``/proc/PID/status``), read every 0.2 s: it
    belongs to the program after exec. (``ru_maxrss``, from ``wait4`` or
    ``RUSAGE_CHILDREN``, keeps the forked copy of this large process.)
    """
    peak_kib = 0
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.DEVNULL)
        deadline = time.perf_counter() + limit_seconds
        while True:
            pid, status, _ = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            peak_kib = max(peak_kib, _high_water_kib(process.pid))
            if time.perf_counter() > deadline:
                process.kill()
                os.wait4(process.pid, 0)
                return None
            time.sleep(0.2)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            raise RuntimeError(f"{' '.join(command)} exited {process.returncode}")
        output.seek(0)
        return output.read().decode(), peak_kib / 2**20


def _high_water_kib(pid: int) -> int:
    """VmHWM of a running process in KiB (0 once it has gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def largest_certified_blocks(limit_seconds: float, cases=REACH_CASES) -> dict:
    """Largest block-certified rank with |Q| ≥ d that ``attndepth seprank --json`` settles
    within the limit, each case in its own process (killed at the limit), with the
    slowest block's rank time and the process's peak memory. Cases run in order and
    stop at the first one over the limit (the next ones are larger)."""
    best = None
    for width, depth, tokens in cases:
        command = [sys.executable, "-m", "attndepth.cli.main", "seprank", "--width", str(width),
                   "--depth", str(depth), "--tokens", str(tokens), "--json",
                   "--recompute"]  # measured, not read from the atlas
        start = time.perf_counter()
        finished = _run_limited(command, limit_seconds)
        if finished is None:
            break
        seconds = time.perf_counter() - start
        result = json.loads(finished[0])
        if best is not None and result["rank"] <= best["rank"]:
            continue
        blocks = result["blocks"]
        best = {"config": f"d={width}, L={depth}, N={tokens}", "rank": result["rank"],
                "bound": result["bounds"]["best"], "blocks": len(blocks),
                "largest block": result["grid_p"], "reason": result["reason"],
                "seconds": seconds, "evaluation s": result["eval_seconds"],
                "rank s": result["rank_seconds"],
                "slowest block rank s": max(block["rank_seconds"] for block in blocks),
                "peak memory GiB": finished[1]}
    return best or {}
