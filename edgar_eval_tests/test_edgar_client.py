"""The EDGAR download source against a real HTTP server on loopback, serving EDGAR-shaped replies.

Document bytes are the generated demo corpus, so a successful fetch must reproduce the demo
corpus folder exactly. Time is faked: backoff and rate limiting sleep on a fake clock.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from edgar_eval.adapters.edgar_client import (
    CONTACT_EMAIL_ENV,
    EdgarClient,
    EdgarEndpoints,
    FilingCache,
    HttpStatusError,
    PinMismatch,
    RetriesExhausted,
    fetch_filings,
)
from edgar_eval.adapters.http_retry import RateLimiter, RetryPolicy
from edgar_eval.adapters.local_corpus import list_filings, read_manifest

pytestmark = [pytest.mark.integration]

CONTACT = "research-desk@edgar-eval.example.org"
ALL_FORMS = ["10-K", "10-Q", "8-K", "DEF 14A"]

COMPANIES = {
    "hvrn": ("0009000001", "Halvern Robotics, Inc.", "1231"),
    "crvd": ("0009000002", "Corvida Software Corp.", "0131"),
}

# accession, form, filed, reportDate, primaryDocument; the demo corpus holds each document
# at <key>/<form slug>_<filed>.htm, which is where the cache must put it too.
FILINGS = {
    "hvrn": [
        ("0009000001-24-000004", "10-K", "2024-02-21", "2023-12-31", "hvrn-20231231.htm"),
        ("0009000001-24-000011", "8-K", "2024-05-14", "2024-05-14", "hvrn-8k_20240514.htm"),
        ("0009000001-24-000019", "10-Q", "2024-11-05", "2024-09-30", "hvrn-20240930.htm"),
        ("0009000001-25-000003", "10-K", "2025-02-20", "2024-12-31", "hvrn-20241231.htm"),
        ("0009000001-25-000008", "DEF 14A", "2025-04-06", "", "hvrn2025_def14a.htm"),
    ],
    "crvd": [
        ("0009000002-23-000005", "10-K", "2023-03-24", "2023-01-31", "crvd-20230131.htm"),
        ("0009000002-23-000012", "8-K", "2023-06-13", "2023-06-13", "crvd-8k_20230613.htm"),
        ("0009000002-23-000020", "10-Q", "2023-12-06", "2023-10-31", "crvd-20231031.htm"),
        ("0009000002-24-000004", "10-K", "2024-03-22", "2024-01-31", "crvd-20240131.htm"),
        ("0009000002-24-000009", "DEF 14A", "2024-05-06", "", "crvd2024_def14a.htm"),
    ],
}


def demo_path(key: str, form: str, filed: str) -> str:
    return f"{key}/{form.lower().replace(' ', '').replace('-', '')}_{filed}.htm"


def document_url_path(key: str, accession: str) -> str:
    row = next(r for r in FILINGS[key] if r[0] == accession)
    return f"/Archives/edgar/data/{int(COMPANIES[key][0])}/{accession.replace('-', '')}/{row[4]}"


def submissions_json(key: str, rows=None, older_pages=()) -> dict:
    """The shape of data.sec.gov/submissions/CIK##########.json, newest filing first as EDGAR lists them."""
    cik, name, fiscal_year_end = COMPANIES[key]
    return {
        "cik": str(int(cik)),
        "entityType": "operating",
        "sic": "3569",
        "name": name,
        "tickers": [key.upper()],
        "exchanges": ["Nasdaq"],
        "fiscalYearEnd": fiscal_year_end,
        "filings": {"recent": filings_table(rows if rows is not None else FILINGS[key]), "files": list(older_pages)},
    }


