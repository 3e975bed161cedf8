"""Training the detector and the index classifier (needs the ``train`` extra: torch, ultralytics)."""
