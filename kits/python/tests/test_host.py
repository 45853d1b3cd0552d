"""The host: barriers answered only when idle, replies resuming their awaiters, the deadline race, reset, hello."""

import json
import os
import sys
import unittest

from support import SETTINGS, WELCOME, Case, Conversation, Toy, barrier, command, kit, reply


class BarrierTests(Case):
    def test_a_barrier_is_answered_after_all_runnable_work(self):
        talk = Conversation()
        talk.send(WELCOME)
        out = talk.send(command("c1", "spin"), barrier("b1"))
        self.assertEqual(out, [{"type": "storage", "op": "get", "key": "spun", "id": "e1"},
                               {"type": "barrier", "id": "b1"}])

    def test_a_barrier_waits_for_a_blocking_call_and_hands_its_result_over_in_that_round(self):
        talk = Conversation()
        talk.send(WELCOME)
        out = talk.send(command("c1", "think"), barrier("b1"))
        self.assertEqual(out, [{"type": "result", "id": "c1", "outcome": "ok", "content": {"thought": 42}},
                               {"type": "barrier", "id": "b1"}])

    def test_nothing_is_written_before_the_host_flushes(self):
        talk = Conversation()
        talk.host.send_hello()
        talk.host.handle(WELCOME)
        self.assertEqual(talk.written, [])
        self.assertEqual(len(talk.out()), 1)


class EffectTests(Case):
    def test_a_reply_resumes_its_awaiter(self):
        talk = Conversation()
        talk.send(WELCOME)
        self.assertEqual(talk.send(command("c1", "get", key="k")), [{"type": "storage", "op": "get", "key": "k", "id": "e1"}])
        self.assertEqual(talk.send(reply("e1", value="stored")),
                         [{"type": "result", "id": "c1", "outcome": "ok", "content": {"value": "stored"}}])

    def test_a_reply_for_an_unknown_effect_is_dropped(self):
        talk = Conversation()
        talk.send(WELCOME)
        self.assertEqual(talk.send(reply("e9", value="x"), barrier("b1")), [{"type": "barrier", "id": "b1"}])

    def test_http_effect_names_its_cause_and_maps_the_reply(self):
        talk = Conversation()
        talk.send(WELCOME)
        out = talk.send(command("c4", "fetch", resource="inbox"))
        self.assertEqual(out, [{"type": "http", "request": {"method": "GET", "path": "/resources/inbox",
                                                            "headers": {"accept": "application/json"}, "body": None},
                                "cause": "c4", "id": "e1"}])
        out = talk.send(reply("e1", response={"status": 200, "headers": {}, "body": {"items": []}}))
        self.assertEqual(out[0]["content"], {"outcome": ["response", 200, {}, {"items": []}]})
        talk.send(command("c5", "fetch", resource="inbox"))
        out = talk.send(reply("e2", failure={"code": "offline", "definite": True}))
        self.assertEqual(out[0]["content"], {"outcome": ["failure", "offline", True]})

    def test_an_error_result(self):
        talk = Conversation()
        talk.send(WELCOME)
        self.assertEqual(talk.send(command("c1", "fail")), [
            {"type": "result", "id": "c1", "outcome": "error",
             "error": {"code": "offline", "message": "no network", "definite": False}}])

    def test_clock_readings(self):
        talk = Conversation()
        effects = []
        talk.host.make_client = lambda fx: effects.append(fx) or Toy(fx)
        talk.send(WELCOME, {"type": "clock", "wall": 1767225660.0, "monotonic": 60.0})
        self.assertEqual((effects[0].wall_clock, effects[0].monotonic, effects[0].seed), (1767225660.0, 60.0, 7))


HTTP_E1 = {"type": "http", "request": {"method": "GET", "path": "/resources/news",
                                       "headers": {"accept": "application/json"}, "body": None}, "cause": "c1", "id": "e1"}
OK = {"status": 200, "headers": {}, "body": {"items": [1]}}