def filings_table(rows) -> dict:
    rows = list(reversed(rows))
    return {
        "accessionNumber": [r[0] for r in rows],
        "filingDate": [r[2] for r in rows],
        "reportDate": [r[3] for r in rows],
        "acceptanceDateTime": [f"{r[2]}T16:05:12.000Z" for r in rows],
        "act": ["34" for _ in rows],
        "form": [r[1] for r in rows],
        "fileNumber": ["001-99999" for _ in rows],
        "filmNumber": ["24123456" for _ in rows],
        "items": ["2.02,9.01" if r[1] == "8-K" else "" for r in rows],
        "size": [100000 for _ in rows],
        "isXBRL": [1 for _ in rows],
        "isInlineXBRL": [1 for _ in rows],
        "primaryDocument": [r[4] for r in rows],
        "primaryDocDescription": [r[1] for r in rows],
    }


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html"
    headers: dict[str, str] = field(default_factory=dict)
    declared_length: int | None = None
    stall_s: float = 0.0


def json_reply(payload: dict) -> Reply:
    return Reply(body=json.dumps(payload).encode(), content_type="application/json")


class FakeEdgar:
    """A loopback HTTP server: each path answers its scripted replies in turn, then repeats the last."""

    def __init__(self) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.release = threading.Event()
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.endpoints = EdgarEndpoints(www=self.base_url, data=self.base_url)

    def serve(self, path: str, *replies: Reply) -> None:
        self.routes[path] = list(replies)

    def hits(self, path: str) -> int:
        return sum(1 for seen, _ in self.requests if seen == path)

    def archive_hits(self) -> int:
        return sum(1 for seen, _ in self.requests if seen.startswith("/Archives/"))

    def take(self, path: str, headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append((path, headers))
            replies = self.routes.get(path)
            if not replies:
                return Reply(404, b"<html><body>Not Found</body></html>")
            return replies.pop(0) if len(replies) > 1 else replies[0]

    def _handler(self):
        edgar = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                reply = edgar.take(self.path, {k.lower(): v for k, v in self.headers.items()})
                if reply.stall_s:
                    edgar.release.wait(reply.stall_s)
                length = reply.declared_length if reply.declared_length is not None else len(reply.body)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(length))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args) -> None:
                pass

        return Handler

    def __enter__(self) -> FakeEdgar:
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def edgar(demo_files):
    with FakeEdgar() as server:
        server.serve(
            "/files/company_tickers.json",
            json_reply(
                {
                    "0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
                    "1": {"cik_str": 9000001, "ticker": "HVRN", "title": "Halvern Robotics, Inc."},
                    "2": {"cik_str": 9000002, "ticker": "CRVD", "title": "Corvida Software Corp."},
                }
            ),
        )
        for key, rows in FILINGS.items():
            server.serve(f"/submissions/CIK{COMPANIES[key][0]}.json", json_reply(submissions_json(key)))
            for accession, form, filed, _, _ in rows:
                server.serve(
                    document_url_path(key, accession),
                    Reply(body=demo_files[demo_path(key, form, filed)], content_type="text/html; charset=utf-8"),
                )
        yield server


@pytest.fixture
def fake_time():
    return FakeTime()


@pytest.fixture
def fetch(edgar, fake_time, tmp_path):
    def run(subjects, forms=ALL_FORMS, years=None, **options):
        options.setdefault("contact_email", CONTACT)
        return fetch_filings(
            subjects,
            forms,
            years,
            options.pop("cache_dir", tmp_path),
            endpoints=edgar.endpoints,
            clock=fake_time.clock,
            sleep=fake_time.sleep,
            **options,
        )

    return run


def client_for(edgar: FakeEdgar, fake_time: FakeTime, **options) -> EdgarClient:
    options.setdefault("contact_email", CONTACT)
    return EdgarClient(endpoints=edgar.endpoints, clock=fake_time.clock, sleep=fake_time.sleep, **options)


def only_failure(result):
    assert len(result.failures) == 1, result.failures
    return result.failures[0]


