"""Statistics: pure, numpy/scipy/statsmodels only, no I/O."""
