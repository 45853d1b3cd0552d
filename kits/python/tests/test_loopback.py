"""Loopback HTTP: real requests to a local server through urllib, requests and httpx, counted for the barrier
(`httpStarted`, `httpAnswered`), tagged with their cause, and abandoned on the virtual clock."""

import time
import unittest

from support import SETTINGS, WELCOME, Case, Conversation, Server, barrier, command, reply, require


class LoopbackCases:
    library = None

    def setUp(self):
        if self.library != "urllib":
            require(self, self.library)
        self.server = Server()
        self.talk = Conversation(SETTINGS.replace(http="loopback", http_library=self.library))
        welcome = dict(WELCOME, http={"baseURL": self.server.base_url})
        self.assertEqual(self.talk.send(welcome), [])

    def tearDown(self):
        super().tearDown()
        self.server.close()

    def test_a_request_is_counted_started_then_answered_and_tagged_with_its_cause(self):
        talk = self.talk
        self.server.hold()  # as the runner does: nothing is answered before the barrier's answer
        self.assertEqual(talk.send(command("c1", "fetch", resource="inbox"), barrier("b1", httpAnswered=0)),
                         [{"type": "barrier", "id": "b1", "httpStarted": 1}])
        self.server.release()
        path, headers = self.server.wait_for(1)[0]
        self.assertEqual((path, headers["x-conformance-cause"], headers["x-conformance-request"]),
                         ("/resources/inbox", "c1", "r1"))
        self.assertEqual(headers["accept"], "application/json")
        out = talk.send(barrier("b2", httpAnswered=1))
        self.assertEqual([message["type"] for message in out], ["result", "barrier"])
        kind, status, _, body = out[0]["content"]["outcome"]
        self.assertEqual((kind, status, body), ("response", 200, {"path": "/resources/inbox", "items": [1]}))
        self.assertEqual(out[1], {"type": "barrier", "id": "b2", "httpStarted": 1})

    def test_the_clients_own_http_client_is_counted_too(self):
        talk = self.talk
        self.server.hold()
        self.assertEqual(talk.send(command("c7", "own", library=self.library), barrier("b1", httpAnswered=0)),
                         [{"type": "barrier", "id": "b1", "httpStarted": 1}])
        self.server.release()
        self.assertEqual(self.server.wait_for(1)[0][1]["x-conformance-cause"], "c7")
        self.assertEqual(talk.send(barrier("b2", httpAnswered=1)), [
            {"type": "result", "id": "c7", "outcome": "ok", "content": {"body": {"path": "/own", "items": [1]}}},
            {"type": "barrier", "id": "b2", "httpStarted": 1}])

    def test_deadline_first_abandons_the_tag_and_the_late_response_is_never_counted(self):
        talk, server = self.talk, self.server
        server.hold()
        self.assertEqual(talk.send(command("c1", "fetch", resource="news", deadline=5), barrier("b1", httpAnswered=0)),
                         [{"type": "sleep", "seconds": 5, "id": "e1"}, {"type": "barrier", "id": "b1", "httpStarted": 1}])
        self.assertEqual(talk.send(reply("e1"), barrier("b2", httpAnswered=0)), [
            {"type": "abandon", "id": "r1", "reason": "timeout"},
            {"type": "result", "id": "c1", "outcome": "ok", "content": {"outcome": ["failure", "timeout", False]}},
            {"type": "barrier", "id": "b2", "httpStarted": 1}])
        server.dropped.add("/resources/news")  # the runner never answers an abandoned request
        server.release()
        time.sleep(0.3)  # r1's connection fails meanwhile, after its abandon
        server.hold()
        self.assertEqual(talk.send(command("c2", "fetch", resource="inbox"), barrier("b3", httpAnswered=0)),
                         [{"type": "barrier", "id": "b3", "httpStarted": 2}])
        server.release()
        out = talk.send(barrier("b4", httpAnswered=1))
        self.assertEqual([message.get("id") for message in out], ["c2", "b4"])
        self.assertEqual(talk.host.loopback.finished, 1)  # r1's late response is not counted

    def test_reply_first_abandons_the_sleep(self):
        talk = self.talk
        self.server.hold()
        self.assertEqual(talk.send(command("c1", "fetch", resource="news", deadline=5), barrier("b1", httpAnswered=0)),
                         [{"type": "sleep", "seconds": 5, "id": "e1"}, {"type": "barrier", "id": "b1", "httpStarted": 1}])
        self.server.release()
        out = talk.send(barrier("b2", httpAnswered=1))
        self.assertEqual(out[0], {"type": "abandon", "id": "e1", "reason": "answered"})
        self.assertEqual(out[1]["content"]["outcome"][:2], ["response", 200])

    def test_same_round_the_deadline_wins(self):
        # The runner answered the request and the sleep in one round: the sleep's reply is handled on arrival, the
        # HTTP outcome at the round's barrier, so the deadline wins and the abandon names an answered request
        # (the runner ignores it).
        talk = self.talk
        self.server.hold()
        talk.send(command("c1", "fetch", resource="news", deadline=5), barrier("b1", httpAnswered=0))
        self.server.release()
        self.assertEqual(talk.send(reply("e1"), barrier("b2", httpAnswered=1)), [
            {"type": "abandon", "id": "r1", "reason": "timeout"},
            {"type": "result", "id": "c1", "outcome": "ok", "content": {"outcome": ["failure", "timeout", False]}},
            {"type": "barrier", "id": "b2", "httpStarted": 1}])

    def test_a_failed_connection_is_an_indefinite_connection_loss(self):
        self.talk.host.loopback.base_url = "http://127.0.0.1:9"  # nothing listens there: refused
        # A failed connection finishes the request (the runner counts the resets it sends in httpAnswered).
        out = self.talk.send(command("c1", "fetch", resource="news"), barrier("b1", httpAnswered=1))
        self.assertEqual(out[-1], {"type": "barrier", "id": "b1", "httpStarted": 1})
        self.assertEqual(out[0].get("content"), {"outcome": ["failure", "connectionLost", False]}, out)


class UrllibTests(LoopbackCases, Case):
    library = "urllib"


class RequestsTests(LoopbackCases, Case):
    library = "requests"


class HttpxTests(LoopbackCases, Case):
    library = "httpx"


if __name__ == "__main__":
    unittest.main()