def test_fetch_reproduces_the_demo_corpus_with_manifest_and_pins(fetch, tmp_path, demo_files):
    result = fetch(["9000001"])

    assert result.ok, result.failures
    assert [f.path for f in result.downloaded] == [demo_path("hvrn", r[1], r[2]) for r in FILINGS["hvrn"]]
    for cached in result.filings:
        assert (tmp_path / cached.path).read_bytes() == demo_files[cached.path]
        assert cached.sha256 == hashlib.sha256(demo_files[cached.path]).hexdigest()
    demo_manifest = demo_files["manifest.csv"].decode().splitlines()
    expected = [demo_manifest[0]] + [line for line in demo_manifest[1:] if line.startswith("hvrn,")]
    assert (tmp_path / "manifest.csv").read_text().splitlines() == expected
    assert sorted(list_filings(tmp_path).values()) == sorted(read_manifest(tmp_path))

    pins_text = (tmp_path / "pins.json").read_text()
    pins = json.loads(pins_text)
    assert list(pins) == sorted(r[0] for r in FILINGS["hvrn"])
    assert pins_text == json.dumps(pins, indent=2, sort_keys=True) + "\n"
    annual = pins["0009000001-25-000003"]
    assert annual["path"] == "hvrn/10k_2025-02-20.htm"
    assert annual["sha256"] == hashlib.sha256(demo_files["hvrn/10k_2025-02-20.htm"]).hexdigest()
    assert annual["bytes"] == len(demo_files["hvrn/10k_2025-02-20.htm"])


def test_a_second_run_downloads_nothing_and_rewrites_nothing(fetch, edgar, tmp_path):
    fetch(["9000001"])
    pins_before = (tmp_path / "pins.json").read_bytes()
    manifest_before = (tmp_path / "manifest.csv").read_bytes()
    archive_hits_before = edgar.archive_hits()

    again = fetch(["9000001"])

    assert again.ok and again.downloaded == []
    assert len(again.reused) == 5
    assert edgar.archive_hits() == archive_hits_before
    assert (tmp_path / "pins.json").read_bytes() == pins_before
    assert (tmp_path / "manifest.csv").read_bytes() == manifest_before


def test_forms_and_fiscal_years_pick_the_filings(fetch):
    result = fetch(["9000002"], forms=["10-k", "10-Q"], years=[2024])

    assert result.ok, result.failures
    assert [(f.filing.form, f.filing.fiscal_year, f.path) for f in result.filings] == [
        ("10-Q", 2024, "crvd/10q_2023-12-06.htm"),
        ("10-K", 2024, "crvd/10k_2024-03-22.htm"),
    ]


def test_tickers_resolve_through_company_tickers_and_unknown_ones_fail_alone(fetch, edgar):
    result = fetch(["HVRN", "crvd", "NOPE", "CIK0009000001"], forms=["10-K"], years=[2024])

    assert [f.path for f in result.filings] == ["hvrn/10k_2025-02-20.htm", "crvd/10k_2024-03-22.htm"]
    assert [f.filing.cik for f in result.filings] == ["0009000001", "0009000002"]
    failure = only_failure(result)
    assert (failure.subject, failure.kind) == ("NOPE", "unknown_ticker")
    assert "NOPE" in failure.reason
    assert edgar.hits("/files/company_tickers.json") == 1
    assert edgar.hits("/submissions/CIK0009000001.json") == 1


def test_every_request_declares_the_contact_email(fetch, edgar):
    fetch(["HVRN"], forms=["8-K"])

    assert len(edgar.requests) == 3
    for path, headers in edgar.requests:
        assert CONTACT in headers["user-agent"], path


@pytest.mark.parametrize("email", [None, "", "   ", "nobody", "me@localhost", "two words@example.org"])
def test_a_missing_or_implausible_contact_email_is_refused(email, fetch, edgar, monkeypatch):
    monkeypatch.delenv(CONTACT_EMAIL_ENV, raising=False)

    with pytest.raises(ValueError, match="contact email"):
        fetch(["HVRN"], contact_email=email)
    assert edgar.requests == []


def test_the_contact_email_can_come_from_the_environment(edgar, fake_time, monkeypatch):
    monkeypatch.setenv(CONTACT_EMAIL_ENV, "ops@edgar-eval.example.org")

    with client_for(edgar, fake_time, contact_email=None) as client:
        client.get(f"{edgar.base_url}/files/company_tickers.json")

    assert edgar.requests[0][1]["user-agent"] == "edgar-eval ops@edgar-eval.example.org"


