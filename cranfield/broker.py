"""Celery's Redis transport, made to survive losing Redis while a worker holds unacknowledged jobs.

When the connection drops, the worker's consumer closes its channel, and kombu's Redis QoS then
tries to put the unacknowledged messages back on their queues — over the connection that just
failed. With kombu 5.x the channel's connection is already gone by then, so the attempt raises
``AttributeError: 'NoneType' object has no attribute 'hostname'`` and the worker stops for good
("Unrecoverable error"); with Redis refusing connections it raises ``ConnectionError`` the same way.

Nothing needs restoring at that moment: every delivered message is still in Redis's unacked hash,
and the transport puts it back on its queue after the visibility timeout (``restore_visible``), once
Redis answers again. So this QoS skips the restore when the broker cannot be reached, logs it, and
lets the consumer reconnect as it does for any other connection loss. (If Redis itself lost its data,
beat's recovery sends again the jobs that were lost: ``evaluation.jobs.tasks.recover_lost_jobs``.)

Used through ``CELERY_BROKER_TRANSPORT = "cranfield.broker:Transport"`` whenever the broker is Redis.
"""

from __future__ import annotations

import logging

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError

logger = logging.getLogger(__name__)


class QoS(kombu_redis.QoS):
    def restore_unacked(self, client=None):
        connection = self.channel.connection
        if client is None and (connection is None or connection.client is None):  # closed under us
            return self._keep(len(self._delivered or ()), "the broker connection is closed")
        try:
            return super().restore_unacked(client)
        except RedisConnectionError as error:
            return self._keep(len(self._delivered or ()), str(error))

    def _keep(self, count: int, reason: str) -> None:
        logger.warning(
            "%d unacknowledged job(s) not restored now (%s): they stay in Redis's unacked set and go "
            "back on their queue after the visibility timeout",
            count,
            reason,
        )


class Channel(kombu_redis.Channel):
    QoS = QoS


class Transport(kombu_redis.Transport):
    Channel = Channel
