"""Tests of this dataset: its parser, renderer, statistics and baselines (collected by pytest with the suite)."""
