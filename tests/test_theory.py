"""The theory room: Barakat & Altman's calculator (analysis/barakat/theory.py, the installed
plug-in satsweep_barakat) against docs/studies/barakat.md, "What the equations give", and the
hand-computed cases below; theories found by name and by file."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

import satsweep_barakat.theory as b
from satsweep import cli
from satsweep.theory import Reference, TheoryError, TheoryNotFound, installed, theory
from tests.support import REPO

# -- the model ---------------------------------------------------------------------------------


def test_alpha():
    assert b.alpha(1) == 2.0
    assert b.alpha(2) == 1.5
    assert b.alpha(0.5) == 3.0


@pytest.mark.parametrize(
    ("B", "d", "n"),
    [
        # B(d+1) = 40: 2^5 = 32 < 40 <= 64 = 2^6
        (20, 1, 6),
        # B(d+1) = 140: 2^7 = 128 < 140 <= 256
        (70, 1, 8),
        # B(d+1) = 60: 1.5^10 = 57.67 < 60 <= 86.50 = 1.5^11
        (20, 2, 11),
        # the smallest buffer: B(d+1) = 2 = 2^1
        (1, 1, 1),
        # B(d+1) = 3: 1.5^2 = 2.25 < 3 <= 3.375
        (1, 2, 3),
    ],
)
def test_overflow_cycle(B, d, n):
    assert b.overflow_cycle(B, d) == n


@pytest.mark.parametrize(
    ("B", "d", "n"),
    [
        # B(d+1) exactly a power of alpha: the <= side, n_B is that power
        (16, 1, 5),  # 32 = 2^5
        (17, 1, 6),  # 34: just above 2^5
        (15.5, 1, 5),  # 31: just below 2^5, above 2^4 = 16
        (1.6875, 2, 4),  # 3 x 27/16 = 81/16 = 1.5^4
        (1.1920928955078125, 4, 8),  # 5 x 5^7/4^8 = 5^8/4^8 = 1.25^8
        # a float log would say 4 and 30: log(125)/log(5) and log2(2^29) round above the integer
        (100, 0.25, 3),  # alpha = 5, B(d+1) = 125 = 5^3
        (2**28, 1, 29),  # B(d+1) = 2^29
        # just above a power, where a float log rounds down onto it: B(d+1) = 2^8 (1 + 2^-52)
        (math.nextafter(128, math.inf), 1, 9),
    ],
)
def test_overflow_cycle_at_a_power_of_alpha(B, d, n):
    assert b.overflow_cycle(B, d) == n


def test_theorem1_wb():
    # (20, 1): alpha = 2, B(d+1) = 40, n_B = 6 since 2^5 = 32 < 40 <= 64,
    # W_B = 20 + min(70, 2^5) = 52 (docs/studies/barakat.md, "What the equations give")
    assert b.theorem1_wb(20, 70, 1) == 52.0
    # (70, 1): n_B = 8 (128 < 140 <= 256), W_B = 70 + min(70, 2^7 = 128) = 140
    assert b.theorem1_wb(70, 70, 1) == 140.0
    # (20, 2): n_B = 11, W_B = 20 + min(70, 1.5^10 = 59049/1024 = 57.6650390625)
    assert b.theorem1_wb(20, 70, 2) == 77.6650390625
    # eq. (3)'s branch: (50, 1): 100 -> n_B = 7 (64 < 100 <= 128), 2^6 = 64 > muT = 30
    assert b.theorem1_wb(50, 30, 1) == 80.0
    # B(d+1) = 32 = 2^5 exactly: n_B = 5, W_B = 16 + 2^4 = 32 (not 16 + 32 = 48)
    assert b.theorem1_wb(16, 70, 1) == 32.0


def test_eq4_wb_section_3():
    # Fig. 4: muT = 70, W_B = B + min(70, B d)
    assert b.eq4_wb(70, 70, 1) == 140.0  # 70 + min(70, 70)
    assert b.eq4_wb(20, 70, 1) == 40.0  # 20 + min(70, 20)
    assert b.eq4_wb(20, 70, 2) == 60.0  # 20 + min(70, 40)
    assert b.eq4_wb(50, 70, 2) == 120.0  # 50 + min(70, 100)


def test_eq5_wd():
    assert b.eq5_wd(40, 1, 50) == 50.0  # min(50, 2 x 40 = 80)
    assert b.eq5_wd(20, 1, 50) == 40.0  # min(50, 40)
    assert b.eq5_wd(60, 2, 1e4) == 90.0  # min(1e4, 1.5 x 60)
    assert b.eq5_wd(52, 1, math.inf) == 104.0


def test_reno_threshold_after():
    assert b.reno_threshold_after(50) == 6.25
    assert b.reno_threshold_after(104) == 13.0
    assert b.reno_threshold_after(50, second_by_timeout=True) == 12.5


def test_fig5_threshold():
    # alpha W_B / 8 with eq. (4): (20, 1): 2 x 40 / 8 = 10; (70, 1): 2 x 140 / 8 = 35;
    # (20, 2): 1.5 x 60 / 8 = 11.25; with Theorem 1, (20, 1): 2 x 52 / 8 = 13
    assert b.fig5_threshold(20, 70, 1) == 10.0
    assert b.fig5_threshold(70, 70, 1) == 35.0
    assert b.fig5_threshold(20, 70, 2) == 11.25
    assert b.fig5_threshold(20, 70, 1, wb="theorem1") == 13.0
    with pytest.raises(TheoryError, match="eq4"):
        b.fig5_threshold(20, 70, 1, wb="eq5")


def test_eq6_wb():
    # B = 20, muT = 350, d = 1: W_B = 20 + min(350 - N, 20)
    assert b.eq6_wb(20, 350, 1, 0) == 40.0
    assert b.eq6_wb(20, 350, 1, 300) == 40.0  # min(50, 20)
    assert b.eq6_wb(20, 350, 1, 340) == 30.0  # min(10, 20)
    assert b.eq6_wb(20, 350, 1, 350) == 20.0  # min(0, 20)
    # N > muT: only a buffer of B + muT - N = 20 + 350 - 360 = 10 is left
    assert b.eq6_wb(20, 350, 1, 360) == 10.0
    assert b.eq6_wb(20, 350, 1, 370) == 0.0  # a full network
    with pytest.raises(TheoryError, match="370"):
        b.eq6_wb(20, 350, 1, 371)
    with pytest.raises(TheoryError):
        b.eq6_wb(20, 350, 1, -1)


def test_eq7_wb_max_section_3():
    # Fig. 10, muT = 350: W_B^max = B + min((350 - B)/2, B d)
    assert b.eq7_wb_max(70, 350, 1) == 140.0  # 70 + min(140, 70)
    assert b.eq7_wb_max(70, 350, 2) == 210.0  # 70 + min(140, 140)
    assert b.eq7_wb_max(20, 350, 1) == 40.0  # 20 + min(165, 20)
    assert b.eq7_wb_max(20, 350, 2) == 60.0  # 20 + min(165, 40)
    # in kB of 512 B packets: 140 x 512 / 1000 = 71.68, 210 x 512 / 1000 = 107.52
    assert b.eq7_wb_max(70, 350, 2) * 512 / 1000 == pytest.approx(107.52)
    # B > muT: (B + muT)/2 = (100 + 70)/2 = 85, what eq. (6) leaves at N = 85
    assert b.eq7_wb_max(100, 70, 1) == 85.0
    assert b.eq6_wb(100, 70, 1, 85) == 85.0


def test_thresholds_of_b():
    assert b.early_overflow_limit(70, 1) == 70.0
    assert b.early_overflow_limit(70, 2) == 35.0
    assert b.hoe_limit(70, 1) == 35.0
    assert b.hoe_limit(70, 2) == pytest.approx(23.3333333)
    assert b.several_limit(350, 1) == pytest.approx(116.6666667)
    assert b.several_limit(350, 2) == 70.0


def test_thresholds_agree_with_the_windows():
    # B just below muT/d overflows early (W_B < B + muT), just above not: muT = 70, d = 2
    assert b.eq4_wb(34, 70, 2) == 34 + 68
    assert b.eq4_wb(36, 70, 2) == 36 + 70
    # Hoe (W_th = muT = 70) avoids the loss iff W_th < W_B: B = 23 gives 69, B = 24 gives 72
    assert b.eq4_wb(23, 70, 2) == 69.0
    assert b.eq4_wb(24, 70, 2) == 72.0


def test_slow_start_d():
    assert b.slow_start_d("stcp", True) == 2.0
    assert b.slow_start_d("stcp", False) == 1.0
    assert b.slow_start_d("bc", True) == 1.0  # k = 2 packets, +min(2, 2) per ACK
    assert b.slow_start_d("bc", False) == 1.0  # k = 1, +1
    assert b.slow_start_d("bc", True, bc_limit=1) == 2.0  # k = 2, +min(2, 1)
    assert b.slow_start_d("dbc", True) is None
    assert b.slow_start_d_bounds("dbc", True) == (1.0, 2.0)
    assert b.slow_start_d_bounds("dbc", False, dbc_max_d=3) == (1.0, 3.0)
    assert b.slow_start_d_bounds("stcp", True) == (2.0, 2.0)
    with pytest.raises(TheoryError, match="stcp, bc, dbc"):
        b.slow_start_d("abc", True)
    with pytest.raises(TheoryError):
        b.slow_start_d("bc", True, bc_limit=0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: b.eq4_wb(0.5, 70, 1),
        lambda: b.eq4_wb(20, 0, 1),
        lambda: b.eq4_wb(20, -70, 1),
        lambda: b.eq4_wb(20, 70, 0),
        lambda: b.theorem1_wb(20, 70, -1),
        lambda: b.overflow_cycle(0, 1),
        lambda: b.overflow_cycle(20, 0),
        lambda: b.eq7_wb_max(20, 0, 1),
        lambda: b.alpha(0),
        lambda: b.early_overflow_limit(0, 1),
        lambda: b.hoe_limit(70, 0),
        lambda: b.several_limit(-1, 1),
        lambda: b.eq5_wd(0, 1, 50),
        lambda: b.eq4_wb(float("nan"), 70, 1),
        lambda: b.eq4_wb("20", 70, 1),
        lambda: b.eq4_wb(True, 70, 1),
    ],
)
def test_invalid_input_raises(call):
    with pytest.raises(TheoryError):
        call()


def test_error_messages_name_the_value():
    with pytest.raises(TheoryError, match="buffer B"):
        b.eq4_wb(0, 70, 1)
    with pytest.raises(TheoryError, match="muT"):
        b.eq4_wb(20, 0, 1)
    with pytest.raises(TheoryError, match="d "):
        b.eq4_wb(20, 70, 0)


# -- a configuration of the barakat program ----------------------------------------------------

#: Fig. 4's B = 20 run: 1.5 Mbps x 206 ms = 309000 bit = 38625 B = 69.97 packets of 552 B.
S1 = {
    "scenario": "s1",
    "rate": 1.5e6,
    "rtt": 0.206,
    "buffer": 20,
    "segmentSize": 512,
    "headerSize": 40,
    "fileSize": 200,
    "sources": 1,
    "ssthresh": 50,
    "window": 10000,
    "delayedAck": False,
    "slowStart": "stcp",
    "bcLimit": 2,
    "dbcMaxD": 2.0,
    "bdp": 70.0,
    "wb": 41.0,
    "wd": 50.0,
    "ssthreshAfter": 6.0,
    "ssLoss": 1.0,
    "throughput": 800.0,
    "retxRatio": 0.95,
}

#: Fig. 11's B = 70 point: 5 sources, 7.5 Mbps, receivers ACK every other packet.
S2 = {
    **S1,
    "scenario": "s2",
    "rate": 7.5e6,
    "buffer": 70,
    "sources": 5,
    "fileSize": None,
    "ssthresh": 350,
    "delayedAck": True,
    "bdp": 350.0,
}


def test_predictions_fig4_edge_case():
    # (20, 1), W_th = 50: Theorem 1 gives 52 > 50, no loss (Corollary 1); eq. (4) gives 40,
    # a loss seen at min(50, 80) = 50 and W'_th = 50/8 = 6.25
    assert b.THEORY.predictions(S1) == {
        "W_B Theorem 1": None,
        "W_B Theorem 1, B+1 held": None,
        "W_B eq. (4)": 40.0,
        "W_D eq. (5) via Th. 1": None,
        "W_D eq. (5) via eq. (4)": 50.0,
        "W'_th = W_D/8 via Th. 1": None,
        "W'_th = W_D/8 via eq. (4)": 6.25,
        "W_B^max eq. (7)": None,
    }


def test_predictions_s1_high_threshold_and_corollary_1():
    high = {**S1, "ssthresh": 10000}
    p = b.THEORY.predictions(high)
    # Theorem 1: 52, W_D = 2 x 52 = 104, W'_th = 13; eq. (4): 40, 80, 10
    assert p["W_B Theorem 1"] == 52.0
    assert p["W_D eq. (5) via Th. 1"] == 104.0
    assert p["W'_th = W_D/8 via Th. 1"] == 13.0
    assert p["W_B eq. (4)"] == 40.0
    assert p["W_D eq. (5) via eq. (4)"] == 80.0
    assert p["W'_th = W_D/8 via eq. (4)"] == 10.0
    # W_th = W_B: Corollary 1 (no loss iff W_th < W_B) says a loss: (20, 1), W_th = 40 = eq. (4)'s
    # W_B, W_D = min(40, 80) = 40, W'_th = 5
    p = b.THEORY.predictions({**S1, "ssthresh": 40})
    assert (p["W_B eq. (4)"], p["W_D eq. (5) via eq. (4)"], p["W'_th = W_D/8 via eq. (4)"]) == (
        40.0,
        40.0,
        5.0,
    )
    # (70, 1) with W_th = 50 < W_B = 140: no loss in either chain (Fig. 4's B = 70 curve)
    assert all(v is None for v in b.THEORY.predictions({**S1, "buffer": 70}).values())
    # Hoe's W_th = muT = 70 with delayed ACKs (d = 2), B = 23 < 70/3: eq. (4) gives
    # 23 + 46 = 69 <= 70, a loss seen at min(70, 1.5 x 69 = 103.5) = 70, W'_th = 70/8 = 8.75;
    # Theorem 1: B(d+1) = 69, 1.5^10 = 57.67 < 69 <= 86.50 = 1.5^11, W_B = 23 + 57.67 > 70
    p = b.THEORY.predictions({**S1, "buffer": 23, "delayedAck": True, "ssthresh": 70})
    assert p["W_B eq. (4)"] == 69.0
    assert p["W_D eq. (5) via eq. (4)"] == 70.0
    assert p["W'_th = W_D/8 via eq. (4)"] == 8.75
    assert p["W_B Theorem 1"] is None
    # B = 24 > 70/3: eq. (4) gives 24 + 48 = 72 > W_th = 70, no loss either
    p = b.THEORY.predictions({**S1, "buffer": 24, "delayedAck": True, "ssthresh": 70})
    assert p["W_B eq. (4)"] is None


def test_predictions_need_the_programs_bdp():
    with pytest.raises(TheoryError, match="bdp"):
        b.THEORY.predictions({**S1, "bdp": None})


def test_predictions_theorem_1_of_the_buffer_held():
    # B + 1 = 21 held, d = 1: 2^5 = 32 < 42 <= 64, so 21 + min(70, 32) = 53
    p = b.THEORY.predictions({**S1, "ssthresh": 10000})
    assert p["W_B Theorem 1, B+1 held"] == 53.0 and p["W_B Theorem 1"] == 52.0
    # W_th = 50 < 53: Corollary 1, no loss
    assert b.THEORY.predictions(S1)["W_B Theorem 1, B+1 held"] is None


def test_predictions_s2():
    # d = 2 (stcp, delayed ACKs): 70 + min(140, 140) = 210; bc: d = 1, 70 + 70 = 140
    p = b.THEORY.predictions(S2)
    assert p["W_B^max eq. (7)"] == 210.0
    assert [k for k, v in p.items() if v is not None] == ["W_B^max eq. (7)"]
    assert b.THEORY.predictions({**S2, "slowStart": "bc"})["W_B^max eq. (7)"] == 140.0
    assert b.THEORY.predictions({**S2, "buffer": 20})["W_B^max eq. (7)"] == 60.0


def test_predictions_dbc_has_no_single_d():
    assert all(v is None for v in b.THEORY.predictions({**S1, "slowStart": "dbc"}).values())
    assert all(v is None for v in b.THEORY.predictions({**S2, "slowStart": "dbc"}).values())


def test_predictions_accept_flags_as_text():
    assert b.THEORY.predictions({**S2, "delayedAck": "true"})["W_B^max eq. (7)"] == 210.0
    assert b.THEORY.predictions({**S2, "delayedAck": 0})["W_B^max eq. (7)"] == 140.0


def test_predictions_bad_rows():
    with pytest.raises(TheoryError, match="'buffer'"):
        b.THEORY.predictions({k: v for k, v in S1.items() if k != "buffer"})
    with pytest.raises(TheoryError, match="s3"):
        b.THEORY.predictions({**S1, "scenario": "s3"})
    with pytest.raises(TheoryError, match="buffer B"):
        b.THEORY.predictions({**S1, "buffer": 0})
    with pytest.raises(TheoryError, match="delayedAck"):
        b.THEORY.predictions({**S1, "delayedAck": "maybe"})


def test_predicts_names_predictions():
    names = set(b.THEORY.predictions({**S1, "ssthresh": 10000}))
    assert set(b.THEORY.predicts) == {"wb", "wd", "ssthreshAfter"}
    for field, predicted in b.THEORY.predicts.items():
        assert predicted and set(predicted) <= names, field
    assert "W_B^max eq. (7)" in b.THEORY.predicts["wb"]


def test_references_buffer():
    # s1, stcp with delayed ACKs (d = 2), muT = 70: 70/2 = 35 and 70/3
    refs = b.THEORY.references("buffer", "throughput", {**S1, "delayedAck": True})
    assert [(r.axis, r.label) for r in refs] == [
        ("x", "B = muT/d, d=2"),
        ("x", "B = muT/(d+1), d=2"),
    ]
    assert refs[0].value == 35.0
    assert refs[1].value == pytest.approx(23.3333333)
    # s2, bc (d = 1), muT = 350: 350, 175, 350/3
    refs = b.THEORY.references("buffer", "retxRatio", {**S2, "slowStart": "bc"})
    assert [r.value for r in refs] == pytest.approx([350.0, 175.0, 116.6666667])
    assert refs[2].label == "B = muT/(2d+1), d=1"
    # dbc: both ends, d = 1 then d = d_max = 2 (350/2, 350/3, 350/5)
    refs = b.THEORY.references("buffer", "throughput", {**S2, "slowStart": "dbc"})
    assert len(refs) == 6
    assert [r.label for r in refs[3:]] == [
        "B = muT/d, d=2",
        "B = muT/(d+1), d=2",
        "B = muT/(2d+1), d=2",
    ]
    assert [r.value for r in refs[3:]] == pytest.approx([175.0, 116.6666667, 70.0])


def test_references_ssthresh():
    # Fig. 10: eq. (7) at B = 70, muT = 350, d = 2 (stcp with delayed ACKs): 210
    assert b.THEORY.references("ssthresh", "throughput", S2) == [
        Reference("x", 210.0, "W_B^max eq. (7), d=2")
    ]
    refs = b.THEORY.references("ssthresh", "throughput", {**S2, "buffer": 20, "slowStart": "dbc"})
    assert refs == [
        Reference("x", 40.0, "W_B^max eq. (7), d=1"),
        Reference("x", 60.0, "W_B^max eq. (7), d=2"),
    ]
    # s1: below W_B the first slow start ends without a loss (Corollary 1)
    assert b.THEORY.references("ssthresh", "wb", S1) == [
        Reference("x", 52.0, "W_B Theorem 1"),
        Reference("x", 40.0, "W_B eq. (4)"),
    ]


def test_references_cwnd_trace():
    # Fig. 4, (20, 1), W_th = 50: Theorem 1's 52, eq. (4)'s 40, W_th
    assert b.THEORY.references("time", "cwnd", S1) == [
        Reference("y", 52.0, "W_B Theorem 1"),
        Reference("y", 40.0, "W_B eq. (4)"),
        Reference("y", 50.0, "W_th"),
    ]
    # (70, 1): both give 140, one line; a high W_th draws none
    assert b.THEORY.references("time", "cwnd", {**S1, "buffer": 70, "ssthresh": 10000}) == [
        Reference("y", 140.0, "W_B Theorem 1")
    ]


def test_references_other_pairs():
    assert b.THEORY.references("fileSize", "throughput", S1) == []
    assert b.THEORY.references("time", "queue", S1) == []
    assert b.THEORY.references("cwnd", "time", S1) == []


# -- finding a theory --------------------------------------------------------------------------


def test_an_installed_theory_by_name():
    assert "barakat" in installed()
    assert theory("barakat") is b.THEORY
    with pytest.raises(TheoryNotFound) as e:
        theory("nope")
    assert str(e.value).startswith("no theory 'nope'; allowed: barakat (installed), or a Python "
                                   "file defining THEORY, relative to the sweep file")  # fmt: skip


TINY = """\
from satsweep.theory import Reference, Theory