def test_more_than_ten_requests_a_second_is_refused():
    with pytest.raises(ValueError, match="at most 10 requests per second"):
        EdgarClient(CONTACT, requests_per_second=20)


def test_a_429_burst_is_waited_out_as_retry_after_asks(fetch, edgar, fake_time, demo_files):
    path = document_url_path("hvrn", "0009000001-24-000011")
    too_many = Reply(429, b"Request Rate Threshold Exceeded", "text/plain", {"Retry-After": "2"})
    edgar.serve(path, too_many, too_many, too_many, Reply(body=demo_files["hvrn/8k_2024-05-14.htm"]))

    result = fetch(["HVRN"], forms=["8-K"])

    assert result.ok, result.failures
    assert edgar.hits(path) == 4
    assert fake_time.sleeps.count(2.0) == 3


def test_retry_after_is_capped(fetch, edgar, fake_time, demo_files):
    path = document_url_path("hvrn", "0009000001-24-000011")
    edgar.serve(
        path,
        Reply(429, b"slow down", "text/plain", {"Retry-After": "3600"}),
        Reply(body=demo_files["hvrn/8k_2024-05-14.htm"]),
    )

    result = fetch(["HVRN"], forms=["8-K"], retry=RetryPolicy(max_retry_after_s=7.0))

    assert result.ok, result.failures
    assert 7.0 in fake_time.sleeps and max(fake_time.sleeps) == 7.0


def test_a_503_is_retried_after_backoff(fetch, edgar, fake_time, demo_files):
    path = document_url_path("hvrn", "0009000001-24-000011")
    edgar.serve(path, Reply(503, b"busy", "text/plain"), Reply(body=demo_files["hvrn/8k_2024-05-14.htm"]))

    result = fetch(["HVRN"], forms=["8-K"])

    assert result.ok, result.failures
    assert edgar.hits(path) == 2
    assert 1.0 in fake_time.sleeps


def test_a_persistent_503_gives_up_on_that_filing_only(fetch, edgar, fake_time, tmp_path):
    path = document_url_path("hvrn", "0009000001-25-000003")
    edgar.serve(path, Reply(503, b"busy", "text/plain"))

    result = fetch(["HVRN"])

    failure = only_failure(result)
    assert (failure.accession, failure.kind) == ("0009000001-25-000003", "retries_exhausted")
    assert "gave up" in failure.reason and "5 attempts" in failure.reason and "503" in failure.reason
    assert edgar.hits(path) == 5
    assert [s for s in fake_time.sleeps if s >= 1.0] == [1.0, 2.0, 4.0, 8.0]
    assert len(result.downloaded) == 4
    assert not (tmp_path / "hvrn/10k_2025-02-20.htm").exists()
    assert "0009000001-25-000003" not in json.loads((tmp_path / "pins.json").read_text())
    assert "hvrn/10k_2025-02-20.htm" not in read_manifest(tmp_path)


def test_a_body_shorter_than_its_content_length_is_truncated(fetch, edgar, tmp_path, demo_files):
    body = demo_files["hvrn/8k_2024-05-14.htm"]
    edgar.serve(document_url_path("hvrn", "0009000001-24-000011"), Reply(body=body[:1000], declared_length=len(body)))

    result = fetch(["HVRN"], forms=["8-K", "DEF 14A"])

    failure = only_failure(result)
    assert (failure.accession, failure.kind) == ("0009000001-24-000011", "truncated")
    assert "truncated" in failure.reason and "Content-Length" in failure.reason
    assert [f.path for f in result.downloaded] == ["hvrn/def14a_2025-04-06.htm"]
    assert not (tmp_path / "hvrn/8k_2024-05-14.htm").exists()


