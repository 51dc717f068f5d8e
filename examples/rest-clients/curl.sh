#!/bin/sh
# Three calls of the Vesta REST API from curl: one id, a batch, and the decoding of the first id.
# VESTA_URL is the server (default http://127.0.0.1:8080); VESTA_AUTH_TOKEN is sent when set.
set -eu
base="${VESTA_URL:-http://127.0.0.1:8080}"
call() {
  if [ -n "${VESTA_AUTH_TOKEN:-}" ]; then
    curl -sS --fail-with-body -H "Authorization: Bearer $VESTA_AUTH_TOKEN" "$base$1"
  else
    curl -sS --fail-with-body "$base$1"
  fi
  echo
}
genid=$(call /genid)
echo "$genid"
call '/genids?count=3'
# The id is a string in the JSON: cut it out as text, never through a floating-point number.
id=$(echo "$genid" | sed -n 's/.*"id":"\([0-9]*\)".*/\1/p')
call "/expid?id=$id"