THEORY = Theory("tiny", "twice the buffer", lambda row: {"2B": 2 * row["buffer"]},
                {"wb": ["2B"]}, lambda x, y, row: [Reference("x", 1.0, "one")])
"""


def test_a_theory_file_relative_to_the_design(tmp_path: Path):
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "tiny.py").write_text(TINY)
    found = theory("./studies/tiny.py", tmp_path)
    assert found.name == "tiny" and found.predictions({"buffer": 3}) == {"2B": 6}
    assert theory(str(tmp_path / "studies" / "tiny.py")) is found  # absolute: the same module


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "no theory file {path}; allowed: barakat (installed), or a Python file"),
        ("THEORY = 3\n", "theory file {path}: its THEORY is int; allowed: a module whose "
         "THEORY is a satsweep.theory.Theory"),
        ("x = 1\n", "theory file {path}: its THEORY is missing; allowed: a module whose THEORY"),
        ("raise SystemExit(5)\n", "theory file {path} cannot be loaded: SystemExit: 5"),
        ("import no_such_module\n", "theory file {path} cannot be loaded: "
         "ModuleNotFoundError: No module named 'no_such_module'"),
        ("def (:\n", "theory file {path} cannot be loaded: SyntaxError: invalid syntax"),
    ],
)  # fmt: skip
def test_a_theory_file_that_cannot_be_used_says_why_in_one_line(tmp_path: Path, text, problem):
    if text is not None:
        (tmp_path / "t.py").write_text(text)
    with pytest.raises(TheoryNotFound) as e:
        theory("./t.py", tmp_path)
    assert str(e.value).startswith(problem.format(path=tmp_path / "t.py"))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "imports",
    [
        "import satsweep.theory",
        "import satsweep_barakat.theory",
        "import satsweep_barakat.theory, satsweep.design",
        "import satsweep.design, satsweep_barakat.theory",
        "import satsweep.report; from satsweep.theory import theory; theory('barakat')",
    ],
)
def test_no_import_order_is_circular(imports: str):
    """Each order in a fresh interpreter (the theory room once imported its plug-in while half
    initialised)."""
    subprocess.run([sys.executable, "-c", imports], check=True, timeout=120)


#: A study's own theory as a file beside its design: docs/examples/mm1.py's mean wait in queue,
#: Pollaczek-Khinchine's (half of M/M/1's for deterministic service).
PK = """\
from satsweep.theory import Theory


