"""Synthetic filings: the embedded demo corpus (three fictional companies with planted dispersion patterns and their
ground truth) and corpora of any size built from it for the scale bench. Not part of the instrument: no pure module
imports it; the adapters write its files to a corpus folder."""
