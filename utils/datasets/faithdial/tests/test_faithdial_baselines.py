"""FaithDial's baselines: the threshold fit the lexical critic and BEGIN's critics share."""

from __future__ import annotations


def test_a_score_and_its_complement_flag_the_same_values_at_their_fitted_thresholds() -> None:
    """Ties between equally accurate thresholds go to the one flagging the fewest, whichever way the
    score points: knowledge precision (flag below) and one minus it (flag at or above) decide alike."""
    import numpy as np

    from utils.datasets.faithdial.baselines import best_threshold

    rng = np.random.default_rng(3)
    for _ in range(200):
        precision = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=12)
        labels = rng.integers(0, 2, size=12)
        below = precision < best_threshold(precision, labels, flag_below=True)
        score = 1 - precision
        at_or_above = score >= best_threshold(score, labels, flag_below=False)
        assert (below == at_or_above).all()
