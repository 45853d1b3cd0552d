"""Framing: the same input, however it is cut into reads, gives the same output; garbage gives a clear error."""

import json
import os
import random
import subprocess
import sys
import unittest

from support import SETTINGS, SOURCE, WELCOME, Toy, barrier, command, kit, reply

CONVERSATION = [WELCOME, command("c1", "get", key="k"), barrier("b1"), reply("e1", value="v"), barrier("b2")]
INPUT = b"".join(json.dumps(message).encode() + b"\n" for message in CONVERSATION)


def serve(chunks):
    """Serves `chunks` (then the end of input) and returns the messages written."""
    written, chunks = [], list(chunks)
    kit.serve(Toy, SETTINGS, read=lambda: chunks.pop(0) if chunks else b"", write=written.append)
    return [json.loads(line) for line in b"".join(written).decode().splitlines()]


class FramingTests(unittest.TestCase):
    EXPECTED = [
        {"type": "hello", "protocol": 1, "implementation": {"language": "Python", "platform": sys.platform,
                                                             "name": "toy", "version": "0.1"},
         "capabilities": ["reset"]},
        {"type": "storage", "op": "get", "key": "k", "id": "e1"},
        {"type": "barrier", "id": "b1"},
        {"type": "result", "id": "c1", "outcome": "ok", "content": {"value": "v"}},
        {"type": "barrier", "id": "b2"},
    ]

    def test_whole_input_in_one_read(self):
        self.assertEqual(serve([INPUT]), self.EXPECTED)

    def test_input_byte_by_byte(self):
        self.assertEqual(serve([INPUT[index:index + 1] for index in range(len(INPUT))]), self.EXPECTED)

    def test_input_in_random_chunks(self):
        generator = random.Random(38)
        for _ in range(20):
            cuts = sorted(generator.sample(range(1, len(INPUT)), generator.randint(1, 12)))
            chunks = [INPUT[start:end] for start, end in zip([0] + cuts, cuts + [len(INPUT)])]
            self.assertEqual(serve(chunks), self.EXPECTED)

    def test_blank_lines_and_unknown_fields_are_ignored(self):
        noisy = b"\n" + INPUT.replace(b'"type": "barrier"', b'"type": "barrier", "extra": [1]').replace(b"\n", b"\n\n")
        self.assertEqual(serve([noisy]), self.EXPECTED)

    def test_messages_before_the_welcome_are_ignored(self):
        stale = json.dumps(reply("e9", value="old")).encode() + b"\n"
        self.assertEqual(serve([stale + INPUT]), self.EXPECTED)


class GarbageTests(unittest.TestCase):
    def error(self, data):
        with self.assertRaises(kit.ProtocolError) as caught:
            serve([json.dumps(WELCOME).encode() + b"\n" + data])
        return str(caught.exception)

    def test_a_line_that_is_not_json_names_the_line_not_its_content(self):
        message = self.error(b"secret-token-value garbage\n")
        self.assertIn("line 2 from the runner is not JSON", message)
        self.assertNotIn("secret", message)

    def test_not_utf8(self):
        self.assertIn("line 2 from the runner is not UTF-8", self.error(b"\xff\xfe\n"))

    def test_a_json_value_that_is_not_a_message(self):
        self.assertIn("not a JSON object with a type", self.error(b"[1, 2]\n"))
        self.assertIn("not a JSON object with a type", self.error(b'{"id": "b1"}\n'))

    def test_an_unknown_type(self):
        self.assertIn("line 2: unknown runner message type 'launch-missiles'",
                      self.error(b'{"type": "launch-missiles"}\n'))

    def test_a_message_missing_a_field(self):
        self.assertIn("line 2: a 'reply' message without a valid", self.error(b'{"type": "reply", "id": 7}\n'))
        self.assertIn("a 'barrier' message without a valid", self.error(b'{"type": "barrier"}\n'))
        self.assertIn("httpAnswered is not a count", self.error(b'{"type": "barrier", "id": "b1", "httpAnswered": "x"}\n'))

    def test_input_ending_inside_a_line(self):
        self.assertIn("ended inside a line", self.error(b'{"type": "clock"'))

    def test_an_overlong_line(self):
        self.assertIn("longer than", self.error(b"x" * (kit.host.MAX_LINE + 10)))

    def test_an_adapter_exits_2_with_one_line_on_stderr(self):
        script = ("import sys; sys.path.insert(0, sys.argv[1]); import session_conformance_kit as kit\n"
                  "class C:\n    def __init__(self, effects): pass\n"
                  "kit.run(C, kit.Settings(implementation={'name': 'x', 'version': '1'}, fork=False))\n")
        done = subprocess.run([sys.executable, "-c", script, SOURCE], input=b"{not json at-secret\n",
                              capture_output=True, timeout=30)
        self.assertEqual(done.returncode, 2)
        stderr = done.stderr.decode()
        self.assertEqual(stderr, "session-conformance-kit: protocol error: line 1 from the runner is not JSON "
                                 "(Expecting property name enclosed in double quotes at column 2)\n")
        self.assertTrue(done.stdout.startswith(b'{"type":"hello"'))


if __name__ == "__main__":
    unittest.main()
