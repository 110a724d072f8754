"""Baselines, one module per dataset."""