class DeadlineTests(Case):
    """`Effects.http(deadline=...)`: the request raced against a `sleep`, the loser abandoned."""

    def start(self, settings=SETTINGS):
        talk = Conversation(settings)
        talk.send(WELCOME)
        self.assertEqual(talk.send(command("c1", "fetch", resource="news", deadline=5), barrier("b1")),
                         [HTTP_E1, {"type": "sleep", "seconds": 5, "id": "e2"}, {"type": "barrier", "id": "b1"}])
        return talk

    def test_reply_first_abandons_the_sleep(self):
        talk = self.start()
        self.assertEqual(talk.send(reply("e1", response=OK), barrier("b2")), [
            {"type": "abandon", "id": "e2", "reason": "answered"},
            {"type": "result", "id": "c1", "outcome": "ok", "content": {"outcome": ["response", 200, {}, {"items": [1]}]}},
            {"type": "barrier", "id": "b2"}])

    def test_deadline_first_abandons_the_request_as_an_indefinite_timeout(self):
        talk = self.start()
        self.assertEqual(talk.send(reply("e2"), barrier("b2")), [
            {"type": "abandon", "id": "e1", "reason": "timeout"},
            {"type": "result", "id": "c1", "outcome": "ok", "content": {"outcome": ["failure", "timeout", False]}},
            {"type": "barrier", "id": "b2"}])
        # The reply that crossed the abandon is dropped: nothing more happens.
        self.assertEqual(talk.send(reply("e1", response=OK), barrier("b3")), [{"type": "barrier", "id": "b3"}])

    def test_same_round_reply_sent_first_wins(self):
        talk = self.start()
        self.assertEqual(talk.send(reply("e1", response=OK), reply("e2"), barrier("b2")), [
            {"type": "abandon", "id": "e2", "reason": "answered"},
            {"type": "result", "id": "c1", "outcome": "ok", "content": {"outcome": ["response", 200, {}, {"items": [1]}]}},
            {"type": "barrier", "id": "b2"}])

    def test_same_round_deadline_sent_first_wins(self):
        talk = self.start()
        self.assertEqual(talk.send(reply("e2"), reply("e1", response=OK), barrier("b2")), [
            {"type": "abandon", "id": "e1", "reason": "timeout"},
            {"type": "result", "id": "c1", "outcome": "ok", "content": {"outcome": ["failure", "timeout", False]}},
            {"type": "barrier", "id": "b2"}])

    def test_the_request_timeout_setting_is_a_deadline_on_every_request_the_shorter_wins(self):
        talk = Conversation(SETTINGS.replace(request_timeout=3))
        talk.send(WELCOME)
        out = talk.send(command("c1", "fetch", resource="news"), command("c2", "fetch", resource="news", deadline=30))
        self.assertEqual([message["seconds"] for message in out if message["type"] == "sleep"], [3, 3])

    def test_a_woken_sleep_is_abandoned_once(self):
        talk = Conversation()
        effects = []
        talk.host.make_client = lambda fx: effects.append(fx) or Toy(fx)
        talk.send(WELCOME)
        sleeper = effects[0].sleep(10)
        sleeper.wake()
        sleeper.wake()
        self.assertTrue(sleeper.done())
        self.assertEqual(talk.out(), [{"type": "sleep", "seconds": 10, "id": "e1"},
                                      {"type": "abandon", "id": "e1", "reason": "woken"}])


class ResetTests(Case):
    def test_reset_starts_a_new_instance_in_the_same_process(self):
        lines = [WELCOME, command("c1", "get", key="k"), barrier("b1"), {"type": "reset"},
                 reply("e1", value="late"), barrier("b0"),  # before the new welcome: ignored
                 dict(WELCOME, seed="8"), command("c1", "get", key="j"), barrier("b2")]
        data = [b"".join(json.dumps(message).encode() + b"\n" for message in lines)]
        written = []
        kit.serve(Toy, SETTINGS, read=lambda: data.pop(0) if data else b"", write=written.append)
        out = [json.loads(line) for line in b"".join(written).decode().splitlines()]
        self.assertEqual([message["type"] for message in out],
                         ["hello", "storage", "barrier", "hello", "storage", "barrier"])
        self.assertEqual(out[4], {"type": "storage", "op": "get", "key": "j", "id": "e1"})  # ids start again
        self.assertNotIn("result", [message["type"] for message in out])  # the old command died with its host

    def test_close_cancels_the_clients_tasks(self):
        talk = Conversation()
        talk.send(WELCOME, command("c1", "get", key="k"))
        tasks = list(__import__("asyncio").all_tasks(talk.host.loop))
        talk.host.close()
        self.assertTrue(tasks and all(task.cancelled() for task in tasks))


class HelloTests(Case):
    def test_minimal_hello(self):
        self.assertEqual(Conversation().host.hello(), {
            "type": "hello", "protocol": 1,
            "implementation": {"language": "Python", "platform": sys.platform, "name": "toy", "version": "0.1"},
            "capabilities": ["reset"]})

    def test_full_hello_of_a_forked_loopback_instance(self):
        settings = kit.Settings(implementation={"name": "app", "version": "2", "language": "Kotlin", "platform": "jvm"},
                                capabilities=["background-refresh", "offline-browsing"],
                                refresh_triggers=["unauthorized", "expiry"],
                                offline_policy={"cachedResources": ["news"]}, http="loopback")
        self.assertEqual(Conversation(settings, forked=True).host.hello(), {
            "type": "hello", "protocol": 1,
            "implementation": {"name": "app", "version": "2", "language": "Kotlin", "platform": "jvm"},
            "capabilities": ["background-refresh", "offline-browsing", "reset", "fork"],
            "offlinePolicy": {"cachedResources": ["news"]}, "http": "loopback",
            "refreshTriggers": ["unauthorized", "expiry"], "pid": os.getpid()})

    def test_settings_are_checked(self):
        with self.assertRaises(ValueError):
            kit.Settings(implementation={}, http="carrier-pigeon")
        with self.assertRaises(ValueError):
            kit.Settings(implementation={}, http_library="curl")

    def test_the_version_rule(self):
        self.assertEqual(int(kit.__version__.split(".")[0]), kit.PROTOCOL_VERSION)


if __name__ == "__main__":
    unittest.main()
