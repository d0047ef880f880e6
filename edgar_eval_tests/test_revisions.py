"""Amendments: a 10-K/A is read as the 10-K it amends, flagged as an amendment, and supersedes the original of the
same company, form and period end, which leaves search."""

import pandas as pd
import pytest

from edgar_eval.corpus.parse import parse_filing
from edgar_eval.corpus.revisions import current_only, superseded_by
from edgar_eval.domain.filings import FilingError
from edgar_eval_tests.conftest import DEI_HIDDEN, dei_cover, xhtml


def _parsed(form: str, flag: str | None = None):
    hidden = DEI_HIDDEN + (
        f'<ix:nonNumeric name="dei:AmendmentFlag" contextRef="FY24">{flag}</ix:nonNumeric>' if flag else ""
    )
    return parse_filing(xhtml(dei_cover(form) + "<p>Revenue was strong.</p>", hidden=hidden)).meta


def test_an_amendment_is_read_as_the_form_it_amends():
    assert (_parsed("10-K").form, _parsed("10-K").amendment) == ("10-K", False)
    assert (_parsed("10-K/A").form, _parsed("10-K/A").amendment) == ("10-K", True)
    assert (_parsed("10-Q / A").form, _parsed("10-Q / A").amendment) == ("10-Q", True)
    assert _parsed("10-K", flag="true").amendment and not _parsed("10-K", flag="false").amendment
    with pytest.raises(FilingError, match="unsupported form '20-F/A'"):
        _parsed("20-F/A")


def _filings(*rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["filing_id", "cik", "form", "period_end", "amendment", "filed"])


def test_the_latest_amendment_supersedes_the_original_and_earlier_amendments():
    filings = _filings(
        ("acme-10k", "1", "10-K", "2024-12-31", False, "2025-02-01"),
        ("acme-10ka1", "1", "10-K", "2024-12-31", True, "2025-03-01"),
        ("acme-10ka2", "1", "10-K", "2024-12-31", True, "2025-04-01"),
        ("acme-10q", "1", "10-Q", "2024-09-30", False, "2024-11-01"),  # another period: untouched
        ("beta-10k", "2", "10-K", "2024-12-31", False, "2025-02-01"),  # another company: untouched
    )
    assert superseded_by(filings) == {"acme-10k": "acme-10ka2", "acme-10ka1": "acme-10ka2"}
    chunks = pd.DataFrame({"filing_id": ["acme-10k", "acme-10ka2", "beta-10k"], "chunk_id": ["a:1", "b:1", "c:1"]})
    assert list(current_only(chunks, superseded_by(filings)).chunk_id) == ["b:1", "c:1"]


def test_no_amendment_supersedes_nothing():
    plain = _filings(("a", "1", "10-K", "2024-12-31", False, None), ("b", "1", "10-K", "2024-12-31", False, None))
    assert superseded_by(plain) == {} and superseded_by(plain.drop(columns="amendment")) == {}
