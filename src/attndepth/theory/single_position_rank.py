"""sep = C(K + d, d) for one position on each side, proved for every d and L (theory §1).

The network of Levine et al. 2020 (§3) with one head, ρ = 0, |P| = |Q| = 1
(positions x = x^i and y), f = y^{L,i}_0, K = (3^L − 1)/2. Bound (d) is
C(K + d, d) (:func:`attndepth.theory.rank_closed_forms.single_position_bound`).
:func:`single_position_rank` states the theorem and proves that the weights
A = B = I reach it; :func:`confirm_single_position_proof` checks each step
that can be checked, in SymPy, at a given size.
"""

from __future__ import annotations

import math
import random

import sympy as sp

from attndepth.errors import CheckFailed, InvalidParameter
from attndepth.theory.proof_cache import proof_cache
from attndepth.theory.rank_closed_forms import gram_witness, single_position_bound
from attndepth.theory.separation_rank import structural_degree


def single_position_rank(width: int, depth: int) -> int:
    """sep_(x|y) of f = y^{L,i}_0 with |P| = |Q| = 1, one head, ρ = 0: C(K + d, d).

    [proved] for every d ≥ 1 and L ≥ 1. (With ρ = 1 the rank is the same: it
    is at least the ρ = 0 rank and bound (d) is unchanged, ``levine.residual-rank``.)

    Upper bound: bound (d) = Σ_a min(h_Q(a), h_P(K − a)) = C(K + d, d), where
    h_Q(a) = dim Sym^{2a}(ℂ^d) and h_P(b) = dim Sym^{2b+1}(ℂ^d), and the
    minimum is h_Q(a) exactly for a ≤ K/2 (``single_position_bound``).

    Lower bound: the generic rank is at least the rank at any weights, and the
    degree blocks f = Σ_a f_a (degree 2a in y) have ranks that add at every
    weight setting (``degree_block_bounds``). So it suffices that at A = B = I
    every block meets min(h_Q(a), h_P(K − a)).

    1. *The witness.* With A = B = I every layer is T_l = M_l and G = M^K,
       M = xxᵀ + yyᵀ. M[x y] = [x y]Γ with Γ = [[u, t], [t, v]], u = |x|²,
       t = ⟨x, y⟩, v = |y|², so M^K x = x (Γ^K)₁₁ + y (Γ^K)₂₁ and
       f = x₀(Γ^K)₁₁ + y₀(Γ^K)₂₁ (:func:`attndepth.theory.rank_closed_forms.gram_witness`).
    2. *Its blocks.* (Γ^K)₁₁ sums over walks of K steps on the states {1, 2}
       from 1 to 1, a step weighing u (1→1), v (2→2) or t (a switch). A walk
       with 2j switches and β steps at 2 has y-degree 2j + 2β, and (Γ^K)₂₁
       likewise with 2j + 1 switches. Hence, with b = K − a,

           f_a = x₀ Σ_j c_j u^{b−j} t^{2j} v^{a−j} + y₀ Σ_j c'_j u^{b−j} t^{2j+1} v^{a−1−j},

       c_j ≥ 0 the walks from 1 to 1 with 2j switches and a − j steps at 2,
       c'_j ≥ 0 those from 2 to 1 with 2j + 1 switches and a − 1 − j steps at 2.
       c_a > 0 when a ≤ b (switch 2a times, then stay at 1), and c'_b > 0 when
       b < a (switch 2b + 1 times, staying at 2 in between).
    3. *Duality.* On forms of degree m the apolar pairing ⟨φ, ψ⟩ = φ(∂)ψ is a
       nondegenerate symmetric bilinear form over ℚ (monomials are orthogonal,
       ⟨y^α, y^α⟩ = α!). So the span over x of the y-slices f_a(x, ·) is all of
       Sym^{2a} iff no φ ≠ 0 of degree 2a has Φ(x) := ⟨φ, f_a(x, ·)⟩_y ≡ 0;
       symmetrically for the x-slices. Multiplication by v = |y|² is adjoint
       to the Laplacian Δ, by y₀ to ∂₀, and ⟨φ, ⟨x, y⟩^m⟩_y = m!·φ(x) for
       φ of degree m, so ⟨φ, t^m v^l⟩_y = m!·(Δ^l φ)(x) and
       ⟨φ, y₀ t^m v^l⟩_y = m!·(Δ^l ∂₀φ)(x).
    4. *Harmonics.* Every form of degree m is uniquely Σ_k u^k h_{m−2k} with
       h_n harmonic of degree n (a direct sum), Δ(u^k h_n) =
       2k(2k + 2n + d − 2) u^{k−1} h_n, ∂₀ maps harmonics to harmonics, and
       x₀h_n = T(h_n) + u ∂₀h_n/(2n + d − 2) with T(h_n) harmonic of degree
       n + 1 (for n = 0, T(h₀) = x₀h₀). T is injective for d ≥ 2: x₀h_n = u·g
       with x₀ ∤ u forces u | h_n, and no nonzero harmonic is divisible by u.
    5. *Blocks with a ≤ b (the Q side is the smaller).* Write φ = Σ_k v^k h_{n_k},
       n_k = 2a − 2k, in the y variables. By 3, the x₀ part of f_a gives
       Σ_j c_j (2j)! x₀ u^{b−j} (Δ^{a−j}φ)(x), and by 4 each v^k h_{n_k} turns
       into γ·u^{b−a+k} x₀h_{n_k}(x), γ ≥ 0 a product of Laplacian factors. The
       y₀ part gives Σ_j c'_j (2j+1)! u^{b−j} (Δ^{a−1−j}∂₀φ)(x), and
       ∂₀(v^k h) = 2k v^{k−1} T(h) + (const) v^k ∂₀h by 4. Collecting,
       Φ = Σ_k u^{b−a+k} [S(k) T(h_{n_k}) + R(k) u ∂₀h_{n_k}] (h now in x)
       with S(k) a sum of products of walk counts, factorials and Laplacian
       factors, all ≥ 0, among them the term j = a of the x₀ part, c_a (2a)!:
       S(k) > 0. In the direct sum of 4 the part of harmonic degree n_k + 1 at
       the power u^{b−a+k} is S(k) T(h_{n_k}) + R(k − 1) ∂₀h_{n_{k−1}}. If
       Φ ≡ 0 every such part vanishes: for k = 0 it is S(0) T(h_{2a}), so
       h_{2a} = 0 (T is injective), and by induction on k every h_{n_k} = 0,
       φ = 0. The block's rank is dim Sym^{2a} = h_Q(a). (The degrees fit:
       T(h_{2a}) has degree 2a + 1 ≤ 2b + 1 exactly because a ≤ b.)
    6. *Blocks with a > b (the P side is the smaller).* The same in the x
       variables: ψ = Σ_k u^k h_{m_k} of degree 2b + 1, m_k = 2b + 1 − 2k, and
       Ψ(y) := ⟨ψ, f_a(·, y)⟩_x = Σ_k v^{a−b+k−1} [S'(k) T(h_{m_k}) + R'(k) v ∂₀h_{m_k}]
       where S'(k) contains the term j = b of the y₀ part, c'_b (2b + 1)! > 0
       (it needs a − 1 ≥ b), and all its terms are ≥ 0. The same triangular
       argument gives ψ = 0: the block's rank is dim Sym^{2b+1} = h_P(b).

    For d = 1 there are no harmonics to speak of: block a is the single monomial
    x^{2b+1}y^{2a} times the sum of every c_j and c'_j of the block, which
    includes c_a or c'_b and so is positive; each block has rank 1 and
    sep = K + 1 = C(K + 1, 1). So at A = B = I the blocks reach
    Σ_a min(h_Q(a), h_P(K − a)) = C(K + d, d), and the generic rank equals it. ∎

    The proof is checked step by step by :func:`confirm_single_position_proof`
    (SymPy, exact), and its conclusion by
    :func:`attndepth.theory.rank_closed_forms.gram_witness_rank` and by the atlas'
    certified ranks with |P| = |Q| = 1.

    Parameters
    ----------
    width, depth : int
        d ≥ 1 and 1 ≤ L ≤ 30.

    Returns
    -------
    int
        C(K + d, d).
    """
    return single_position_bound(width, depth)


