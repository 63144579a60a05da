"""moto_server, with two fidelity fixes. Arguments are moto_server's.

DynamoDB requests are applied one at a time. moto checks a conditional write's condition and
then writes, with no lock between, while its server answers requests on many threads. Two
racing conditional writes can then both pass, which DynamoDB itself never allows; the ledger's
leases, the brake's count and the breaker's probe lease all rest on that atomicity. So DynamoDB
requests take one lock here; other services (SQS long polls) stay concurrent.

SQS SendMessage costs the same at any queue depth. moto 5.2.5's send_message asks
`queue.attributes` whether the queue deduplicates by content, and that property builds every
attribute of the queue, ApproximateNumberOfMessages and its two siblings included: three scans
of all messages held, for each message sent (about 14 µs per message held). SendMessageBatch
sends each entry the same way. Real SQS has no such cost, and a bulk load measured against
moto measured the scan instead. The send below is moto's own, line for line, except that it
reads the setting from the queue.

SQS ReceiveMessage likewise: for each message it returns, moto checks the retention period
through `get_queue_attributes`, which builds the queue's attributes three times (nine scans of
all messages held): about 1 s per receive of 10 from a queue holding 1 500. The check below is
moto's, reading the period from the queue.

SQS DeleteMessage keeps every message sent meanwhile. moto 5.2.5 appends a sent message under
the queue's lock, but deletes by walking the list and then assigning a new one without it: a
send that lands between the walk's end and the assignment is lost, which real SQS never does
(a bulk load under a loaded run lost one batch of 10 that way). The delete below is moto's,
taken under the same lock.
"""

import hashlib
import string
import threading

import moto
from moto import server
from moto.moto_api._internal import mock_random as random
from moto.sqs import models as sqs

_DYNAMODB = threading.Lock()


class _OneDynamoDbRequestAtATime:
    def __init__(self, app):
        self._app = app

    def __call__(self, environ, start_response):
        if environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB_"):
            with _DYNAMODB:
                # The body is produced inside the lock: moto writes while building it.
                return list(self._app(environ, start_response))
        return self._app(environ, start_response)


_dispatcher = server.DomainDispatcherApplication


def _atomic_dispatcher(*args, **kwargs):
    return _OneDynamoDbRequestAtATime(_dispatcher(*args, **kwargs))


server.DomainDispatcherApplication = _atomic_dispatcher


# The send and the retention check below are copies of this version's; another version must
# be compared again.
_SQS_SEND_COPIED_FROM = "5.2.5"
if moto.__version__ != _SQS_SEND_COPIED_FROM:
    raise RuntimeError(
        f"atomic_moto_server.py copies moto {_SQS_SEND_COPIED_FROM}'s SQSBackend.send_message "
        "and is_message_valid_based_on_retention_period, "
        f"but moto {moto.__version__} is installed: compare the two and update the copy"
    )


def _deduplicates_by_content(queue):
    """What `queue.attributes.get("ContentBasedDeduplication") == "true"` answers: the
    attribute is listed for FIFO queues only, and the queue holds it as a bool."""
    return queue.fifo_queue is True and queue.content_based_deduplication is True


def _send_message(
    self,
    queue_name,
    message_body,
    message_attributes=None,
    delay_seconds=None,
    deduplication_id=None,
    group_id=None,
    system_attributes=None,
    validate_group_id=True,
):
    queue = self.get_queue(queue_name)

    self._validate_message(
        queue,
        message_body=message_body,
        delay_seconds=int(delay_seconds or 0),
        deduplication_id=deduplication_id,
        group_id=group_id,
        validate_group_id=validate_group_id,
    )

    if delay_seconds is not None:
        delay_seconds = int(delay_seconds)
    else:
        delay_seconds = queue.delay_seconds

    message_id = str(random.uuid4())
    message = sqs.Message(message_id, message_body, system_attributes)

    # The one change: moto asks queue.attributes, which scans every message held.
    if _deduplicates_by_content(queue):
        sha256 = hashlib.sha256()
        sha256.update(message_body.encode("utf-8"))
        message.deduplication_id = sha256.hexdigest()

    if deduplication_id is not None:
        message.deduplication_id = deduplication_id
        message.sequence_number = "".join(random.choice(string.digits) for _ in range(20))

    if group_id is not None:
        message.group_id = group_id

    if message_attributes:
        message.message_attributes = message_attributes

    if delay_seconds > sqs.MAXIMUM_MESSAGE_DELAY:
        msg = (
            f"Value {delay_seconds} for parameter DelaySeconds is invalid. "
            "Reason: DelaySeconds must be >= 0 and <= 900."
        )
        raise sqs.InvalidParameterValue(msg)

    message.mark_sent(delay_seconds=delay_seconds)

    queue.add_message(message)

    return message


sqs.SQSBackend.send_message = _send_message


def _is_message_valid_based_on_retention_period(self, queue_name, message):
    retention_period = self.get_queue(queue_name).message_retention_period
    return retention_period + message.sent_timestamp / 1000 > sqs.unix_time()


sqs.SQSBackend.is_message_valid_based_on_retention_period = (
    _is_message_valid_based_on_retention_period
)

if __name__ == "__main__":
    server.main()


_delete_message = sqs.Queue.delete_message


def _delete_message_under_lock(self, receipt_handle):
    # The Condition's lock is reentrant: moto's own delete may notify under it.
    with self._messages_lock:
        _delete_message(self, receipt_handle)


sqs.Queue.delete_message = _delete_message_under_lock
