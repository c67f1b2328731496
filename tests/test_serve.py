"""``fastamfm serve`` on loopback, started by the tests as users start it (the command line
in a child process, any free port): the served numbers are ``fastamfm.evaluate``'s, bit for
bit; concurrent requests are merged (the batch-size histogram of /metrics says so) and
split back exactly; a full queue answers 429 with Retry-After and the client's retries get
through; a client that disconnects has its queued work dropped; a request out of time gets
504; SIGTERM drains (the request in flight is answered, new ones refused, exit status 0);
malformed JSON, invalid UTF-8, oversized bodies and wrong types get 4xx JSON errors naming
the field and index, and the server keeps serving after each. The neural metrics (tiny
random models, skipped without torch) are merged too and equal in-process scoring.

No test asserts a duration: slow batches are made with long batching delays and the tests
wait for the server's own gauges, never for a clock.
"""
from __future__ import annotations

import json
import signal
import socket
from concurrent.futures import ThreadPoolExecutor

import fastamfm
import numpy as np
import pytest
from fastamfm.client import Client, ServerError
from serve_process import START_SECONDS, Server

pytest.importorskip("starlette", reason="fastamfm serve needs the serve extra: pip install '.[serve]'")
pytest.importorskip("uvicorn", reason="fastamfm serve needs the serve extra: pip install '.[serve]'")

HYPS = ["i can check the flight status for you", "we are boarding now", "sorry about the delay at the gate",
        "your bag is on the next flight", "thanks for flying with us today", "please send me your ticket number"]
REFS = [["please send me your confirmation number", "happy to check on that flight"], ["boarding has started"],
        ["we apologise for the delay", "sorry for the wait at gate 4"], ["your bag will arrive on the next flight"],
        ["thank you for flying with us"], ["could you send your ticket number", "what is your ticket number"]]
CLASSIC = ["bleu", "rouge_l", "cider", "am", "fm", "amfm", "distinct", "chrf"]


@pytest.fixture(scope="module")
def server():
    s = Server("--max-body-bytes", "200000", "--max-lines", "50", "--max-tokens", "2000")
    yield s
    assert s.stop() == 0


@pytest.fixture(scope="module")
def slow_server():
    """Batches wait 3 s for more requests, the queue holds 8 responses, 4 a request."""
    s = Server("--max-wait-ms", "3000", "--max-queue", "8", "--max-lines", "4")
    yield s
    assert s.stop() == 0


def _same(served: dict, expected: dict) -> None:
    assert list(served) == list(expected)
    for column, values in expected.items():
        np.testing.assert_array_equal(np.asarray(served[column], dtype=np.float64), np.asarray(values), column)


def test_served_scores_are_evaluates_bit_for_bit(server):
    served = server.client.score(HYPS, REFS, CLASSIC)
    expected = fastamfm.evaluate(HYPS, REFS, CLASSIC, layout="responses", progress=False)
    _same(served.sentences, expected.sentences)
    assert served.corpus == expected.corpus
    assert served.signature == expected.signature
    default = server.client.score(HYPS, REFS)          # no metrics: evaluate's default set
    assert default.corpus == fastamfm.evaluate(HYPS, REFS, layout="responses", progress=False).corpus


def test_rewards_are_the_trl_reward_functions(server):
    from fastamfm.integrations.trl import reward_function

    local = reward_function({"amfm": 0.7, "Bleu_2": 0.3})(completions=HYPS, references=REFS)
    served = server.client.reward(HYPS, REFS, metric={"amfm": 0.7, "Bleu_2": 0.3})
    assert served.tolist() == local
    assert server.client.reward(HYPS, [r[0] for r in REFS]).tolist() == \
        reward_function("amfm")(completions=HYPS, references=[r[0] for r in REFS])
    prompts = ["where is my flight?"] * len(HYPS)
    status, answer, _ = server.post("/get_reward", json.dumps(
        {"query": [p + h for p, h in zip(prompts, HYPS)], "prompts": prompts, "labels": [r[0] for r in REFS]}
    ).encode())
    assert status == 200
    assert answer["rewards"] == reward_function("amfm")(completions=HYPS, references=[r[0] for r in REFS])


