"""The loopback fake Messages API in its own process: ``fake_server.py LATENCY``. Prints its base
URL, serves until stdin closes, then prints how many requests it answered and the most at once."""

import json
import sys

from pytest_tempoeval.testing import FakeMessagesServer

server = FakeMessagesServer(latency=float(sys.argv[1])).start()
print(server.base_url, flush=True)
sys.stdin.read()
print(json.dumps({"requests": len(server.requests), "max_in_flight": server.max_in_flight}))
server.stop()
