"""Download EDGAR primary documents into a cache folder that is itself a corpus folder.

SEC fair access asks for a User-Agent naming a contact and at most ten requests a second; both
are enforced here rather than left to the caller. Every document is pinned by accession number
and sha256, so a filing that changes upstream is reported instead of silently replacing the
bytes an evaluation was run on.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Callable, Iterable, Sequence, cast

import httpx

from edgar_eval.adapters.files import replace_file
from edgar_eval.adapters.http_retry import RateLimiter, RetryPolicy, retry_after_seconds
from edgar_eval.corpus.fiscal import fiscal_year_of

CONTACT_EMAIL_ENV = "EDGAR_EVAL_CONTACT_EMAIL"
SEC_MAX_REQUESTS_PER_SECOND = 10.0
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
DOCUMENT_MEDIA_TYPES = ("text/html", "application/xhtml+xml")
MANIFEST_COLUMNS = ("ticker", "cik", "company", "form", "filed", "path", "bytes", "sha256")
PINS_FILE = "pins.json"
MANIFEST_FILE = "manifest.csv"

_EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
_CIK = re.compile(r"^(?:CIK)?0*(\d{1,10})$", re.IGNORECASE)
_TICKER = re.compile(r"^[A-Z0-9][A-Z0-9-]{0,9}$")
_CLOSING_HTML = re.compile(rb"</html\s*>", re.IGNORECASE)
_UNSAFE_LABEL = re.compile(r"[^a-z0-9.-]+")
_INCOMPLETE_BODY = ("complete message body", "incomplete")


class EdgarError(RuntimeError):
    """A request or a filing that could not be fetched; `kind` names the failure for reports."""

    kind = "edgar"


class UnknownTicker(EdgarError):
    kind = "unknown_ticker"


class BadResponse(EdgarError):
    kind = "bad_response"


class HttpStatusError(EdgarError):
    kind = "http"


class RetriesExhausted(EdgarError):
    kind = "retries_exhausted"


class WrongContentType(EdgarError):
    kind = "content_type"


class TruncatedDocument(EdgarError):
    kind = "truncated"


class PinMismatch(EdgarError):
    """EDGAR now serves different bytes for a pinned accession; the cached file is kept as it was."""

    kind = "pin_mismatch"

    def __init__(self, accession: str, pinned_sha256: str, served_sha256: str, path: str) -> None:
        super().__init__(
            f"accession {accession}: upstream bytes changed since pinned (pinned sha256 {pinned_sha256}, "
            f"now served sha256 {served_sha256}); {path} was left untouched"
        )
        self.accession = accession
        self.pinned_sha256 = pinned_sha256
        self.served_sha256 = served_sha256


def contact_email_or_refuse(contact_email: str | None) -> str:
    """SEC blocks anonymous clients, so no request is sent until a contact email is known."""
    email = (contact_email if contact_email is not None else os.environ.get(CONTACT_EMAIL_ENV, "")).strip()
    if not _EMAIL.match(email):
        shown = repr(email) if email else "none given"
        raise ValueError(
            f"SEC fair access requires a contact email in the User-Agent ({shown} is not a plausible email); "
            f"pass contact_email or set {CONTACT_EMAIL_ENV}"
        )
    return email


@dataclass(frozen=True)
class EdgarEndpoints:
    www: str = "https://www.sec.gov"
    data: str = "https://data.sec.gov"

    def company_tickers(self) -> str:
        return f"{self.www.rstrip('/')}/files/company_tickers.json"

    def submissions(self, cik: str) -> str:
        return f"{self.data.rstrip('/')}/submissions/CIK{cik}.json"

    def submissions_page(self, name: str) -> str:
        return f"{self.data.rstrip('/')}/submissions/{name}"

    def document(self, cik: str, accession: str, primary_document: str) -> str:
        return f"{self.www.rstrip('/')}/Archives/edgar/data/{int(cik)}/{accession.replace('-', '')}/{primary_document}"


@dataclass(frozen=True)
class EdgarFiling:
    cik: str
    company: str
    ticker: str
    form: str
    accession: str
    filed: str
    report_date: str
    primary_document: str
    fiscal_year: int | None

    @property
    def folder(self) -> str:
        return _UNSAFE_LABEL.sub("-", (self.ticker or self.cik).lower()).strip("-") or self.cik


@dataclass(frozen=True)
class CachedFiling:
    filing: EdgarFiling
    path: str
    bytes: int
    sha256: str
    downloaded: bool


@dataclass(frozen=True)
class FetchFailure:
    subject: str
    kind: str
    reason: str
    accession: str | None = None


@dataclass
class FetchResult:
    cache_dir: Path
    filings: list[CachedFiling] = field(default_factory=list)
    failures: list[FetchFailure] = field(default_factory=list)

    @property
    def downloaded(self) -> list[CachedFiling]:
        return [f for f in self.filings if f.downloaded]

    @property
    def reused(self) -> list[CachedFiling]:
        return [f for f in self.filings if not f.downloaded]

    @property
    def ok(self) -> bool:
        return not self.failures


def normalise_form(form: str) -> str:
    return " ".join(form.split()).upper()


def form_slug(form: str) -> str:
    """'DEF 14A' -> 'def14a', '10-K' -> '10k': the file-name prefix the corpus folders use."""
    return re.sub(r"[^a-z0-9]", "", form.lower())


def parse_subject(subject: str) -> tuple[str | None, str | None]:
    """A CIK (digits, optionally 'CIK'-prefixed) -> (10-digit cik, None); a ticker -> (None, 'BRK-B')."""
    text = subject.strip()
    match = _CIK.match(text)
    if match:
        return match.group(1).zfill(10), None
    ticker = text.upper().replace(".", "-")
    if not _TICKER.match(ticker):
        raise UnknownTicker(f"{subject!r} is neither a CIK nor a ticker")
    return None, ticker


def _fiscal_year_end(submissions: dict) -> tuple[int, int]:
    text = str(submissions.get("fiscalYearEnd") or "")
    if len(text) == 4 and text.isdigit() and 1 <= int(text[:2]) <= 12 and 1 <= int(text[2:]) <= 31:
        return int(text[:2]), int(text[2:])
    return 12, 31


def _fiscal_year(report_date: str, filed: str, fiscal_year_end: tuple[int, int]) -> int | None:
    """Fiscal year of the period reported on; filings without one (proxies) count by filing date."""
    for text in (report_date, filed):
        try:
            return fiscal_year_of(date.fromisoformat(text), fiscal_year_end)
        except (TypeError, ValueError):
            continue
    return None


def select_filings(
    submissions: dict, table: dict, forms: Iterable[str], years: Iterable[int] | None, ticker: str | None = None
) -> list[EdgarFiling]:
    """Filings of `table` (EDGAR's parallel arrays) with one of `forms`, in one of `years` when given."""
    cik = str(submissions.get("cik", "")).zfill(10)
    company = str(submissions.get("name", ""))
    label = ticker or next(iter(submissions.get("tickers") or []), "") or cik
    wanted_forms = {normalise_form(f) for f in forms}
    wanted_years = None if years is None else set(years)
    fye = _fiscal_year_end(submissions)
    try:
        accessions = table["accessionNumber"]
        columns = {key: table[key] for key in ("filingDate", "form", "primaryDocument")}
    except (KeyError, TypeError) as exc:
        raise BadResponse(f"submissions for CIK {cik} lack the column {exc}") from exc
    report_dates = table.get("reportDate") or [""] * len(accessions)
    if any(len(column) != len(accessions) for column in [*columns.values(), report_dates]):
        raise BadResponse(f"submissions for CIK {cik} have filing columns of different lengths")
    selected = []
    for i, accession in enumerate(accessions):
        form = normalise_form(str(columns["form"][i]))
        if form not in wanted_forms or not columns["primaryDocument"][i]:
            continue
        filed = str(columns["filingDate"][i])
        report_date = str(report_dates[i] or "")
        fiscal_year = _fiscal_year(report_date, filed, fye)
        if wanted_years is not None and fiscal_year not in wanted_years:
            continue
        selected.append(
            EdgarFiling(
                cik=cik,
                company=company,
                ticker=label.lower(),
                form=form,
                accession=str(accession),
                filed=filed,
                report_date=report_date,
                primary_document=str(columns["primaryDocument"][i]),
                fiscal_year=fiscal_year,
            )
        )
    return selected


def _older_pages(submissions: dict, years: Iterable[int] | None) -> list[str]:
    """Older submission pages that may hold filings for `years`; a filing for year Y is filed in Y or Y+1."""
    if years is None:
        return []
    wanted = set(years)
    names = []
    for page in (submissions.get("filings") or {}).get("files") or []:
        try:
            name, first, last = str(page["name"]), int(page["filingFrom"][:4]), int(page["filingTo"][:4])
        except (KeyError, TypeError, ValueError):
            continue
        if any(first <= year + 1 and last >= year for year in wanted):
            names.append(name)
    return names


def _is_incomplete_body(exc: httpx.TransportError) -> bool:
    return isinstance(exc, httpx.RemoteProtocolError) and any(s in str(exc) for s in _INCOMPLETE_BODY)


class EdgarClient:
    """EDGAR over HTTP, within SEC fair-access rules: declared User-Agent, rate limit, bounded retries."""

    def __init__(
        self,
        contact_email: str | None = None,
        *,
        endpoints: EdgarEndpoints = EdgarEndpoints(),
        retry: RetryPolicy = RetryPolicy(),
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        requests_per_second: float = SEC_MAX_REQUESTS_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.contact_email = contact_email_or_refuse(contact_email)
        if requests_per_second > SEC_MAX_REQUESTS_PER_SECOND:
            raise ValueError(
                f"SEC fair access allows at most {SEC_MAX_REQUESTS_PER_SECOND:g} requests per second, "
                f"not {requests_per_second:g}"
            )
        if retry.attempts < 1:
            raise ValueError("retry.attempts must be at least 1")
        self.endpoints = endpoints
        self.retry = retry
        self.user_agent = f"edgar-eval {self.contact_email}"
        self._sleep = sleep
        self._limiter = RateLimiter(requests_per_second, clock=clock, sleep=sleep)
        self._http = httpx.Client(
            headers={"User-Agent": self.user_agent}, timeout=timeout, follow_redirects=True, transport=transport
        )
        self._tickers: dict[str, str] | None = None

    def __enter__(self) -> EdgarClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def get(self, url: str) -> httpx.Response:
        """A complete 2xx response, after waiting for the rate limiter and retrying what may pass."""
        problem = ""
        truncated = False
        for attempt in range(1, self.retry.attempts + 1):
            self._limiter.wait()
            delay = self.retry.backoff(attempt)
            try:
                response = self._http.get(url)
            except httpx.TransportError as exc:
                truncated = _is_incomplete_body(exc)
                problem = f"{type(exc).__name__}: {exc}"
            else:
                if response.status_code == 429 or response.status_code >= 500:
                    truncated = False
                    problem = f"HTTP {response.status_code} {response.reason_phrase}"
                    retry_after = retry_after_seconds(response.headers.get("Retry-After"))
                    if retry_after is not None:
                        delay = min(retry_after, self.retry.max_retry_after_s)
                elif response.status_code >= 400:
                    hint = " (SEC refuses undeclared or too-fast clients)" if response.status_code == 403 else ""
                    raise HttpStatusError(f"HTTP {response.status_code} {response.reason_phrase} from {url}{hint}")
                else:
                    declared = response.headers.get("Content-Length", "")
                    if declared.isdigit() and response.num_bytes_downloaded < int(declared):
                        truncated = True
                        problem = f"received {response.num_bytes_downloaded} of {declared} bytes"
                    else:
                        return response
            if attempt < self.retry.attempts:
                self._sleep(delay)
        if truncated:
            raise TruncatedDocument(
                f"truncated: {url} ended before its Content-Length ({problem}); "
                f"gave up after {self.retry.attempts} attempts"
            )
        raise RetriesExhausted(f"gave up on {url} after {self.retry.attempts} attempts: {problem}")

    def get_json(self, url: str) -> dict:
        response = self.get(url)
        try:
            payload = response.json()
        except ValueError as exc:
            raise BadResponse(f"{url} did not return JSON: {exc}") from exc
        if not isinstance(payload, dict):
            raise BadResponse(f"{url} returned JSON {type(payload).__name__}, expected an object")
        return payload

    def company_tickers(self) -> dict[str, str]:
        """Ticker (upper case) -> 10-digit CIK, read once per client."""
        if self._tickers is None:
            payload = self.get_json(self.endpoints.company_tickers())
            tickers = {}
            for entry in payload.values():
                try:
                    tickers.setdefault(str(entry["ticker"]).upper(), str(int(entry["cik_str"])).zfill(10))
                except (KeyError, TypeError, ValueError) as exc:
                    raise BadResponse(f"company_tickers.json entry lacks ticker or cik_str: {entry!r}") from exc
            self._tickers = tickers
        return self._tickers

    def resolve(self, subject: str) -> tuple[str, str | None]:
        """(10-digit CIK, ticker or None) for a CIK or a ticker."""
        cik, ticker = parse_subject(subject)
        if cik is not None:
            return cik, None
        resolved = self.company_tickers().get(cast(str, ticker))  # parse_subject gives a cik or a ticker
        if resolved is None:
            raise UnknownTicker(f"ticker {ticker} is not in {self.endpoints.company_tickers()}")
        return resolved, ticker

    def submissions(self, cik: str) -> dict:
        return self.get_json(self.endpoints.submissions(cik))

    def find_filings(
        self, cik: str, forms: Sequence[str], years: Iterable[int] | None, ticker: str | None = None
    ) -> list[EdgarFiling]:
        """The company's filings of `forms` for fiscal `years` (all recent ones when None), oldest first."""
        years = None if years is None else list(years)
        submissions = self.submissions(cik)
        recent = (submissions.get("filings") or {}).get("recent")
        if not isinstance(recent, dict):
            raise BadResponse(f"submissions for CIK {cik} have no filings.recent")
        found = {f.accession: f for f in select_filings(submissions, recent, forms, years, ticker)}
        for name in _older_pages(submissions, years):
            page = self.get_json(self.endpoints.submissions_page(name))
            for filing in select_filings(submissions, page, forms, years, ticker):
                found.setdefault(filing.accession, filing)
        return sorted(found.values(), key=lambda f: (f.filed, f.accession))

    def document(self, filing: EdgarFiling) -> bytes:
        """The primary document's bytes, refused when not served as (X)HTML or cut short."""
        url = self.endpoints.document(filing.cik, filing.accession, filing.primary_document)
        response = self.get(url)
        media_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if media_type not in DOCUMENT_MEDIA_TYPES:
            raise WrongContentType(
                f"{url} was served as {media_type or 'no content type'}, expected {' or '.join(DOCUMENT_MEDIA_TYPES)}"
            )
        data = response.content
        if not _CLOSING_HTML.search(data):
            raise TruncatedDocument(f"truncated: {url} has no closing </html> ({len(data)} bytes received)")
        return data


class FilingCache:
    """The cache folder: documents under <ticker>/<form>_<filed>.htm, pins.json and manifest.csv."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        self.pins = self._read_pins()

    def _read_pins(self) -> dict[str, dict]:
        source = self.root / PINS_FILE
        if not source.is_file():
            return {}
        try:
            pins = json.loads(source.read_text())
        except ValueError as exc:
            raise ValueError(f"{source} is not valid JSON ({exc}); restore it rather than re-pin blindly") from exc
        if not isinstance(pins, dict):
            raise ValueError(f"{source} should map accession numbers to pins")
        return pins

    def path_for(self, filing: EdgarFiling, taken: set[str]) -> str:
        pin = self.pins.get(filing.accession)
        if pin:
            return pin["path"]
        plain = f"{filing.folder}/{form_slug(filing.form)}_{filing.filed}.htm"
        if plain not in taken:
            return plain
        return f"{filing.folder}/{form_slug(filing.form)}_{filing.filed}_{filing.accession.replace('-', '')}.htm"

    def intact(self, accession: str) -> bool:
        """The cached file exists and still hashes to its pin."""
        pin = self.pins.get(accession)
        if not pin:
            return False
        target = self.root / pin["path"]
        return target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == pin["sha256"]

    def cached(self, filing: EdgarFiling) -> CachedFiling:
        pin = self.pins[filing.accession]
        return CachedFiling(filing, pin["path"], int(pin["bytes"]), pin["sha256"], downloaded=False)

    def store(self, filing: EdgarFiling, relative: str, data: bytes) -> CachedFiling:
        """Write and pin new bytes; bytes that contradict an existing pin are refused, the old file kept."""
        sha256 = hashlib.sha256(data).hexdigest()
        pin = self.pins.get(filing.accession)
        if pin and pin["sha256"] != sha256:
            raise PinMismatch(filing.accession, pin["sha256"], sha256, pin["path"])
        replace_file(self.root / relative, data)
        self.pins[filing.accession] = {
            "cik": filing.cik,
            "company": filing.company,
            "ticker": filing.ticker,
            "form": filing.form,
            "filed": filing.filed,
            "report_date": filing.report_date,
            "primary_document": filing.primary_document,
            "path": relative,
            "bytes": len(data),
            "sha256": sha256,
        }
        return CachedFiling(filing, relative, len(data), sha256, downloaded=True)

    def save(self) -> None:
        """Pins and manifest, both sorted, so the same cache always writes the same bytes."""
        self.root.mkdir(parents=True, exist_ok=True)
        replace_file(self.root / PINS_FILE, (json.dumps(self.pins, indent=2, sort_keys=True) + "\n").encode())
        rows = sorted(
            (pin for pin in self.pins.values() if (self.root / pin["path"]).is_file()),
            key=lambda pin: (pin["ticker"], pin["filed"], pin["path"]),
        )
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(MANIFEST_COLUMNS)
        writer.writerows([pin[column] for column in MANIFEST_COLUMNS] for pin in rows)
        replace_file(self.root / MANIFEST_FILE, buffer.getvalue().encode())


def fetch_into_cache(
    client: EdgarClient,
    cache: FilingCache,
    subjects: Sequence[str],
    forms: Sequence[str],
    years: Iterable[int] | None,
    recheck: bool = False,
) -> FetchResult:
    """Download what the cache lacks; each company and each filing fails on its own."""
    result = FetchResult(cache.root)
    years = None if years is None else sorted(set(years))
    seen_ciks: set[str] = set()
    taken = {pin["path"] for pin in cache.pins.values()}
    try:
        for subject in subjects:
            try:
                cik, ticker = client.resolve(subject)
                if cik in seen_ciks:
                    continue
                seen_ciks.add(cik)
                filings = client.find_filings(cik, forms, years, ticker)
            except EdgarError as exc:
                result.failures.append(FetchFailure(subject, exc.kind, str(exc)))
                continue
            for filing in filings:
                relative = cache.path_for(filing, taken)
                taken.add(relative)
                if cache.intact(filing.accession) and not recheck:
                    result.filings.append(cache.cached(filing))
                    continue
                try:
                    result.filings.append(cache.store(filing, relative, client.document(filing)))
                except EdgarError as exc:
                    result.failures.append(FetchFailure(subject, exc.kind, str(exc), filing.accession))
    finally:
        cache.save()
    return result


def fetch_filings(
    ciks_or_tickers: Sequence[str],
    forms: Sequence[str],
    years: Iterable[int] | None,
    cache_dir: str | os.PathLike,
    contact_email: str | None = None,
    *,
    recheck: bool = False,
    endpoints: EdgarEndpoints = EdgarEndpoints(),
    retry: RetryPolicy = RetryPolicy(),
    timeout: httpx.Timeout = DEFAULT_TIMEOUT,
    requests_per_second: float = SEC_MAX_REQUESTS_PER_SECOND,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> FetchResult:
    """Fetch `forms` of the given companies for fiscal `years` (None: all recent) into `cache_dir`.

    `recheck` downloads pinned filings again to prove EDGAR still serves the pinned bytes.
    """
    with EdgarClient(
        contact_email,
        endpoints=endpoints,
        retry=retry,
        timeout=timeout,
        requests_per_second=requests_per_second,
        clock=clock,
        sleep=sleep,
    ) as client:
        return fetch_into_cache(client, FilingCache(cache_dir), ciks_or_tickers, forms, years, recheck=recheck)
