"""The fair share says what it is (issue 27, defect 7): when some games have no outright
winner it is below 1/P, and the table note and the finding say why."""

import numpy as np

from reports.fairness import seat_fairness
from reports.sections import fair_note, seat_findings


def test_a_fair_share_below_one_over_p_says_why():
    fair = seat_fairness(np.array([238, 238, 238, 238]), 1000)  # 48 games shared
    assert fair_note(fair) == "fair 23.8% (outright wins only)"
    (sentence,) = seat_findings(fair)
    assert "23.8% (1/4 of the 95.2% (95% CI " in sentence
    assert "of games with an outright winner" in sentence
    assert "below 25.0%" in sentence


def test_a_fair_share_of_one_over_p_is_plain():
    fair = seat_fairness(np.array([250, 250, 250, 250]), 1000)
    assert fair_note(fair) == "fair 25.0%"
    assert "outright" not in seat_findings(fair)[0]