def walk_counts(depth: int) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
    """The coefficients of (Γ^K)₁₁ and (Γ^K)₂₁ in u, t, v (step 2 of the proof).

    Returns
    -------
    (c, c_prime) : dicts (a, j) ↦ c_j of block a and (a, j) ↦ c'_j of block a,
        from the SymPy expansion of Γ^K with symbols u, t, v.
    """
    K = structural_degree(depth)
    u, t, v = sp.symbols("u t v")
    power = sp.Matrix([[u, t], [t, v]]) ** K
    first = sp.Poly(sp.expand(power[0, 0]), u, t, v)
    second = sp.Poly(sp.expand(power[1, 0]), u, t, v)
    counts: dict[tuple[int, int], int] = {}
    primes: dict[tuple[int, int], int] = {}
    for (i, k, l), coefficient in first.terms():  # u^i t^k v^l, k = 2j, a = j + l
        if k % 2 or i != K - (k // 2 + l) - k // 2:
            raise CheckFailed(f"(G^K)11 has the term u^{i} t^{k} v^{l}: not a walk's")
        counts[(k // 2 + l, k // 2)] = int(coefficient)
    for (i, k, l), coefficient in second.terms():  # k = 2j + 1, a = j + l + 1
        if k % 2 != 1 or i != K - (k // 2 + l + 1) - k // 2:
            raise CheckFailed(f"(G^K)21 has the term u^{i} t^{k} v^{l}: not a walk's")
        primes[(k // 2 + l + 1, k // 2)] = int(coefficient)
    return counts, primes


def _laplacian(expression: sp.Expr, variables: tuple[sp.Symbol, ...]) -> sp.Expr:
    """Σ_z ∂²/∂z² of a polynomial in ``variables`` (other symbols ride in the coefficients)."""
    poly = sp.Poly(expression, *variables)
    return sum((poly.diff((z, 2)) for z in variables[1:]),
               poly.diff((variables[0], 2))).as_expr()


def _apolar(phi: sp.Expr, psi: sp.Expr, variables: tuple[sp.Symbol, ...]) -> sp.Expr:
    """φ(∂)ψ for forms of the same degree (a number, or a polynomial in other symbols)."""
    target = sp.Poly(psi, *variables)  # other symbols ride in the coefficients
    total = sp.Poly(0, *variables, domain=target.domain)
    for exponents, coefficient in sp.Poly(phi, *variables).terms():
        orders = [(z, e) for z, e in zip(variables, exponents, strict=True) if e]
        total += (target.diff(*orders) if orders else target) * coefficient
    return sp.expand(total.as_expr())


def _random_form(variables: tuple[sp.Symbol, ...], degree: int,
                 generator: random.Random) -> sp.Expr:
    monomials = sp.itermonomials(variables, degree, degree)
    return sp.expand(sum(generator.randint(-3, 3) * m for m in monomials))


#: Isotropic vectors (a·a = 0) with Gaussian-integer entries, by number of variables:
#: (a·z)^n is harmonic, so its real and imaginary parts are harmonics with integer
#: coefficients.
ISOTROPIC = {2: ((1, sp.I), (1, -sp.I)), 3: ((3, 5 * sp.I, 4), (5, 3 * sp.I, 4 * sp.I),
                                            (4, 5 * sp.I, 3))}


def _random_harmonic(variables: tuple[sp.Symbol, ...], degree: int,
                     generator: random.Random) -> sp.Expr:
    """A nonzero harmonic form of the given degree (2 or 3 variables): a random integer
    combination of the real and imaginary parts of (a·z)^n, a isotropic."""
    if degree == 0:
        return sp.Integer(generator.randint(1, 3))
    parts = []
    for vector in ISOTROPIC[len(variables)]:
        power = sp.expand(sum(c * z for c, z in zip(vector, variables, strict=True))**degree)
        parts += [sp.re(power), sp.im(power)]
    while True:
        harmonic = sp.expand(sum(generator.randint(-2, 2) * part for part in parts))
        if harmonic != 0:
            return harmonic


def _block_bound(a: int, K: int, width: int) -> int:
    """min(h_Q(a), h_P(K − a)) for one position each side: forms of degree 2a or 2b + 1."""
    b = K - a
    return math.comb(2 * a + width - 1, width - 1) if a <= b else \
        math.comb(2 * b + width, width - 1)


def _dual_rank(a: int, K: int, x: tuple, y: tuple, counts: dict, primes: dict) -> int:
    """Rank of φ ↦ Φ (a ≤ b) or ψ ↦ Ψ (a > b) on a monomial basis, by step 3's formulas."""
    b = K - a
    small, other, degree = (y, x, 2 * a) if a <= b else (x, y, 2 * b + 1)
    outer_u = sum(z * z for z in other)
    images = []
    for phi in sp.itermonomials(small, degree, degree):
        image = sp.Integer(0)
        if a <= b:  # Φ(x) = Σ c_j (2j)! x₀ u^{b−j} Δ^{a−j}φ + Σ c'_j (2j+1)! u^{b−j} Δ^{a−1−j}∂₀φ
            for j in range(a + 1):
                image += (counts.get((a, j), 0) * math.factorial(2 * j) * other[0]
                          * outer_u**(b - j) * _power_laplacian(phi, small, a - j))
            for j in range(a):
                image += (primes.get((a, j), 0) * math.factorial(2 * j + 1) * outer_u**(b - j)
                          * _power_laplacian(sp.diff(phi, small[0]), small, a - 1 - j))
        else:  # Ψ(y) = Σ c_j (2j)! v^{a−j} Δ^{b−j}∂₀ψ + Σ c'_j (2j+1)! y₀ v^{a−1−j} Δ^{b−j}ψ
            for j in range(b + 1):
                image += (counts.get((a, j), 0) * math.factorial(2 * j) * outer_u**(a - j)
                          * _power_laplacian(sp.diff(phi, small[0]), small, b - j))
                image += (primes.get((a, j), 0) * math.factorial(2 * j + 1) * other[0]
                          * outer_u**(a - 1 - j) * _power_laplacian(phi, small, b - j))
        images.append(sp.expand(image.subs(dict(zip(small, other, strict=True)),
                                           simultaneous=True)))
    monomials = sorted({m for image in images for m in sp.Poly(image, *other).monoms()})
    index = {m: k for k, m in enumerate(monomials)}
    rows = []
    for image in images:
        row = [0] * len(monomials)
        for m, coefficient in sp.Poly(image, *other).terms():
            row[index[m]] = int(coefficient)
        rows.append(row)
    return int(sp.Matrix(rows).rank()) if monomials else 0


def _power_laplacian(form: sp.Expr, variables: tuple, times: int) -> sp.Expr:
    for _ in range(times):
        form = _laplacian(form, variables)
    return form


@proof_cache
def confirm_single_position_proof(width: int = 3, depth: int = 2, seed: int = 0,
                                  max_degree: int = 4) -> dict[str, bool]:
    """Check each step of :func:`single_position_rank`'s proof that can be checked (SymPy).

    Parameters
    ----------
    width, depth : the size at which steps 1 and 2 and the blocks' ranks are checked
        (d ≤ 4, L ≤ 2 keep it under a few seconds).
    seed : draws of the random forms and harmonics for steps 3 and 4.
    max_degree : largest degree of the forms of steps 3 and 4.

    Returns
    -------
    dict of step name → bool; every value True is the confirmation.
    """
    if not all(isinstance(v, int) and not isinstance(v, bool)
               for v in (width, depth, seed, max_degree)) \
            or not (1 <= width <= 5 and 1 <= depth <= 3 and seed >= 0 and max_degree >= 1):
        raise InvalidParameter(f"width 1 … 5, depth 1 … 3, seed >= 0 and max_degree >= 1 "
                               f"(integers), got {width!r}, {depth!r}, {seed!r}, "
                               f"{max_degree!r}")
    generator = random.Random(seed)
    K = structural_degree(depth)
    x, y = sp.symbols(f"x0:{width}"), sp.symbols(f"y0:{width}")
    u, v = sum(z * z for z in x), sum(z * z for z in y)
    t = sum(a * b for a, b in zip(x, y, strict=True))
    checks: dict[str, bool] = {}
    # 1. the witness: e_0ᵀ M^K x against x₀(Γ^K)₁₁ + y₀(Γ^K)₂₁
    X, Y = sp.Matrix(x), sp.Matrix(y)
    M = X * X.T + Y * Y.T
    direct = X
    for _ in range(K):  # M^K x as K products with a vector, each expanded
        direct = (M * direct).applyfunc(sp.expand)
    direct = direct[0]
    witness = gram_witness(width, depth)[0].as_expr()
    checks["1 witness: f = x0 (G^K)11 + y0 (G^K)21"] = sp.expand(direct - witness) == 0
    # 2. the blocks' expansion, and c_a > 0 (a ≤ b), c'_b > 0 (b < a)
    counts, primes = walk_counts(depth)
    expansion = sp.Integer(0)
    for a in range(K + 1):
        b = K - a
        expansion += x[0] * sum(counts.get((a, j), 0) * u**(b - j) * t**(2 * j) * v**(a - j)
                                for j in range(min(a, b) + 1))
        expansion += y[0] * sum(primes.get((a, j), 0) * u**(b - j) * t**(2 * j + 1)
                                * v**(a - 1 - j) for j in range(min(a - 1, b) + 1))
    checks["2 blocks: f_a = x0 Σ c_j u^(b-j) t^2j v^(a-j) + y0 Σ c'_j …"] = \
        sp.expand(expansion - witness) == 0
    checks["2 positive: c_a > 0 for a ≤ b, c'_b > 0 for b < a"] = all(
        (counts.get((a, a), 0) > 0) if a <= K - a else (primes.get((a, K - a), 0) > 0)
        for a in range(K + 1))
    # 3. duality identities, on random forms
    small = sp.symbols(f"z0:{max(2, min(width, 3))}", real=True)
    w = sp.symbols(f"w0:{len(small)}")
    inner = sum(a * b for a, b in zip(w, small, strict=True))
    norm = sum(z * z for z in small)
    identities = []
    for degree in range(1, max_degree + 1):
        for l in range(degree // 2 + 1):
            phi = _random_form(small, degree, generator)
            m = degree - 2 * l
            left = _apolar(phi, inner**m * norm**l, small)
            laplace = phi
            for _ in range(l):
                laplace = _laplacian(laplace, small)
            right = math.factorial(m) * laplace.subs(dict(zip(small, w, strict=True)))
            identities.append(sp.expand(left - right) == 0)
            if degree >= 2:
                psi = _random_form(small, degree - 1, generator)
                identities.append(sp.expand(_apolar(phi, small[0] * psi, small)
                                            - _apolar(sp.diff(phi, small[0]), psi, small))
                                  == 0)
    checks["3 duality: <φ, t^m v^l> = m! Δ^l φ(x); <φ, y0 ψ> = <∂0 φ, ψ>"] = all(identities)
    # 4. harmonics: the Laplacian of u^k h, and x₀h = T(h) + u ∂₀h/(2n + d − 2)
    harmonics = []
    for n in range(0, max_degree + 1):
        h = _random_harmonic(small, n, generator)
        for k in range(1, 3):
            expected = 2 * k * (2 * k + 2 * n + len(small) - 2) * norm**(k - 1) * h
            harmonics.append(sp.expand(_laplacian(norm**k * h, small) - expected) == 0)
        if n >= 1 and 2 * n + len(small) - 2 > 0:
            projected = sp.expand(small[0] * h - norm * sp.diff(h, small[0])
                                  / (2 * n + len(small) - 2))
            harmonics.append(_laplacian(projected, small) == 0 and projected != 0)
    checks["4 harmonics: Δ(u^k h) = 2k(2k+2n+d-2) u^(k-1) h; T(h) harmonic, nonzero"] = \
        all(harmonics)
    # 5-6. the dual maps φ ↦ Φ (a ≤ b) and ψ ↦ Ψ (a > b), from the formulas of step 3,
    # are injective on every block: their ranks are the block bounds
    checks["5-6 dual maps injective on every block"] = all(
        _dual_rank(a, K, x, y, counts, primes) == _block_bound(a, K, width)
        for a in range(K + 1))
    # the conclusion at this size: every block at its bound (exact rank over ℚ)
    from attndepth.theory.rank_closed_forms import gram_witness_rank

    checks["conclusion: rank at A = B = I equals C(K + d, d)"] = \
        gram_witness_rank(width, depth) == single_position_bound(width, depth)
    return checks
