"""The figures: for each question that has one, a chart drawn from the reference engine's numbers for
the variant shown, with a text alternative (a one-sentence ``alt`` and a table of sampled values).

A builder takes the variant's parameters (``checkers.bank.params_for``) and returns a :class:`Figure`.
Curves come from ``checkers.reference.call`` on a grid; the variant's own inputs are drawn as vertical
markers (the inputs are in the prompt already; the answers are not written on the chart).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..i18n import gettext as _
from .svg import Chart, Series

Params = Mapping[str, Any]


@dataclass
class Figure:
    chart: Chart
    alt: str
    columns: list[str]
    rows: list[list[str]]


def _call(name: str, output: str, **kwargs: Any) -> list[float]:
    from checkers import reference  # local: torch, loaded by the first figure drawn, not at app start-up

    return [float(v) for v in reference.call(name, **kwargs)[output].reshape(-1).tolist()]


def _grid(lo: float, hi: float, n: int = 61) -> list[float]:
    return [lo + (hi - lo) * i / (n - 1) for i in range(n)]


def _table(xs: Sequence[float], series: Sequence[Series], every: int) -> list[list[str]]:
    rows = []
    for i in range(0, len(xs), every):
        rows.append([f"{xs[i]:.3g}"] + [f"{s.ys[i]:.3g}" for s in series])
    return rows


def kl_estimators(ratios: Sequence[float]) -> Figure:
    """k1 = -ln r, k2 = (ln r)^2 / 2, k3 = (r - 1) - ln r against r = pi_ref / pi (Schulman 2020)."""
    hi = max(4.0, max(ratios) * 1.15)
    xs = _grid(0.1, hi)
    ref = [math.log(x) for x in xs]
    zero = [0.0] * len(xs)
    series = [Series(name, xs, _call(f"kl.{name}", "kl", log_prob=zero, ref_log_prob=ref))
              for name in ("k1", "k2", "k3")]
    chart = Chart(_("KL estimators against the ratio r"), "r = π_ref / π", _("estimate per token"), series,
                  [(r, _("token %(n)s", n=i + 1) if len(ratios) > 1 else _("this variant"))
                   for i, r in enumerate(ratios)],
                  _("k1 is negative when r > 1; k2 and k3 are never negative; all three are 0 at r = 1."))
    alt = _("Line chart of k1, k2 and k3 against r from 0.1 to %(hi)s, with this variant's ratios marked.",
            hi=f"{hi:.3g}")
    return Figure(chart, alt, ["r", "k1", "k2", "k3"], _table(xs, series, 10))


def ppo_clip(eps: float, ratios: Sequence[float]) -> Figure:
    """The per-token PPO objective min(r A, clip(r, 1 - eps, 1 + eps) A) for A = +1 and A = -1 (Schulman
    et al. 2017, eq. 7), the negated ``per_token_loss`` of the engine's ``ppo.policy_loss``."""
    xs = _grid(0.3, max(1.8, max(ratios) * 1.1))
    logs = [[math.log(x) for x in xs]]
    zero = [[0.0] * len(xs)]
    mask = [[1.0] * len(xs)]
    series = []
    for label, adv in (("A = +1", 1.0), ("A = −1", -1.0)):
        loss = _call("ppo.policy_loss", "per_token_loss", old_log_prob=zero, log_prob=logs,
                     advantages=[[adv] * len(xs)], mask=mask, clip_ratio=eps)
        series.append(Series(label, xs, [-v for v in loss]))
    chart = Chart(_("PPO clipped objective against the ratio r (ε = %(eps)s)", eps=f"{eps:g}"),
                  "r = π / π_old", _("objective per unit advantage"), series,
                  [(r, _("token %(n)s", n=i + 1)) for i, r in enumerate(ratios)],
                  _("For A > 0 the objective stops rising above r = 1 + ε; for A < 0 it stops rising "
                    "below r = 1 − ε: there the gradient is zero."))
    alt = _("Two lines: the clipped objective for a positive and a negative advantage, flat beyond "
            "1 + ε and below 1 − ε respectively, with this variant's ratios marked.")
    return Figure(chart, alt, ["r", "A = +1", "A = −1"], _table(xs, series, 10))


def overoptimisation(alpha: float, beta: float, ds: Sequence[float]) -> Figure:
    """Gold reward of best-of-n against d = sqrt(KL): R(d) = d (alpha - beta d) (Gao et al. 2023, eq. 1)."""
    hi = max(max(ds) * 1.15, alpha / beta * 1.1)
    xs = _grid(0.0, hi)
    series = [Series(_("gold reward"), xs, _call("overopt.gold_reward", "reward", d=xs, alpha=alpha,
                                                 beta=beta, method="bon"))]
    chart = Chart(_("Reward over-optimisation: gold reward against √KL"), "d = √KL(π ‖ π_init)",
                  _("gold reward"), series, [(d, f"d{i + 1}") for i, d in enumerate(ds)],
                  _("The gold reward rises, peaks and then falls as the policy moves further from the "
                    "initial one."))
    alt = _("A curve rising from 0, peaking and falling again as d grows, with this variant's two "
            "distances marked.")
    return Figure(chart, alt, ["d", _("gold reward")], _table(xs, series, 10))