def test_remote_reward_functions_read_trls_call_and_give_the_in_process_rewards(server):
    """fastamfm.client's TRL reward functions, sync and async, called as TRL calls them
    (chat prompts and completions, references from a dataset column): the in-process
    reward function's floats."""
    import asyncio

    from fastamfm.client import remote_reward_function
    from fastamfm.integrations.trl import reward_function

    prompts = [[{"role": "system", "content": "be kind"}, {"role": "user", "content": "where is my flight?"}]] * 6
    completions = [[{"role": "assistant", "content": h}] for h in HYPS]
    call = {"prompts": prompts, "completions": completions, "completion_ids": [[1]] * 6, "answers": REFS}
    local = reward_function("amfm", references="answers")(**call)
    remote = remote_reward_function(server.url, "amfm", references="answers")
    assert remote(**call) == local
    assert remote.__name__ == "fastamfm_remote_amfm"
    remote_async = remote_reward_function(server.url, {"amfm": 0.5, "Bleu_1": 0.5}, references="answers",
                                          name="served", asynchronous=True)
    assert asyncio.iscoroutinefunction(remote_async) and remote_async.__name__ == "served"
    assert asyncio.run(remote_async(**call)) == \
        reward_function({"amfm": 0.5, "Bleu_1": 0.5}, references="answers")(**call)
    with pytest.raises(TypeError, match="without completions="):
        remote(prompts=prompts)


def test_async_client_answers_as_the_client(server):
    import asyncio

    from fastamfm.client import AsyncClient

    async def both():
        client = AsyncClient(server.url, retries=0)
        return await asyncio.gather(client.score(HYPS, REFS, metrics=["bleu"]), client.reward(HYPS, REFS))

    scores, rewards = asyncio.run(both())
    assert scores.corpus == server.client.score(HYPS, REFS, ["bleu"]).corpus
    assert rewards.tolist() == server.client.reward(HYPS, REFS).tolist()


def test_metrics_health_and_prometheus(server):
    names = [m["name"] for m in server.client.metrics()]
    assert names == list(fastamfm.registry.names())
    assert server.client.health()["status"] == "ok"
    assert 'fastamfm_requests_total{route="/healthz",status="200"}' in server.prometheus()


# (what is sent, the status, the field the error names)
BAD_REQUESTS = [
    (b'{"hyps": ["a", "b"', 400, None),                                          # malformed JSON
    (b'{"hyps": ["caf\xe9"]}', 400, None),                                        # invalid UTF-8
    (b'[1, 2]', 400, None),                                                       # not an object
    (b'{"hyps": [NaN]}', 400, None),                                              # not JSON numbers
    (json.dumps({"hyps": "one string"}).encode(), 400, "hyps"),
    (json.dumps({"hyps": ["a", 3]}).encode(), 400, "hyps[1]"),
    (json.dumps({"hyps": ["a", "b"], "refs": [["x"], ["y", None]]}).encode(), 400, "refs[1][1]"),
    (json.dumps({"hyps": ["a", "b"], "refs": [["x"]]}).encode(), 400, "refs"),
    (json.dumps({"hyps": ["a"], "refs": [[]]}).encode(), 400, "refs[0]"),
    (b'{"hyps": ["\\ud800 lone surrogate"], "refs": [["x"]]}', 400, "hyps[0]"),
    (json.dumps({"hyps": ["a"], "refs": [["x"]], "metrics": ["no_such_metric"]}).encode(), 400, "metrics"),
    (json.dumps({"hyps": ["a"], "refs": [["x"]], "metrics": ["bleu"], "options": {"max_order": "four"}}).encode(),
     400, None),
    (json.dumps({"hyps": ["a"], "refs": [["x"]], "options": {"model": "/etc"}}).encode(), 400, "options.model"),
    (json.dumps({"hyps": ["a"], "refs": [["x"]], "metrics": ["bleu"], "options": {"nonsense": 1}}).encode(),
     400, "options"),
    (json.dumps({"hyps": ["a"], "typo": 1}).encode(), 400, "typo"),
    (json.dumps({"hyps": ["a"] * 51}).encode(), 413, "hyps"),                    # over --max-lines
    (json.dumps({"hyps": ["word " * 1500], "refs": [["word " * 600]]}).encode(), 413, "refs[0][0]"),  # --max-tokens
    (json.dumps({"hyps": ["a" * 250_000]}).encode(), 413, None),                 # over --max-body-bytes
]


@pytest.mark.parametrize("body, status, field", BAD_REQUESTS)
def test_bad_requests_get_4xx_naming_the_field_and_the_server_keeps_serving(server, body, status, field):
    got, answer, _ = server.post("/v1/score", body)
    assert got == status, answer
    assert answer["error"]["status"] == status and answer["error"]["field"] == field, answer
    assert answer["error"]["message"]
    assert server.client.score(HYPS[:2], REFS[:2], ["rouge_l"]).corpus["ROUGE_L"] > 0


