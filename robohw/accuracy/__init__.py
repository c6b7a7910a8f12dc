"""Accuracy of the bit-exact models against float64: sampled domains, errors, stated bounds."""