def test_html_without_its_closing_tag_is_truncated(fetch, edgar, demo_files):
    body = demo_files["hvrn/8k_2024-05-14.htm"]
    edgar.serve(document_url_path("hvrn", "0009000001-24-000011"), Reply(body=body[: len(body) // 2]))

    failure = only_failure(fetch(["HVRN"], forms=["8-K"]))

    assert failure.kind == "truncated"
    assert "no closing </html>" in failure.reason


@pytest.mark.parametrize("content_type", ["application/json", "image/png"])
def test_a_primary_document_of_the_wrong_content_type_is_refused(content_type, fetch, edgar, tmp_path):
    edgar.serve(
        document_url_path("hvrn", "0009000001-24-000011"), Reply(body=b'{"error": 1}</html>', content_type=content_type)
    )

    result = fetch(["HVRN"], forms=["8-K", "DEF 14A"])

    failure = only_failure(result)
    assert failure.kind == "content_type"
    assert content_type in failure.reason and "text/html" in failure.reason
    assert len(result.downloaded) == 1
    assert not (tmp_path / "hvrn/8k_2024-05-14.htm").exists()


def test_a_pinned_filing_that_changes_upstream_is_an_error_and_the_old_file_is_kept(fetch, edgar, tmp_path, demo_files):
    fetch(["HVRN"])
    original = demo_files["hvrn/10k_2025-02-20.htm"]
    pins_before = (tmp_path / "pins.json").read_bytes()
    changed = original.replace(b"</body>", b"<p>restated</p></body>")
    edgar.serve(document_url_path("hvrn", "0009000001-25-000003"), Reply(body=changed))

    result = fetch(["HVRN"], recheck=True)

    failure = only_failure(result)
    assert (failure.accession, failure.kind) == ("0009000001-25-000003", "pin_mismatch")
    assert "0009000001-25-000003" in failure.reason
    assert hashlib.sha256(original).hexdigest() in failure.reason
    assert hashlib.sha256(changed).hexdigest() in failure.reason
    assert (tmp_path / "hvrn/10k_2025-02-20.htm").read_bytes() == original
    assert (tmp_path / "pins.json").read_bytes() == pins_before
    assert len(result.downloaded) == 4


def test_a_pinned_filing_lost_locally_is_not_replaced_by_different_bytes(fetch, edgar, tmp_path, demo_files):
    fetch(["HVRN"], forms=["8-K"])
    (tmp_path / "hvrn/8k_2024-05-14.htm").unlink()
    changed = demo_files["hvrn/8k_2024-05-14.htm"].replace(b"</body>", b"<p>amended</p></body>")
    edgar.serve(document_url_path("hvrn", "0009000001-24-000011"), Reply(body=changed))

    assert only_failure(fetch(["HVRN"], forms=["8-K"])).kind == "pin_mismatch"
    assert not (tmp_path / "hvrn/8k_2024-05-14.htm").exists()
    assert "hvrn/8k_2024-05-14.htm" not in read_manifest(tmp_path)


def test_a_pinned_filing_lost_locally_is_restored_when_upstream_is_unchanged(fetch, tmp_path, demo_files):
    fetch(["HVRN"], forms=["8-K"])
    (tmp_path / "hvrn/8k_2024-05-14.htm").write_bytes(b"corrupted")

    result = fetch(["HVRN"], forms=["8-K"])

    assert result.ok and len(result.downloaded) == 1
    assert (tmp_path / "hvrn/8k_2024-05-14.htm").read_bytes() == demo_files["hvrn/8k_2024-05-14.htm"]


def test_the_cache_refuses_bytes_that_contradict_a_pin(fetch, tmp_path):
    first = fetch(["HVRN"], forms=["8-K"]).filings[0]
    cache = FilingCache(tmp_path)

    with pytest.raises(PinMismatch) as raised:
        cache.store(first.filing, first.path, b"<html>other</html>")

    assert raised.value.accession == first.filing.accession
    assert raised.value.pinned_sha256 == first.sha256
    assert raised.value.served_sha256 == hashlib.sha256(b"<html>other</html>").hexdigest()


def test_twenty_five_requests_take_at_least_two_point_four_seconds(edgar, fake_time):
    url = f"{edgar.base_url}/files/company_tickers.json"
    started = []
    with client_for(edgar, fake_time) as client:
        for _ in range(25):
            client.get(url)
            started.append(fake_time.now)

    assert edgar.hits("/files/company_tickers.json") == 25
    assert started[-1] - started[0] >= 2.4 - 1e-9
    assert min(b - a for a, b in zip(started, started[1:])) >= 0.1 - 1e-9


def test_the_rate_limiter_does_not_sleep_when_requests_are_already_slow(fake_time):
    limiter = RateLimiter(10, clock=fake_time.clock, sleep=fake_time.sleep)
    for _ in range(5):
        limiter.wait()
        fake_time.now += 0.25

    assert fake_time.sleeps == []


def test_a_stalled_server_times_out_and_is_given_up(edgar, fake_time):
    edgar.serve("/files/company_tickers.json", Reply(body=b"{}", content_type="application/json", stall_s=5.0))

    with client_for(edgar, fake_time, timeout=httpx.Timeout(0.2), retry=RetryPolicy(attempts=2)) as client:
        with pytest.raises(RetriesExhausted, match="ReadTimeout"):
            client.company_tickers()

    assert edgar.hits("/files/company_tickers.json") == 2


def test_a_404_is_not_retried(edgar, fake_time):
    with client_for(edgar, fake_time) as client:
        with pytest.raises(HttpStatusError, match="HTTP 404"):
            client.get(f"{edgar.base_url}/Archives/edgar/data/1/000000000000000000/missing.htm")

    assert edgar.archive_hits() == 1


def test_older_submission_pages_are_read_only_for_years_they_may_hold(fetch, edgar, demo_files):
    old = ("0009000001-21-000002", "10-K", "2021-02-19", "2020-12-31", "hvrn-20201231.htm")
    page = "CIK0009000001-submissions-001.json"
    edgar.serve(
        "/submissions/CIK0009000001.json",
        json_reply(
            submissions_json(
                "hvrn",
                older_pages=[{"name": page, "filingCount": 1, "filingFrom": "2021-02-19", "filingTo": "2021-02-19"}],
            )
        ),
    )
    edgar.serve(f"/submissions/{page}", json_reply(filings_table([old])))
    edgar.serve(
        f"/Archives/edgar/data/9000001/{old[0].replace('-', '')}/{old[4]}",
        Reply(body=demo_files["hvrn/10k_2024-02-21.htm"]),
    )

    recent_only = fetch(["HVRN"], forms=["10-K"], years=[2024])
    assert edgar.hits(f"/submissions/{page}") == 0
    assert [f.path for f in recent_only.filings] == ["hvrn/10k_2025-02-20.htm"]

    older = fetch(["HVRN"], forms=["10-K"], years=[2020])
    assert edgar.hits(f"/submissions/{page}") == 1
    assert [f.path for f in older.filings] == ["hvrn/10k_2021-02-19.htm"]


def test_two_filings_of_one_form_on_one_day_keep_apart(fetch, edgar, demo_files):
    second = ("0009000001-24-000012", "8-K", "2024-05-14", "2024-05-13", "hvrn-8k_20240514b.htm")
    edgar.serve("/submissions/CIK0009000001.json", json_reply(submissions_json("hvrn", FILINGS["hvrn"] + [second])))
    edgar.serve(
        f"/Archives/edgar/data/9000001/{second[0].replace('-', '')}/{second[4]}",
        Reply(body=demo_files["crvd/8k_2023-06-13.htm"]),
    )

    result = fetch(["HVRN"], forms=["8-K"])

    assert result.ok, result.failures
    assert [f.path for f in result.filings] == ["hvrn/8k_2024-05-14.htm", "hvrn/8k_2024-05-14_000900000124000012.htm"]


def test_a_malformed_submissions_file_fails_that_company_only(fetch, edgar):
    broken = submissions_json("hvrn")
    broken["filings"]["recent"]["form"].pop()
    edgar.serve("/submissions/CIK0009000001.json", json_reply(broken))

    result = fetch(["HVRN", "CRVD"], forms=["10-K"])

    failure = only_failure(result)
    assert (failure.subject, failure.kind) == ("HVRN", "bad_response")
    assert [f.path for f in result.filings] == ["crvd/10k_2023-03-24.htm", "crvd/10k_2024-03-22.htm"]
