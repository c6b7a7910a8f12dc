"""What the families' commands and reports share: CSV tables in and out
(:mod:`.csv_table`), outputs written atomically (:mod:`.atomic`), progress lines on long runs
(:mod:`.progress`), joint values checked against a number format (:mod:`.joints`), and
matplotlib on a file-only backend with the report's error histograms (:mod:`.plots`), Pareto
fronts and the LUT-equivalents they weigh (:mod:`.pareto`)."""
