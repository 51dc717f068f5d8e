#!/usr/bin/env python3
"""Three calls of the Vesta REST API from Python 3's standard library: one id, a batch, and the
decoding of the first id. VESTA_URL is the server (default http://127.0.0.1:8080);
VESTA_AUTH_TOKEN is sent when set. Ids are decimal strings in the JSON: int(id) is exact."""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ.get("VESTA_URL", "http://127.0.0.1:8080")
TOKEN = os.environ.get("VESTA_AUTH_TOKEN")


def call(path, **query):
    url = BASE + path + ("?" + urllib.parse.urlencode(query) if query else "")
    headers = {"Authorization": "Bearer " + TOKEN} if TOKEN else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as res:
            return json.load(res)
    except urllib.error.HTTPError as err:
        body = json.load(err)
        sys.exit(f"{path}: {err.code} {body['error']['code']}: {body['error']['message']}")


one = call("/genid")
print(json.dumps(one))
batch = call("/genids", count=3)
print(json.dumps(batch))
decoded = call("/expid", id=one["id"])
print(json.dumps(decoded))
assert int(decoded["id"]) == int(one["id"]), "the decoded id differs from the issued one"