def test_wrong_method_and_route_are_json_errors(server):
    with pytest.raises(ServerError) as error:
        server.client.transport.request("GET", "/v1/score")
    assert error.value.status == 405
    with pytest.raises(ServerError) as error:
        server.client.transport.request("POST", "/v2/nothing", {})
    assert error.value.status == 404


def _score_alone(i: int, client: Client) -> tuple:
    hyps, refs = HYPS[i % 6:i % 6 + 2] or HYPS[:2], REFS[i % 6:i % 6 + 2] or REFS[:2]
    if len(hyps) < 2:
        hyps, refs = HYPS[:2], REFS[:2]
    return hyps, refs, client.score(hyps, refs, ["rouge_l", "bleu", "amfm"])


def test_concurrent_requests_merge_and_split_back_exactly_and_overload_gets_429(slow_server):
    """Four requests of two responses fill the queue of eight: they wait in one group (3 s of
    batching delay), a fifth gets 429 with Retry-After while a client with retries waits its
    turn; the four are scored as one batch and each gets evaluate's numbers for its own texts."""
    before = slow_server.prometheus()
    with ThreadPoolExecutor(5) as pool:
        first = [pool.submit(_score_alone, i, slow_server.client) for i in range(4)]
        slow_server.wait_for("fastamfm_queue_responses", 8)
        status, answer, headers = slow_server.post("/v1/score", json.dumps(
            {"hyps": HYPS[:1], "refs": REFS[:1], "metrics": ["rouge_l"]}).encode())
        assert status == 429 and int(headers["Retry-After"]) >= 1, answer
        patient = pool.submit(Client(slow_server.url, retries=50, backoff=0.05).score, HYPS[:1], REFS[:1],
                              ["rouge_l"])
        for future in first:
            hyps, refs, served = future.result()
            expected = fastamfm.evaluate(hyps, refs, ["rouge_l", "bleu", "amfm"], layout="responses", progress=False)
            _same(served.sentences, expected.sentences)
            assert served.corpus == expected.corpus
        assert patient.result().corpus == fastamfm.evaluate(HYPS[:1], REFS[:1], ["rouge_l"], progress=False).corpus
    after = slow_server.prometheus()
    batches = after["fastamfm_batch_requests_count"] - before.get("fastamfm_batch_requests_count", 0)
    merged = after["fastamfm_batch_requests_sum"] - before.get("fastamfm_batch_requests_sum", 0)
    assert merged == 5 and batches < 5          # five requests answered in fewer batches
    assert after['fastamfm_requests_total{route="/v1/score",status="429"}'] >= 1


def test_a_client_that_disconnects_has_its_work_dropped(slow_server):
    before = slow_server.prometheus()
    body = json.dumps({"hyps": HYPS[:2], "refs": REFS[:2], "metrics": ["rouge_l"]}).encode()
    host, port = slow_server.url.rsplit("/", 1)[1].split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        slow_server.wait_for("fastamfm_queue_requests", 1)
    slow_server.wait_for('fastamfm_dropped_requests_total{reason="disconnected"}',
                         before.get('fastamfm_dropped_requests_total{reason="disconnected"}', 0) + 1)
    after = slow_server.prometheus()
    assert after.get("fastamfm_queue_requests") == 0
    # dropped before its batch started: no batch ever held it
    assert after.get("fastamfm_batch_requests_count", 0) == before.get("fastamfm_batch_requests_count", 0)


def test_a_request_out_of_time_gets_504_and_its_work_is_dropped():
    s = Server("--max-wait-ms", "60000", "--request-timeout", "0.5")
    try:
        status, answer, _ = s.post("/v1/score", json.dumps({"hyps": HYPS[:1], "refs": REFS[:1],
                                                            "metrics": ["bleu"]}).encode())
        assert status == 504 and "request_timeout" in answer["error"]["message"]
        assert s.prometheus()['fastamfm_dropped_requests_total{reason="timeout"}'] == 1
        assert s.client.health()["status"] == "ok"
    finally:
        assert s.stop() == 0


