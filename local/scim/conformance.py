"""Runs scim2-tester (RFC 7643/7644 conformance, python-scim project) against a SCIM base URL.

Usage: python conformance.py <base-url> <bearer-token>
Prints one JSON list of the checks: status, title, reason, tags and resource type.
"""

import json
import sys

from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import check_server


def main() -> int:
    base_url, token = sys.argv[1], sys.argv[2]
    http = Client(
        base_url=base_url,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    client = SyncSCIMClient(http)
    results = check_server(client)
    print(
        json.dumps(
            [
                {
                    "status": result.status.name,
                    "title": result.title,
                    "reason": result.reason,
                    "tags": sorted(result.tags),
                    "resourceType": result.resource_type,
                }
                for result in results
            ]
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
