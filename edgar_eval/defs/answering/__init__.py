"""The answering domain: the generator's answers, the offline readers, the six arms and the regression gate."""