def test_metric_sets_beyond_the_bound_evict_the_least_recently_used_but_never_the_preloaded():
    """Requests that each name other settings cannot make the server hold ever more metric
    sets (and models): with --max-metric-sets 2 it keeps two, the preloaded one among them,
    and every answer is still evaluate's."""
    s = Server("--max-metric-sets", "2", "--preload", "rouge_l")
    try:
        assert s.prometheus()["fastamfm_pipelines_loaded"] == 1
        for order in (1, 2, 3, 4, 2):
            served = s.client.score(HYPS, REFS, ["bleu"], bleu={"max_order": order})
            assert served.corpus == fastamfm.evaluate(HYPS, REFS, ["bleu"], bleu={"max_order": order},
                                                      progress=False).corpus
            assert s.prometheus()["fastamfm_pipelines_loaded"] == 2
        assert s.client.score(HYPS, REFS, ["rouge_l"]).corpus == \
            fastamfm.evaluate(HYPS, REFS, ["rouge_l"], progress=False).corpus
        # other metrics each: the freed sets' model-load series go with them
        for metrics in (["chrf"], ["distinct"], ["bleu", "chrf"]):
            s.client.score(HYPS, REFS, metrics)
        loads = {k for k in s.prometheus() if k.startswith("fastamfm_model_load_seconds")}
        assert loads == {'fastamfm_model_load_seconds{metrics="rouge_l"}',
                         'fastamfm_model_load_seconds{metrics="bleu,chrf"}'}, loads
        # the preloaded set was built once, before listening, and never again
        assert sum("built rouge_l in" in line for line in s.log) == 1, s.log
    finally:
        assert s.stop() == 0


def test_sigterm_drains_the_request_in_flight_then_refuses_and_exits_0():
    s = Server("--max-wait-ms", "60000")          # the batch would wait a minute: only the drain starts it
    with ThreadPoolExecutor(1) as pool:
        in_flight = pool.submit(s.client.score, HYPS, REFS, ["bleu", "rouge_l"])
        s.wait_for("fastamfm_queue_requests", 1)
        s.process.send_signal(signal.SIGTERM)
        served = in_flight.result()
    assert served.corpus == fastamfm.evaluate(HYPS, REFS, ["bleu", "rouge_l"], layout="responses",
                                              progress=False).corpus
    assert s.process.wait(timeout=START_SECONDS) == 0
    with pytest.raises(OSError):
        Client(s.url, retries=0).health()
    assert "Shutting down" in "".join(s.log)


# --- neural metrics, merged -------------------------------------------------------------
@pytest.fixture(scope="module")
def neural_server(tmp_path_factory):
    pytest.importorskip("torch", reason="the neural metrics need torch (pip install '.[deep]')")
    pytest.importorskip("transformers", reason="the neural metrics need transformers (pip install '.[deep]')")
    from causal_models import make_model
    from deep_models import build_tiny_bert

    encoder = build_tiny_bert(tmp_path_factory.mktemp("serve_bert"))
    lm = make_model(tmp_path_factory.mktemp("serve_llama"), "llama")
    s = Server("--max-wait-ms", "2000", "--option", f"encoder={encoder}", "--option", f"lm={lm}",
               "--option", "device=cpu")
    yield s, {"encoder": str(encoder), "lm": str(lm), "device": "cpu"}
    assert s.stop() == 0


CONTEXTS = ["hello\nis my flight on time", "when do we board", "my flight is late", "where is my bag",
            "thanks for the help", "i need to change my ticket"]


def test_neural_requests_merge_and_equal_in_process_scoring(neural_server):
    s, options = neural_server
    before = s.prometheus()
    parts = [(HYPS[i:i + 2], CONTEXTS[i:i + 2]) for i in range(0, 6, 2)]
    with ThreadPoolExecutor(3) as pool:
        served = list(pool.map(lambda p: s.client.score(p[0], metrics=["deep_amfm"], contexts=p[1]), parts))
    after = s.prometheus()
    assert after["fastamfm_batch_requests_sum"] - before.get("fastamfm_batch_requests_sum", 0) == 3
    for (hyps, contexts), got in zip(parts, served):
        expected = fastamfm.evaluate(hyps, contexts=contexts, metrics=["deep_amfm"], progress=False, **options)
        assert list(got.sentences) == list(expected.sentences)
        for column, values in expected.sentences.items():
            # One forward pass over the merged batch pads differently from this request's own:
            # equal up to float32 rounding, never another number.
            np.testing.assert_allclose(got.sentences[column], values, rtol=1e-5, atol=1e-6, err_msg=column)
        assert got.signature == expected.signature
