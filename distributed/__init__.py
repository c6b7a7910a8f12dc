"""The thesis's distributed Newton-Euler: one computer per link of the Stanford (JPL) arm,
exchanging terms with its neighbours, waiting for them or predicting them from the previous
sample (``../shared/papers/distributed-newton-euler-with-prediction_thesis.txt``)."""