def gae_weights(gamma: float, lam: float, steps: int = 6) -> Figure:
    """The weight of the TD error l steps ahead in the advantage at step 0: (gamma lambda)^l (Schulman et
    al. 2016, eq. 16), read from the engine's ``advantages.gae`` on one-hot rewards with zero values."""
    xs = list(range(steps))
    series = []
    for label, lam_ in (("γλ (GAE)", lam), (_("γ alone (λ = 1)"), 1.0)):
        ys = []
        for k in xs:
            rewards = [[1.0 if j == k else 0.0 for j in range(steps)]]
            adv = _call("advantages.gae", "advantages", rewards=rewards, values=[[0.0] * steps],
                        mask=[[1.0] * steps], gamma=gamma, lam=lam_)
            ys.append(adv[0])
        series.append(Series(label, [float(x) for x in xs], ys))
    chart = Chart(_("GAE weight of each later TD error (γ = %(g)s, λ = %(l)s)", g=f"{gamma:g}", l=f"{lam:g}"),
                  _("steps ahead l"), _("weight in the advantage"), series, [],
                  _("Each later TD error counts (γλ) times less than the one before it."), points=True)
    alt = _("Dots joined by lines: the weights (γλ)^l and γ^l for l = 0 to %(n)s.", n=steps - 1)
    return Figure(chart, alt, ["l", "γλ", "γ"], _table([float(x) for x in xs], series, 1))


def best_of_n(n: int) -> Figure:
    """KL(best-of-n || base) = ln n - (n - 1) / n (Stiennon et al. 2020, app. G.3) against n, with ln n."""
    hi = max(64, 2 * n)
    xs = [float(x) for x in range(1, hi + 1)]
    series = [Series(_("KL of best-of-n"), xs, _call("bon.kl", "kl", n=[int(x) for x in xs])),
              Series("ln n", xs, [math.log(x) for x in xs])]
    chart = Chart(_("Best-of-n: KL from the base policy against n"), "n", _("KL (nats)"), series,
                  [(float(n), _("this variant"))], _("The KL grows like ln n, a little below it."))
    alt = _("Two rising curves against n from 1 to %(hi)s: the best-of-n KL and ln n just above it, with "
            "this variant's n marked.", hi=hi)
    return Figure(chart, alt, ["n", _("KL of best-of-n"), "ln n"], _table(xs, series, max(1, hi // 8)))


def gaussian_shift(mu: float, sigma: float) -> Figure:
    """KL(N(m, sigma^2) || N(0, sigma^2)) = m^2 / (2 sigma^2) against the shift m, for this sigma and 1."""
    xs = _grid(0.0, max(2.0 * abs(mu), 1.0))
    series = [Series(f"σ = {s:g}", xs,
                     _call("kl.gaussian", "kl", mu_p=xs, sigma_p=s, mu_q=0.0, sigma_q=s)) for s in (sigma, 1.0)]
    chart = Chart(_("KL between two Gaussians against the shift of the mean"), _("shift of the mean"),
                  _("KL (nats)"), series, [(abs(mu), _("this variant"))],
                  _("The KL grows with the square of the shift, more slowly for a wider Gaussian."))
    alt = _("Two parabolas against the shift of the mean, the wider Gaussian's lower, with this variant's "
            "shift marked.")
    return Figure(chart, alt, [_("shift"), f"σ = {sigma:g}", "σ = 1"], _table(xs, series, 10))


#: question id -> builder of its figure from the variant's parameters
FIGURES: dict[str, Callable[[Params], Figure]] = {
    "q04-k3-estimator": lambda p: kl_estimators([math.exp(p["lr"] - p["lp"])]),
    "kl-estimators-per-token": lambda p: kl_estimators([math.exp(b - a) for a, b in zip(p["lp"], p["lr"])]),
    "comp-ppo-clip-cases": lambda p: ppo_clip(p["eps"], [p["rho1"], p["rho2"], p["rho3"]]),
    "q09-reward-overoptimization": lambda p: overoptimisation(p["al"], p["be"], [p["d1"], p["d2"]]),
    "comp-gae-single-row": lambda p: gae_weights(p["gamma"], p["lam"]),
    "bon-kl": lambda p: best_of_n(int(p["n"])),
    "kl-gaussian-shift": lambda p: gaussian_shift(p["mu"], p["s"]),
}