def predictions(row):
    wait = row["load"] / (1 - row["load"])
    return {"Pollaczek-Khinchine": wait / 2 if row["service"] == "det" else wait}


THEORY = Theory("pk", "M/G/1's mean wait in queue", predictions,
                {"mean_wait": ["Pollaczek-Khinchine"]}, lambda x, y, row: [])
"""
QUEUE = f"""\
study: queue
program: {REPO / "docs" / "examples" / "mm1.py"}
factors:
  service: [exp, det]
  load: [0.3, 0.5, 0.7]
fixed: {{customers: 2000}}
replications: 2
analysis: {{responses: [mean_wait], theory: ./pk.py}}
"""


@pytest.mark.slow
def test_a_theory_file_beside_a_design_is_drawn_in_its_report(tmp_path: Path):
    (tmp_path / "pk.py").write_text(PK)
    (tmp_path / "queue.yaml").write_text(QUEUE)
    results = tmp_path / "results"
    argv = ["--results", str(results)]
    assert cli.main(["run", str(tmp_path / "queue.yaml"), *argv, "--cores", "2"]) == 0
    assert cli.main(["report", "queue", *argv]) == 0
    markdown = (results / "queue" / "report" / "report.md").read_text()
    table = markdown.split("#### mean_wait: simulated and predicted (./pk.py)\n\n", 1)[1]
    assert table.startswith("| series | load | simulated | Pollaczek-Khinchine |")
    for service, load, wait in [("exp", "0.3", "0.428571"), ("det", "0.7", "1.16667")]:
        [row] = [r for r in table.splitlines() if r.startswith(f"| service={service} | {load} |")]
        assert row.rstrip(" |").endswith(f"| {wait}")


def test_an_unknown_theory_exits_2_naming_the_field_and_the_installed_ones(tmp_path: Path, capsys):
    design = tmp_path / "queue.yaml"
    design.write_text(QUEUE.replace("./pk.py", "nope"))
    assert cli.main(["run", str(design), "--results", str(tmp_path / "results")]) == 2
    assert (
        f"{design}: analysis.theory: no theory 'nope'; allowed: barakat (installed), or a Python "
        "file defining THEORY, relative to the sweep file (e.g. ./theory.py)"
    ) in capsys.readouterr().err
    assert not (tmp_path / "results").exists()
