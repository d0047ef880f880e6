"""The rerank port's two adapters: the offline lexical and figure-aware reranker, on passages built here, and the
/rerank endpoint client against a real HTTP server on loopback."""

import json

import pytest

from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.rerank_http import (
    HttpReranker,
    RerankHttpError,
    RerankResponseError,
    RerankRetriesExhausted,
    rerank_url,
)
from edgar_eval.answering.rerank import LexicalFigureReranker
from edgar_eval.domain.ports import Reranked
from edgar_eval_tests.loopback import LoopbackServer, json_reply

QUESTION = "What was Apple's capital expenditures for fiscal 2024?"


def test_the_row_that_prints_the_asked_line_item_with_a_figure_comes_first():
    passages = [
        "Capital expenditures are expected to grow as we build data centers.",  # the words, no figure
        "Payments for acquisition of property | (9,447) | (10,959)\nRevenue | 391,035",  # figures, other words
        "Years ended September | 2024 | 2023\nCapital expenditures | (9,447) | (10,959)",  # the row, the year
        "Capital expenditures | (10,959) | (11,085)\nYears ended | 2023 | 2022",  # the row, another year
    ]
    ranked = LexicalFigureReranker().rerank(QUESTION, passages, top_n=4)
    assert [r.index for r in ranked] == [2, 3, 0, 1]
    assert ranked[0].relevance_score == pytest.approx(2.0 + 1.0 + 0.5)
    assert ranked[1].relevance_score == pytest.approx(2.0 + 1.0), "the row without the asked year"


def test_remembered_scores_give_the_same_order_and_are_computed_once(monkeypatch):
    import edgar_eval.answering.rerank as rerank

    passages = ["Capital expenditures | 1,234 in 2024", "no match here", "Capital expenditures were higher"]
    plain = LexicalFigureReranker().rerank(QUESTION, passages, top_n=3)
    calls = []
    scored = rerank.lexical_score
    monkeypatch.setattr(rerank, "lexical_score", lambda *args: calls.append(args) or scored(*args))
    remembering = LexicalFigureReranker(remember_scores=True)
    assert remembering.rerank(QUESTION, passages, 3) == plain
    assert remembering.rerank(QUESTION, list(reversed(passages)), 3)[0].index == 2, "the same passage, now last"
    assert len(calls) == 3, "three passages, each scored once for this question"
    remembering.rerank("What was Apple's revenue for fiscal 2024?", passages[:1], 1)
    assert len(calls) == 4, "another question is another score"
    remembering.close()
    remembering.rerank(QUESTION, passages[:1], 1)
    assert len(calls) == 5, "close() forgets"


def test_ties_keep_the_retriever_order_and_top_n_cuts():
    passages = ["no match here", "nothing either", "Capital expenditures | 1,234 in 2024"]
    ranked = LexicalFigureReranker().rerank(QUESTION, passages, top_n=2)
    assert [r.index for r in ranked] == [2, 0]
    assert LexicalFigureReranker().rerank(QUESTION, passages, top_n=0) == []
    assert LexicalFigureReranker().rerank(QUESTION, passages, top_n=10) == LexicalFigureReranker().rerank(
        QUESTION, passages, top_n=10
    )


def test_the_endpoint_url_is_built_once_whatever_the_user_typed():
    assert rerank_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080/rerank"
    assert rerank_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1/rerank"
    assert rerank_url("http://127.0.0.1:8080/v1/rerank") == "http://127.0.0.1:8080/v1/rerank"
    with pytest.raises(ValueError, match="http"):
        rerank_url("127.0.0.1:8080")


@pytest.fixture
def server():
    scripted: list = []
    lexical = LexicalFigureReranker()

    def respond(path: str, body: dict):
        if scripted:
            return scripted.pop(0)(body)
        ranked = lexical.rerank(body["query"], body["documents"], body["top_n"])
        results = [{"index": r.index, "relevance_score": r.relevance_score} for r in reversed(ranked)]  # any order
        return json_reply({"results": results})

    loopback = LoopbackServer(respond)
    yield loopback, scripted
    loopback.stop()


def test_a_rerank_server_serving_the_lexical_reranker_ranks_as_the_lexical_reranker_does(server):
    server, _ = server
    passages = ["nothing", "Capital expenditures | (9,447) in 2024", "Capital expenditures rose"]
    client = HttpReranker(server.base_url, model="stand-in")
    assert client.rerank(QUESTION, passages, top_n=2) == LexicalFigureReranker().rerank(QUESTION, passages, top_n=2)
    path, headers, body = server.received[0]
    assert path == "/rerank" and body == {"query": QUESTION, "documents": passages, "top_n": 2, "model": "stand-in"}
    assert client.reranker_id == f"rerank-endpoint:stand-in@{server.base_url}/rerank"


