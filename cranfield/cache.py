"""Redis as a cache the site can live without.

With ``REDIS_URL`` set, Redis is the shared cache: sessions are read through it (the cached-database
backend writes every session to PostgreSQL too) and the judging page's item counts are kept there.
Django's Redis backend raises when Redis is down, which turned every request with a session cookie,
every login and every import into a 500 while PostgreSQL, which holds everything that matters, was
fine. This backend answers as an empty cache instead — a read misses, a write is dropped — and logs
the failure, so pages fall back to the database and annotators keep judging until Redis returns.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# One warning per this many seconds while Redis stays down, not one per request.
WARN_EVERY_SECONDS = 60.0


class ReusedClients(RedisCacheClient):
    """One ``redis.Redis`` per connection pool, made once, instead of Django's one per operation:
    redis-py's constructor copies its table of response callbacks each time (0.2-0.3 ms, and a
    judging request makes four cache operations). ``redis.Redis`` is safe to share between threads;
    the pools are Django's, as before."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))  # pools live as long as the process
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class ForgivingRedisCache(RedisCache):
    _last_warning = 0.0

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = ReusedClients

    def _failed(self, operation: str, error: Exception, fallback: Any) -> Any:
        now = time.monotonic()
        if now - ForgivingRedisCache._last_warning >= WARN_EVERY_SECONDS:
            ForgivingRedisCache._last_warning = now
            logger.warning(
                "cache %s failed (%s); answering as an empty cache until Redis is back", operation, error
            )
        return fallback

    def get(self, key, default=None, version=None):
        try:
            return super().get(key, default, version)
        except RedisError as error:
            return self._failed("get", error, default)

    def get_many(self, keys, version=None):
        try:
            return super().get_many(keys, version)
        except RedisError as error:
            return self._failed("get_many", error, {})

    def has_key(self, key, version=None):
        try:
            return super().has_key(key, version)
        except RedisError as error:
            return self._failed("has_key", error, False)

    def add(self, key, value, timeout=None, version=None):
        try:
            return super().add(key, value, timeout, version)
        except RedisError as error:
            return self._failed("add", error, False)

    def set(self, key, value, timeout=None, version=None):
        try:
            super().set(key, value, timeout, version)
        except RedisError as error:
            self._failed("set", error, None)

    def set_many(self, data, timeout=None, version=None):
        try:
            return super().set_many(data, timeout, version)
        except RedisError as error:
            return self._failed("set_many", error, list(data))

    def touch(self, key, timeout=None, version=None):
        try:
            return super().touch(key, timeout, version)
        except RedisError as error:
            return self._failed("touch", error, False)

    def delete(self, key, version=None):
        try:
            return super().delete(key, version)
        except RedisError as error:
            return self._failed("delete", error, False)

    def delete_many(self, keys, version=None):
        try:
            super().delete_many(keys, version)
        except RedisError as error:
            self._failed("delete_many", error, None)

    def incr(self, key, delta=1, version=None):
        try:
            return super().incr(key, delta, version)
        except RedisError as error:  # as if the key were missing, which Django's API says is a ValueError
            self._failed("incr", error, None)
            raise ValueError(f"Key '{key}' not found (the cache is unavailable)") from error

    def clear(self):
        try:
            super().clear()
        except RedisError as error:
            self._failed("clear", error, None)
