"""Dataset statistics, one module per dataset."""
