"""The worker's broker consumer (setting CELERY_WORKER_CONSUMER): Celery's own, with a lost
Redis connection torn down once, so a worker survives its broker going away mid-task.

Issue 41, H2. Celery 5.7.0's Consumer.on_connection_error_after_connected first collects the
lost connection, then closes it (celery/worker/consumer/consumer.py, lines 476 and 487).
kombu's Connection.collect closes the default channel and the transport's channels and sets
the transport's `client` to None, but keeps `_default_channel` (kombu/connection.py, 432-452).
With a task in flight (acks_late: its message is unacked) and a free pool slot (a BRPOP
outstanding), the default channel's close stops at reading the BRPOP reply from the dead
socket, and the transport's stops at the first fanout channel (gossip, remote control) that
cannot delete its queue. The second close then takes the default channel further, to restoring
the unacked message through a new Redis pool, whose parameters come from the transport's
client: AttributeError: 'NoneType' object has no attribute 'hostname' (kombu/transport/redis.py,
Channel._connparams, line 1959). Celery ignores only connection and channel errors there, so
the worker logs "Unrecoverable error", finishes its in-flight tasks and exits for good. The
matrix worker (one process, prefetch one) has no BRPOP outstanding while it works, and an idle
worker has nothing unacked: both lived through the same outage.
"""

from __future__ import annotations

import logging

from celery.utils.threads import bound_open_broker_sockets
from celery.worker.consumer import Consumer as CeleryConsumer
from celery.worker.consumer.consumer import COLLECT_SOCKET_TIMEOUT

logger = logging.getLogger(__name__)


class Consumer(CeleryConsumer):
    def on_connection_error_after_connected(self, exc):
        if self.connection is not None:
            connection_release_lost(self.connection)
        super().on_connection_error_after_connected(exc)


def connection_release_lost(connection) -> None:
    """Collect a connection whose broker went away, and forget its default channel: the
    collected connection has nothing left to close, so closing it again is harmless. The
    channel itself lives on with its in-flight messages, which it acknowledges through its
    own Redis pool once the broker is back (or the broker redelivers them after the
    visibility timeout, and the job's claim makes that a no-op)."""
    # As Celery does: bound the sockets that are already open before collect() reads them.
    bound_open_broker_sockets(connection, COLLECT_SOCKET_TIMEOUT)
    try:
        connection.collect(socket_timeout=COLLECT_SOCKET_TIMEOUT)
    except Exception as exc:  # the broker is gone: any error here is expected
        logger.debug("collecting the lost broker connection: %r", exc)
    connection._default_channel = None
