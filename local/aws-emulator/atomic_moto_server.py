"""moto_server, with each DynamoDB request applied alone.

moto checks a conditional write's condition and then writes, with no lock between, while its
server answers requests on many threads. Two racing conditional writes can then both pass, which
DynamoDB itself never allows; the ledger's leases, the brake's count and the breaker's probe
lease all rest on that atomicity. So DynamoDB requests take one lock here; other services (SQS
long polls) stay concurrent. Arguments are moto_server's.
"""

import threading

from moto import server

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

if __name__ == "__main__":
    server.main()
