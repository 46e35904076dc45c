"""Barakat & Altman, "Performance of Short TCP Transfers" (NETWORKING 2000), as a calculator.

The paper's model (docs/studies/barakat.md, "The first slow start"): one RTT is a
mini-cycle in which slow start adds W/d packets, so W(n+1) = alpha W(n) with alpha = (d+1)/d and
W(n) = alpha^n from W(0) = 1. A drop-tail buffer of B packets in front of a bottleneck whose
bandwidth-delay product is muT packets overflows at the window W_B (Theorem 1, its approximation
eq. (4); eqs. (6) and (7) for a newcomer among synchronized connections); the source sees the loss
one RTT later, at W_D (eq. (5)); Reno's recovery leaves the threshold W'_th = W_D/8.

Every quantity is in packets (floats allowed). The pure functions below are the paper's
equations; :data:`THEORY` applies them to a configuration of the ``barakat`` program (one run's
row: its parameters and summary, names in :data:`THEORY`'s description).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Literal

from satsweep.theory import Reference, Theory, TheoryError

__all__ = [
    "THEORY",
    "alpha",
    "early_overflow_limit",
    "eq4_wb",
    "eq5_wd",
    "eq6_wb",
    "eq7_wb_max",
    "fig5_threshold",
    "hoe_limit",
    "overflow_cycle",
    "predictions",
    "references",
    "reno_threshold_after",
    "several_limit",
    "slow_start_d",
    "slow_start_d_bounds",
    "theorem1_wb",
]

#: Above this many mini-cycles :func:`overflow_cycle` keeps its float estimate instead of
#: comparing exact fractions (only a d in the thousands gets there; d is 1 or 2 in the paper).
_EXACT_CYCLES = 100_000

#: The slow-start policies of the ``barakat`` program (its ``slowStart`` parameter).
POLICIES = ("stcp", "bc", "dbc")


# -- checks ------------------------------------------------------------------------------------


def _number(value: Any, what: str) -> float:
    """``value`` as an int or a float (NumPy's scalars included); TheoryError if no number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TheoryError(f"{what} must be a number, not {value!r}")
    value = int(value) if isinstance(value, numbers.Integral) else float(value)
    if math.isnan(value):
        raise TheoryError(f"{what} must be a number, not NaN")
    return value


def _check_buffer(B: float) -> float:
    B = _number(B, "the buffer B")
    if not math.isfinite(B) or B < 1:
        raise TheoryError(f"the buffer B must be a finite number of packets >= 1, not {B!r}")
    return B


def _check_d(d: float) -> float:
    d = _number(d, "d")
    if not math.isfinite(d) or d <= 0:
        raise TheoryError(f"d (slow start adds W/d packets per RTT) must be > 0, not {d!r}")
    return d


def _check_bdp(bdp: float) -> float:
    bdp = _number(bdp, "the bandwidth-delay product muT")
    if not math.isfinite(bdp) or bdp <= 0:
        raise TheoryError(f"the bandwidth-delay product muT must be > 0 packets, not {bdp!r}")
    return bdp


def _check_window(w: float, what: str, *, infinite: bool = False) -> float:
    w = _number(w, what)
    if w <= 0 or (math.isinf(w) and not infinite):
        raise TheoryError(f"{what} must be a positive number of packets, not {w!r}")
    return w


# -- the model ---------------------------------------------------------------------------------


def alpha(d: float) -> float:
    """The growth of the window per mini-cycle (one RTT) of slow start, alpha = (d+1)/d
    (Sec. 3: W(n+1) = W(n) + W(n)/d = alpha W(n))."""
    d = _check_d(d)
    return (d + 1) / d


def overflow_cycle(B: float, d: float) -> int:
    """Theorem 1's n_B: the mini-cycle in which the buffer overflows, the integer n with
    alpha^(n-1) < B(d+1) <= alpha^n (W(n) = alpha^n from W(0) = 1).

    The comparison is exact (fractions of the given B and d), so a B(d+1) that is exactly a
    power of alpha falls on the ``<=`` side: ``overflow_cycle(16, 1) == 5`` (2^5 = 32).
    """
    B, d = _check_buffer(B), _check_d(d)
    target = Fraction(B) * (Fraction(d) + 1)
    growth = (Fraction(d) + 1) / Fraction(d)
    # B >= 1 and d > 0 make B(d+1) > 1 = alpha^0, so n >= 1: a float estimate, then exact steps
    # (the estimate alone when that many cycles make the exact powers too costly).
    n = max(1, math.ceil(math.log(target) / math.log1p(1 / d)))
    if n > _EXACT_CYCLES:
        return n
    while growth**n < target:
        n += 1
    while n > 1 and growth ** (n - 1) >= target:
        n -= 1
    return n


def theorem1_wb(B: float, bdp: float, d: float) -> float:
    """Theorem 1: the window at which the first slow start overflows the buffer (W_th
    infinite), W_B = B + min(muT, alpha^(n_B - 1)), n_B from :func:`overflow_cycle`.

    It merges eq. (2), W_B = alpha^(n_B - 1) + B (the previous cycle's window was below muT),
    and eq. (3), W_B = B + muT (a queue is left from the previous cycle).
    """
    B, bdp, d = _check_buffer(B), _check_bdp(bdp), _check_d(d)
    return float(B + min(bdp, alpha(d) ** (overflow_cycle(B, d) - 1)))


def eq4_wb(B: float, bdp: float, d: float) -> float:
    """Eq. (4), Theorem 1 with alpha^n_B ~ B(d+1): W_B = B + min(muT, B d)."""
    B, bdp, d = _check_buffer(B), _check_bdp(bdp), _check_d(d)
    return float(B + min(bdp, B * d))


def eq5_wd(wb: float, d: float, wth: float) -> float:
    """Eq. (5): the loss is seen one RTT after the overflow, at W_D = min(W_th, alpha W_B).

    ``wth`` may be ``math.inf`` (no threshold). Meaningful only when the slow start overflows
    at all (Corollary 1: W_th >= W_B).
    """
    wb = _check_window(wb, "W_B")
    wth = _check_window(wth, "W_th", infinite=True)
    return float(min(wth, alpha(d) * wb))


def reno_threshold_after(wd: float, *, second_by_timeout: bool = False) -> float:
    """Sec. 4: the threshold Reno's recovery leaves, W'_th = W_D/8 (two losses found by
    duplicate ACKs, each halving, the third by a timeout); W_D/4 when the second already needs
    the timeout (``second_by_timeout``)."""
    wd = _check_window(wd, "W_D")
    return float(wd / (4 if second_by_timeout else 8))


def fig5_threshold(
    B: float, bdp: float, d: float, *, wb: Literal["eq4", "theorem1"] = "eq4"
) -> float:
    """Fig. 5's curve: the threshold after the first slow start's loss, W'_th = alpha W_B / 8
    (Sec. 4, which takes W_th > alpha W_B so that W_D = alpha W_B by eq. (5)).

    W_B from eq. (4) by default (the paper's closed form, which Fig. 5 plots against B); from
    Theorem 1 with ``wb="theorem1"`` (the exact model: a staircase in B).
    """
    if wb == "eq4":
        w = eq4_wb(B, bdp, d)
    elif wb == "theorem1":
        w = theorem1_wb(B, bdp, d)
    else:
        raise TheoryError(f"fig5_threshold: wb must be 'eq4' or 'theorem1', not {wb!r}")
    return reno_threshold_after(alpha(d) * w)


def eq6_wb(B: float, bdp: float, d: float, N: float) -> float:
    """Eq. (6), several synchronized connections (Sec. 5): a newcomer that finds N packets in
    the network sees buffer B and BDP muT - N, so W_B = B + min(muT - N, B d).

    If N > muT the newcomer sees no BDP and only a buffer of B' = B + muT - N, and eq. (6) on
    (B', 0) gives W_B = B'; N = B + muT (a full network) gives 0. N outside [0, B + muT] is an
    error.
    """
    B, bdp, d = _check_buffer(B), _check_bdp(bdp), _check_d(d)
    N = _number(N, "N (packets in the network)")
    if not 0 <= N <= B + bdp:
        raise TheoryError(f"N must lie in [0, B + muT] = [0, {B + bdp:g}] packets, not {N!r}")
    if N > bdp:
        return float(B + bdp - N)
    return float(B + min(bdp - N, B * d))


def eq7_wb_max(B: float, bdp: float, d: float) -> float:
    """Eq. (7): the largest W_B of a newcomer among synchronized connections, eq. (6) with the
    fewest packets in the network, N = (B + muT)/2: W_B^max = B + min((muT - B)/2, B d).

    For B > muT this is (B + muT)/2, the buffer eq. (6) leaves when N > muT.
    """
    B, bdp, d = _check_buffer(B), _check_bdp(bdp), _check_d(d)
    return float(B + min((bdp - B) / 2, B * d))


def early_overflow_limit(bdp: float, d: float) -> float:
    """Sec. 3, from eq. (4): the buffer overflows early (before the window reaches the pipe,
    W_B < B + muT) iff B < muT/d; so a faster slow start (smaller d) helps only while
    B > muT/d."""
    return float(_check_bdp(bdp) / _check_d(d))


def hoe_limit(bdp: float, d: float) -> float:
    """Sec. 3: Hoe's W_th = BDP avoids a loss in the first slow start only if B > muT/(d+1)
    (Corollary 1 with eq. (4): W_th = muT < W_B = B + B d)."""
    return float(_check_bdp(bdp) / (_check_d(d) + 1))


def several_limit(bdp: float, d: float) -> float:
    """Sec. 5: among synchronized connections no newcomer overflows early if B > muT/(2d+1)
    (eq. (7): B d >= (muT - B)/2)."""
    return float(_check_bdp(bdp) / (2 * _check_d(d) + 1))


def slow_start_d(policy: str, delayed_ack: bool, bc_limit: float = 2) -> float | None:
    """The paper's d of a slow-start policy (docs/studies/barakat.md, "Slow-start policies").

    - ``stcp``: +1 packet per new ACK, so d = 2 with delayed ACKs (one ACK per two packets),
      else 1;
    - ``bc``: +min(k, L) per ACK covering k packets (k = 2 with delayed ACKs, else 1), so
      d = k / min(k, L): 1 for L >= 2;
    - ``dbc``: None: its d grows from the bc value at W = 1 to d_max times it at W = W_th, no
      single d (:func:`slow_start_d_bounds` gives the two ends).
    """
    lo, hi = slow_start_d_bounds(policy, delayed_ack, bc_limit)
    return lo if lo == hi else None


def slow_start_d_bounds(
    policy: str, delayed_ack: bool, bc_limit: float = 2, dbc_max_d: float = 2
) -> tuple[float, float]:
    """The least and largest d of a slow-start policy during the first slow start: (d, d) for
    ``stcp`` and ``bc`` (:func:`slow_start_d`); for ``dbc``, whose increase per ACK is bc's
    divided by d(W) = 1 + (d_max - 1)(W - 1)/(W_th - 1), bc's d and d_max times it (1 and d_max
    for L >= 2, with or without delayed ACKs)."""
    if policy not in POLICIES:
        raise TheoryError(f"unknown slow-start policy {policy!r}; allowed: {', '.join(POLICIES)}")
    if not isinstance(delayed_ack, bool):
        raise TheoryError(f"delayed_ack must be a bool, not {delayed_ack!r}")
    k = 2 if delayed_ack else 1  # packets one ACK covers
    if policy == "stcp":
        return float(k), float(k)
    limit = _number(bc_limit, "the byte-counting limit L")
    if limit < 1:
        raise TheoryError(f"the byte-counting limit L must be >= 1 packet, not {bc_limit!r}")
    d = k / min(k, limit)
    if policy == "bc":
        return d, d
    max_d = _number(dbc_max_d, "dbc's d_max")
    if not math.isfinite(max_d) or max_d < 1:
        raise TheoryError(f"dbc's d_max must be >= 1, not {dbc_max_d!r}")
    return d, d * max_d


# -- a configuration of the barakat program ----------------------------------------------------

WB_THEOREM1 = "W_B Theorem 1"
WB_THEOREM1_HELD = "W_B Theorem 1, B+1 held"
WB_EQ4 = "W_B eq. (4)"
WD_THEOREM1 = "W_D eq. (5) via Th. 1"
WD_EQ4 = "W_D eq. (5) via eq. (4)"
WTH_THEOREM1 = "W'_th = W_D/8 via Th. 1"
WTH_EQ4 = "W'_th = W_D/8 via eq. (4)"
WB_MAX_EQ7 = "W_B^max eq. (7)"

#: Which predictions predict which summary field of the barakat program.
PREDICTS = {
    "wb": [WB_THEOREM1, WB_THEOREM1_HELD, WB_EQ4, WB_MAX_EQ7],
    "wd": [WD_THEOREM1, WD_EQ4],
    "ssthreshAfter": [WTH_THEOREM1, WTH_EQ4],
}

#: A W_th at or above this is "high" (the program's 10000): no line is drawn at it.
_HIGH_SSTHRESH = 1000


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _get(row: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """The row's ``key``; ``default`` if it has none (None, NaN), TheoryError if no default."""
    value = row.get(key)
    if _missing(value):
        if default is None:
            raise TheoryError(f"the configuration has no value of '{key}'")
        return default
    return value


def _flag(row: Mapping[str, Any], key: str) -> bool:
    value = _get(row, key)
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if not isinstance(value, str) and value in (0, 1):  # bool, 0/1, NumPy's bool_
        return bool(value)
    raise TheoryError(f"'{key}' must be true or false, not {value!r}")


def _scenario(row: Mapping[str, Any]) -> str:
    scenario = _get(row, "scenario")
    if scenario not in ("s1", "s2"):
        raise TheoryError(f"unknown scenario {scenario!r}; allowed: s1, s2")
    return scenario


def _bdp(row: Mapping[str, Any]) -> float:
    """muT in packets: the row's ``bdp``, the program's own (its one definition)."""
    return _check_bdp(_number(_get(row, "bdp"), "bdp"))


def _d_bounds(row: Mapping[str, Any]) -> tuple[float, float]:
    return slow_start_d_bounds(
        _get(row, "slowStart"),
        _flag(row, "delayedAck"),
        _get(row, "bcLimit", 2),
        _get(row, "dbcMaxD", 2),
    )


def _ds(row: Mapping[str, Any]) -> list[float]:
    """The d of the row's policy, or both ends of dbc's range."""
    lo, hi = _d_bounds(row)
    return [lo] if lo == hi else [lo, hi]


def _d_label(d: float) -> str:
    return f"d={d:g}"


def predictions(row: Mapping[str, Any]) -> dict[str, float | None]:
    """What the theory predicts for one configuration of the barakat program (every name of
    :data:`PREDICTS`, None where the theory says nothing).

    Scenario s1 (one transfer): W_B by Theorem 1 and by eq. (4), and for each W_D = min(W_th,
    alpha W_B) (eq. (5), W_th = the row's ``ssthresh``) and W'_th = W_D/8. Both chains, since
    they can disagree on whether a loss happens at all (B = 20, d = 1, W_th = 50: Theorem 1
    gives 52, eq. (4) 40). A chain is None when Corollary 1 says the first slow start ends
    without a loss (W_th < W_B). The theory assumes a file long enough to reach W_B: a small
    ``fileSize`` may end first (the run's ``ssLoss`` says). Also Theorem 1 of the buffer as
    ns-2's DropTail holds it, B waiting packets and the one being sent: B + 1 (the simulated
    W_B of every-packet ACKs is that, to the packet: tests/test_barakat.py).

    Scenario s2 (synchronized sources): eq. (7)'s W_B^max, the largest W_B a newcomer can
    reach (an upper bound, not the mean; W_th does not cap it here since another newcomer with
    more packets in the network may still overflow).

    ``dbc`` has no single d: every d-dependent prediction is None (its reference lines show
    the bounds d = 1 and d = d_max instead).
    """
    out: dict[str, float | None] = dict.fromkeys(
        [
            WB_THEOREM1,
            WB_THEOREM1_HELD,
            WB_EQ4,
            WD_THEOREM1,
            WD_EQ4,
            WTH_THEOREM1,
            WTH_EQ4,
            WB_MAX_EQ7,
        ]
    )
    scenario = _scenario(row)
    B = _check_buffer(_get(row, "buffer"))
    bdp = _bdp(row)
    lo, hi = _d_bounds(row)
    if lo != hi:  # dbc
        return out
    d = lo
    if scenario == "s2":
        out[WB_MAX_EQ7] = eq7_wb_max(B, bdp, d)
        return out
    wth = _check_window(_get(row, "ssthresh"), "ssthresh")
    for wb_name, wd_name, wth_name, wb in (
        (WB_THEOREM1, WD_THEOREM1, WTH_THEOREM1, theorem1_wb(B, bdp, d)),
        (WB_EQ4, WD_EQ4, WTH_EQ4, eq4_wb(B, bdp, d)),
    ):
        if wth < wb:  # Corollary 1: no overflow in the first slow start
            continue
        wd = eq5_wd(wb, d, wth)
        out[wb_name], out[wd_name], out[wth_name] = wb, wd, reno_threshold_after(wd)
    held = theorem1_wb(B + 1, bdp, d)
    out[WB_THEOREM1_HELD] = None if wth < held else held
    return out


def references(x: str, y: str, row: Mapping[str, Any]) -> list[Reference]:
    """The theory's lines on a figure of ``y`` against ``x`` for the configuration ``row``.

    - x = ``buffer``: vertical lines at B = muT/d (below it the buffer overflows early), at
      B = muT/(d+1) (above it W_th = BDP avoids the loss) and, in s2, at B = muT/(2d+1) (above
      it no newcomer overflows early);
    - x = ``ssthresh``: in s2 (Fig. 10) a vertical line at eq. (7)'s W_B^max; in s1 at
      Theorem 1's W_B (and eq. (4)'s when it differs): a lower W_th ends slow start without a
      loss (Corollary 1);
    - x = ``time``, y = ``cwnd`` (Fig. 4, s1): horizontal lines at Theorem 1's W_B, at eq. (4)'s
      when it differs, and at W_th unless it is high (>= 1000);
    - anything else: none.

    d is the row's policy's; dbc gets the lines of both ends, d = 1 and d = d_max, labelled so
    (and so does every policy: labels name d, as curves of several policies share the axes).
    """
    if x == "buffer":
        bdp, scenario = _bdp(row), _scenario(row)
        lines = []
        for d in _ds(row):
            lines.append(Reference("x", early_overflow_limit(bdp, d), f"B = muT/d, {_d_label(d)}"))
            lines.append(Reference("x", hoe_limit(bdp, d), f"B = muT/(d+1), {_d_label(d)}"))
            if scenario == "s2":
                lines.append(
                    Reference("x", several_limit(bdp, d), f"B = muT/(2d+1), {_d_label(d)}")
                )
        return lines
    if x == "ssthresh":
        bdp, scenario = _bdp(row), _scenario(row)
        B = _check_buffer(_get(row, "buffer"))
        if scenario == "s2":
            return [
                Reference("x", eq7_wb_max(B, bdp, d), f"W_B^max eq. (7), {_d_label(d)}")
                for d in _ds(row)
            ]
        ds = _ds(row)
        return [r for d in ds for r in _wb_lines("x", B, bdp, d, len(ds) > 1)]
    if x == "time" and y == "cwnd" and _scenario(row) == "s1":
        bdp, B = _bdp(row), _check_buffer(_get(row, "buffer"))
        ds = _ds(row)
        lines = [r for d in ds for r in _wb_lines("y", B, bdp, d, len(ds) > 1)]
        wth = _check_window(_get(row, "ssthresh"), "ssthresh")
        if wth < _HIGH_SSTHRESH:
            lines.append(Reference("y", float(wth), "W_th"))
        return lines
    return []


def _wb_lines(
    axis: Literal["x", "y"], B: float, bdp: float, d: float, name_d: bool
) -> list[Reference]:
    """Theorem 1's W_B, and eq. (4)'s when it differs (the d named when several are drawn)."""
    suffix = f", {_d_label(d)}" if name_d else ""
    exact, approx = theorem1_wb(B, bdp, d), eq4_wb(B, bdp, d)
    lines = [Reference(axis, exact, WB_THEOREM1 + suffix)]
    if not math.isclose(exact, approx):
        lines.append(Reference(axis, approx, WB_EQ4 + suffix))
    return lines


THEORY = Theory(
    name="barakat",
    description=(
        "Barakat & Altman (NETWORKING 2000), the first slow start against a drop-tail buffer "
        "B (packets) and a bandwidth-delay product muT (packets): the overflow window W_B "
        "(Theorem 1, eq. (4); eq. (7)'s W_B^max among synchronized connections), the window "
        "W_D at which the loss is seen (eq. (5)) and Reno's threshold after it, W_D/8. Reads "
        "the barakat program's scenario, buffer, bdp (or rate, rtt, segmentSize, headerSize), "
        "ssthresh, delayedAck, slowStart, bcLimit and dbcMaxD; predicts its wb, wd and "
        "ssthreshAfter."
    ),
    predictions=predictions,
    predicts=PREDICTS,
    references=references,
)
