"""Design-space sweeps: every design at every width, fold and device asked for, measured once
(accuracy in the bit-exact model, cycles in simulation, resources and clock after synthesis),
cached, tabled in ``results.csv`` and reduced to Pareto fronts; on local processes or a
``dask.distributed`` cluster (``robohw sweep``)."""
