"""What waits in the broker: the messages of the Redis queues that no worker has taken yet, as
(task name, arguments), so that recovery can tell a job whose message is waiting from one that was
lost (a Redis restarted empty, a queue flushed) or whose worker died holding it.

Only the waiting lists are read: a message a worker has taken sits in Redis's ``unacked`` hash until
it is acknowledged, and a worker that died keeps it there until the visibility timeout; whether that
worker lives is what the job's heartbeat says.
"""

from __future__ import annotations

import ast
import json
import logging
from typing import Any

logger = logging.getLogger(__name__)

# kombu's Redis transport keeps each priority level of a queue in a list of its own: the queue's name,
# then the name, "\x06\x16" and the level for the non-zero ones (kombu.transport.redis's PrioritySteps).
PRIORITY_SEPARATOR = "\x06\x16"


def waiting_messages(app: Any) -> dict[str, list[tuple]] | None:
    """``{task name: [arguments of each waiting message]}``, or None when there is no broker to read
    (tasks run in-process) or it cannot be read now (recovery then waits for the next round)."""
    if app.conf.task_always_eager or not str(app.conf.broker_url).startswith(("redis://", "rediss://")):
        return None
    import redis

    queue = app.conf.task_default_queue or "celery"
    try:
        client = redis.Redis.from_url(app.conf.broker_url, socket_timeout=5, socket_connect_timeout=5)
        keys = [queue.encode(), *client.scan_iter(match=f"{queue}{PRIORITY_SEPARATOR}*".encode(), count=100)]
        found: dict[str, list[tuple]] = {}
        for key in keys:
            for raw in client.lrange(key, 0, -1):
                name, arguments = _task_and_arguments(raw)
                if name:
                    found.setdefault(name, []).append(arguments)
        return found
    except redis.RedisError as error:
        logger.warning("could not read the broker's queues: %s", error)
        return None


def _task_and_arguments(raw: bytes | str) -> tuple[str | None, tuple]:
    """A kombu message's task name and positional arguments (Celery's protocol 2 keeps both in its
    headers: ``task`` and ``argsrepr``)."""
    try:
        headers = json.loads(raw)["headers"]
        arguments = ast.literal_eval(headers.get("argsrepr") or "()")
        return headers.get("task"), tuple(arguments) if isinstance(arguments, (list, tuple)) else ()
    except (ValueError, KeyError, TypeError, SyntaxError):
        return None, ()
