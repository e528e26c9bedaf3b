"""Layer 5, the gate: regression baselines and the paired randomization test that decides whether a
drop is real."""