def test_a_bare_list_with_scores_is_read_as_text_embeddings_inference_sends_it(server):
    server, scripted = server
    scripted.append(lambda body: json_reply([{"index": 1, "score": 0.2}, {"index": 0, "score": 0.9}]))
    assert HttpReranker(server.base_url).rerank(QUESTION, ["a", "b"], top_n=2) == [
        Reranked(index=0, relevance_score=0.9),
        Reranked(index=1, relevance_score=0.2),
    ]


def test_a_429_is_retried_after_the_server_s_wait_and_a_refusal_is_reported_in_its_words(server):
    server, scripted = server
    waits: list[float] = []
    scripted.append(lambda body: json_reply({"error": "slow down"}, status=429, headers={"Retry-After": "2"}))
    client = HttpReranker(server.base_url, sleep=waits.append)
    assert [r.index for r in client.rerank(QUESTION, ["x", "Capital expenditures | 5 in 2024"], top_n=1)] == [1]
    assert waits == [2.0]
    scripted.append(lambda body: json_reply({"error": {"message": "model not loaded"}}, status=400))
    with pytest.raises(RerankHttpError, match="HTTP 400.*model not loaded"):
        client.rerank(QUESTION, ["x"], top_n=1)
    scripted.extend([lambda body: json_reply({}, status=503)] * 2)
    with pytest.raises(RerankRetriesExhausted, match="after 2 attempts"):
        HttpReranker(server.base_url, retry=RetryPolicy(attempts=2), sleep=waits.append).rerank(QUESTION, ["x"], 1)


@pytest.mark.parametrize(
    "reply, problem",
    [
        ({"results": [{"index": 5, "relevance_score": 1.0}]}, "index 5 for 2 documents"),
        ({"results": [{"index": 0, "relevance_score": 1.0}, {"index": 0, "relevance_score": 0.5}]}, "twice"),
        ({"results": [{"index": 0, "relevance_score": "high"}]}, "score 'high'"),
        ({"data": []}, "no list of results"),
    ],
)
def test_a_reply_that_cannot_be_trusted_fails_loudly(server, reply, problem):
    server, scripted = server
    scripted.append(lambda body: json_reply(reply))
    with pytest.raises(RerankResponseError, match=problem):
        HttpReranker(server.base_url).rerank(QUESTION, ["a", "b"], top_n=2)


def test_a_reply_that_is_not_json_fails_loudly(server):
    server, scripted = server
    scripted.append(lambda body: (200, {"Content-Type": "text/html"}, b"<html>proxy error</html>"))
    with pytest.raises(RerankResponseError, match="did not return JSON"):
        HttpReranker(server.base_url).rerank(QUESTION, ["a"], top_n=1)
    assert json.loads(json.dumps(server.received[-1][2]))["top_n"] == 1


def test_rerank_statistics_pair_the_kept_passages_before_and_after_on_the_same_questions():
    import pandas as pd

    from edgar_eval.evaluation.summaries import rerank_statistics

    def row(question: str, scope: str, before: bool, after: bool) -> dict:
        return {
            "question_id": question,
            "search_scope": scope,
            "retriever": "hybrid",
            "candidates": 30,
            "kept": 15,
            "reranker": "lexical-figure/1",
            "page_hit_before": before,
            "page_hit_after": after,
            "chunk_hit_before": before,
            "chunk_hit_after": after,
        }

    reranked = pd.DataFrame(
        [
            row("a", "corpus", True, True),
            row("b", "corpus", False, True),
            row("a", "company_year", True, False),
            row("b", "company_year", True, True),
            row("c", "company_year", False, False),
        ]
    )
    stats = rerank_statistics(reranked)
    assert list(stats.search_scope) == ["company_year", "corpus"], "narrowest scope first"
    narrow, wide = stats.iloc[0], stats.iloc[1]
    assert (narrow.questions, narrow.page_hits_before, narrow.page_hits_after, narrow.lost, narrow.gained) == (
        3,
        2,
        1,
        1,
        0,
    )
    assert (wide.page_hits_before, wide.page_hits_after, wide.gained) == (1, 2, 1)
    assert rerank_statistics(reranked.iloc[0:0]).empty
