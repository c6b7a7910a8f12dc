"""``robohw report``: the summary table, one section per family, the plots."""
